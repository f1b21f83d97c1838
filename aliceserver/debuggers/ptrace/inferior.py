"""One traced process: its threads, all-stop control, traps, and the decoding of every stop.

Runs on the tracer thread only. The engine (engine.py) owns the tracer loop and calls
`handle()` for each waitpid status while the process runs.

All-stop: when a thread has something to report, every other thread is interrupted
(PTRACE_INTERRUPT) and waited for. What those threads had to say on the way (their own
breakpoint hits, signals) is kept as pending reports, delivered one per resume, so that
nothing is lost or reported twice.
"""

from __future__ import annotations

import collections
import enum
import logging
import signal as sig
from dataclasses import replace
from typing import Callable

from aliceserver.debuggers.events import (
    BreakpointChanged,
    Exited,
    Output,
    Stopped,
    StopReason,
    ThreadExited,
    ThreadStarted,
)
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import CatchKind, FaultInfo, SignalPolicy, StepKind, ThreadState
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.emulate import plan_for
from aliceserver.debuggers.ptrace.process_events import CATCH_REASONS, ProcessEvents
from aliceserver.debuggers.ptrace.tracee import _NONE, _RESUME, AfterStep, Tracee, _Action
from aliceserver.debuggers.ptrace.traps import INT3, LogicalBreakpoint, PhysicalTrap, TrapTable
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, WaitStatus, decode
from aliceserver.debuggers.ptrace.watch import WatchSlots
from aliceserver.debuggers.ptrace.watchscope import frame_alive, retire
from aliceserver.debuggers.signals import (
    CRASH_SIGNALS,
    fault_description,
    signal_description,
    signal_name,
)
from aliceserver.debuggers.source.stepping import StepPlan

log = logging.getLogger(__name__)

TRAP_TRACE = 2
TRAP_HWBKPT = 4
SI_KERNEL = 0x80  # si_code of the SIGTRAP an int3 raises
_WAIT_ONE = binding.WALL | binding.WNOTHREAD


class Run(enum.Enum):
    STOPPED = "stopped"  # every thread is stopped and the client knows it
    RUNNING = "running"
    EXITED = "exited"


class Inferior(ProcessEvents):
    def __init__(
        self,
        libc: binding.Libc,
        pid: int,
        *,
        attached: bool,
        events: EventSource,
        traps: TrapTable,
        watches: WatchSlots,
        policy: Callable[[int], SignalPolicy],
        flush_output: Callable[[], None],
        on_exec: Callable[["Inferior"], None],
        follow_child: bool = False,
    ) -> None:
        self.libc = libc
        self.pid = pid
        self.attached = attached
        self.events = events
        self.traps = traps
        self.watches = watches
        self._policy = policy
        self._flush_output = flush_output
        self._on_exec = on_exec
        self.follow_child = follow_child
        self.catch: set[CatchKind] = set()
        # gdb's `catch syscall` (None: off, empty: every call) and `catch signal`; the gate
        # judges each catch stop (a front end's conditions, ignore counts): False goes on.
        self.catch_syscalls: frozenset[int] | None = None
        self.catch_signals: frozenset[int] = frozenset()
        self.catch_gate: Callable[[Stopped], bool] | None = None
        self.told_on_resume: list[Output] = []  # console lines due when the program goes on
        self.library_change: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # loaded, unloaded
        self.exception_type: str | None = None  # the C++ type at the last exception probe
        self.memory = binding.ProcessMemory(pid)
        self.threads: dict[int, Tracee] = {pid: Tracee(pid)}
        self.run = Run.STOPPED
        self.pending: collections.deque[Stopped] = collections.deque()
        self.wake_sent = False
        self.parked: list[Tracee] = []  # threads stopped only to wake the tracer
        # gdb's scheduler-locking: the one thread the current resume lets run (its own
        # resumes after a step over a trap too); threads it creates run, as in gdb
        self.locked: int | None = None
        self.vfork_traps_removed = False
        self.exit_event: Exited | None = None
        self.last_stop: Stopped | None = None  # the last stop reported to the client
        self.strays: list[int] = []
        self.moribund: set[int] = set()
        self._collecting = False  # inside _stop_others: breakpoint hits are deferred  # traps removed while threads ran (see remove_trap)  # our children we stopped tracing (a fork parent we left)

    # --- registers and memory -------------------------------------------------------
    def regs(self, t: Tracee) -> binding.UserRegs:
        if not t.regs_valid:
            self.libc.get_regs(t.tid, t.regs)
            t.regs_valid = True
        return t.regs

    def thread(self, tid: int) -> Tracee:
        t = self.threads.get(tid)
        if t is None or t.gone:
            from aliceserver.errors import TargetError

            raise TargetError(f"no thread {tid} in process {self.pid}")
        return t

    def insert_trap(self, trap: PhysicalTrap) -> None:
        if trap.inserted:
            return
        code = b""
        for size in (16, 1):  # 16 bytes may run off the end of the mapping
            try:
                code = self.traps.mask(trap.address, self.memory.read(trap.address, size))
                break
            except OSError:
                if size == 1:
                    raise
        trap.original = code[:1]
        trap.emulation = plan_for(code)
        self.memory.write(trap.address, INT3)
        trap.inserted = True

    def remove_trap(self, trap: PhysicalTrap) -> None:
        if trap.inserted:
            self.memory.write(trap.address, trap.original)
            trap.inserted = False
            if any(t.running for t in self.threads.values()):
                # A running thread may have hit it already, its SIGTRAP not yet collected.
                self.moribund.add(trap.address)

    # --- resuming -------------------------------------------------------------------
    def _cont(self, t: Tracee, request: int = binding.PTRACE_CONT) -> None:
        if self.told_on_resume:
            for told in self.told_on_resume:
                self.events.put(told)
            self.told_on_resume.clear()
        if t.regs_dirty:
            self.libc.set_regs(t.tid, t.regs)
            t.regs_dirty = False
        t.regs_valid = False
        signal_to_deliver = t.pending_signal if request == binding.PTRACE_CONT else 0
        t.pending_signal = 0 if request == binding.PTRACE_CONT else t.pending_signal
        if request == binding.PTRACE_CONT and self.catch_syscalls is not None:
            request = binding.PTRACE_SYSCALL  # only while a syscall catchpoint exists
        try:
            self.libc.ptrace(request, t.tid, 0, signal_to_deliver)
        except OSError as error:
            if error.errno != 3:  # ESRCH: it died under us; its exit status follows
                raise
        t.running = True
        t.single_stepping = request == binding.PTRACE_SINGLESTEP

    def _emulate(self, t: Tracee, trap: PhysicalTrap) -> bool:
        plan = trap.emulation
        if plan is None:
            return False
        regs = self.regs(t)
        try:
            plan.apply(regs, self.memory.read, self.memory.write)
        except OSError:
            t.regs_valid = False  # e.g. a push onto an unmapped stack: let the CPU fault
            return False
        t.regs_dirty = True
        return True

    def _trap_at_pc(self, t: Tracee) -> PhysicalTrap | None:
        trap = self.traps.by_address.get(self.regs(t).rip)
        return trap if trap is not None and trap.inserted else None

    def _start_step_over(self, t: Tracee, trap: PhysicalTrap, then: "AfterStep") -> None:
        """Single-step `t` over `trap` with its byte removed (every other thread is stopped)."""
        self.remove_trap(trap)
        t.step_over = trap.address
        t.after_step_over = then
        self._cont(t, binding.PTRACE_SINGLESTEP)

    def resume(self, only: int | None = None) -> None:
        """Resume all threads (or only one): deliver a pending report instead, if any."""
        self.run = Run.RUNNING
        if only is None:
            only = self.locked
        if self._report_pending(only):
            return
        targets = [t for t in self.threads.values() if not t.gone and not t.running and not t.new]
        if only is not None:
            targets = [t for t in targets if t.tid == only]
        for t in targets:
            trap = self._trap_at_pc(t)
            if trap is not None and not self._emulate(t, trap):
                then = AfterStep.RESUME_ALL if only is None else AfterStep.CONTINUE_SELF
                self._start_step_over(t, trap, then)
                return
        for t in targets:
            self._cont(t)

    def step(self, tid: int) -> None:
        t = self.thread(tid)
        t.deferred_hit = False  # stepping it on is the client's explicit wish
        self.run = Run.RUNNING
        t.stepping = True
        trap = self._trap_at_pc(t)
        if trap is not None:
            if self._emulate(t, trap):
                t.stepping = False
                self._report(Stopped(StopReason.STEP, t.tid, address=self.regs(t).rip))
                return
            self._start_step_over(t, trap, AfterStep.REPORT)
            return
        self._cont(t, binding.PTRACE_SINGLESTEP)

    def _resume_thread(self, t: Tracee) -> None:
        """Let one thread go on while the process runs (nothing to report for it)."""
        if self.run is not Run.RUNNING or t.gone or t.running:
            return
        if self._step_again(t):
            return
        trap = self._trap_at_pc(t)
        if trap is None or self._emulate(t, trap):
            self._cont(t)
            return
        # The trap byte must come out for a step; other threads must not run past it then.
        self._stop_others(t.tid)
        if self._report_pending():
            return
        self._start_step_over(t, trap, AfterStep.RESUME_ALL)

    def unpark(self) -> None:
        parked, self.parked = self.parked, []
        for t in parked:
            if not self._step_again(t):
                self._resume_thread(t)

    def _step_again(self, t: Tracee) -> bool:
        """A thread stopped before the single step it was given (by the engine's wake-up,
        or by an interrupt left pending when it stopped at a trap while every thread was
        being stopped) takes that same step again: continuing it would lose the step, and
        with a step over a trap, leave the trap's byte out and the other threads stopped."""
        if not t.single_stepping or t.gone or t.running:
            return False
        self._cont(t, binding.PTRACE_SINGLESTEP)
        return True

    # --- stopping -------------------------------------------------------------------
    def _stop_others(self, tid: int) -> None:
        """Interrupt every running thread but `tid` and wait until each is in a ptrace-stop."""
        for t in self.threads.values():
            if t.tid != tid and t.running and not t.gone and not t.interrupt_sent:
                try:
                    self.libc.ptrace(binding.PTRACE_INTERRUPT, t.tid)
                    t.interrupt_sent = True
                except OSError:
                    t.gone = True  # a zombie leader, or exiting: nothing to stop
        self._collecting = True
        try:
            self._collect_stops(tid)
        finally:
            self._collecting = False

    def _collect_stops(self, tid: int) -> None:
        while True:
            waiting = [t for t in self.threads.values() if t.tid != tid and (t.running or t.new) and not t.gone]
            if not waiting or self.exit_event is not None:
                return
            for t in waiting:
                try:
                    _, status = self.libc.waitpid(t.tid, _WAIT_ONE)
                except ChildProcessError:
                    t.gone = True
                    continue
                except OSError:
                    t.gone = True
                    continue
                stop = self._classify(t, decode(status))
                if isinstance(stop, Stopped) and stop.reason in CATCH_REASONS:
                    stop = self._judge_catch(stop)
                if isinstance(stop, Stopped):
                    self.pending.append(stop)

    # --- source-line step plans (stepping.py) ----------------------------------------
    def start_plan(self, plan: StepPlan, pc: int) -> None:
        t = self.thread(plan.tid)
        t.plan = plan
        self.run = Run.RUNNING
        immediate = plan.start(pc)
        if immediate is not None:
            self._end_plan(t)
            self._report(immediate)

    def _continue_plan(self, t: Tracee, stop: Stopped) -> Stopped | None:
        plan = t.plan
        assert plan is not None
        if stop.reason is not StopReason.STEP:
            self._end_plan(t)  # a breakpoint, a signal...: it wins over the step
            return stop
        if stop.watches_left and plan.kind is not StepKind.OUT:
            # The plan's trap is where a watched frame returned: gdb stops there, and only
            # `finish` (which ends there anyway) tells its own story beside it.
            self._end_plan(t)
            return replace(stop, reason=StopReason.WATCHPOINT_SCOPE, breakpoint_ids=stop.watches_left)
        self._drop_plan_trap(t)
        try:
            result = plan.on_stop(stop)
        except Exception:  # a plan must never wedge the session: report where we are
            log.exception("step plan failed")
            result = stop
        if result is not None:
            self._end_plan(t)
            if stop.watches_left:
                result = replace(result, watches_left=stop.watches_left)
        return result

    def _drop_plan_trap(self, t: Tracee) -> None:
        idents, t.plan_traps = t.plan_traps, []
        for ident in idents:
            if ident in self.traps.by_id:
                trap = self.traps.remove(ident)
                if not trap.wanted:
                    self.remove_trap(trap)
                if not trap.logical:
                    self.traps.drop_trap(trap.address)

    def _end_plan(self, t: Tracee) -> None:
        self._drop_plan_trap(t)
        t.plan = None
        t.stepping = False

    def single_step(self, tid: int) -> None:
        t = self.thread(tid)
        t.stepping = True
        self.run = Run.RUNNING
        trap = self._trap_at_pc(t)
        if trap is not None:
            self._start_step_over(t, trap, AfterStep.REPORT)
        else:
            self._cont(t, binding.PTRACE_SINGLESTEP)

    def run_alone_to(self, tid: int, address: int) -> None:
        """Resume only `tid` until it reaches `address`; the others stay stopped, as when
        it single-steps (the code between cannot wait for them: it has no call or syscall)."""
        t = self.thread(tid)
        if self._trap_at_pc(t) is not None or t.pending_signal:
            self.single_step(tid)  # a trap's byte must come out first; a signal waits
            return
        self._plan_trap(t, address, lambda hit: hit == tid)
        t.stepping = False
        self.run = Run.RUNNING
        self._cont(t)

    def run_to(self, tid: int, address: int, min_sp: int) -> None:
        self.run_to_any(tid, [(address, min_sp)])

    def run_to_any(self, tid: int, targets: list[tuple[int, int]]) -> None:
        """Resume every thread until `tid` reaches one of (address, with rsp >= min_sp)."""
        t = self.thread(tid)
        for address, min_sp in targets:

            def arrived(hit: int, min_sp: int = min_sp) -> bool:
                return hit == tid and int(self.regs(self.threads[hit]).rsp) >= min_sp

            self._plan_trap(t, address, arrived)
        self.resume()

    def _plan_trap(self, t: Tracee, address: int, arrived: Callable[[int], bool]) -> None:
        """A temporary internal trap of `t`'s plan: reports a STEP when `arrived` says so."""
        bp = LogicalBreakpoint(
            self.traps.new_internal_id(), address, temporary=True, internal=True,
            condition=arrived, reports=StopReason.STEP,
        )  # fmt: skip
        self.insert_trap(self.traps.add(bp, b""))
        t.plan_traps.append(bp.id)

    def sp(self, tid: int) -> int:
        return int(self.regs(self.thread(tid)).rsp)

    def _report(self, stop: Stopped) -> None:
        for t in self.threads.values():
            if t.plan is not None:  # any stop the client sees ends every step in progress
                self._end_plan(t)
        self._stop_others(stop.thread_id)
        self.moribund.clear()  # every thread's status is in: no stale hit is left
        if self.exit_event is not None:
            return
        self.run = Run.STOPPED
        self.last_stop = stop
        self._flush_output()
        self.events.put(stop)

    def _report_pending(self, only: int | None = None) -> bool:
        """Report one queued stop (only of thread `only`, when one thread is resumed)."""
        for deferred in [t for t in self.threads.values() if t.deferred_hit and only in (None, t.tid)]:
            deferred.deferred_hit = False
            trap = self._trap_at_pc(deferred) if not deferred.gone else None
            hit = self._breakpoint_hit(deferred, trap) if trap is not None else None
            if isinstance(hit, Stopped):
                self._report(hit)
                return True
        kept: list[Stopped] = []
        try:
            return self._report_first_pending(only, kept)
        finally:
            self.pending.extendleft(reversed(kept))

    def _report_first_pending(self, only: int | None, kept: list[Stopped]) -> bool:
        while self.pending:
            stop = self.pending.popleft()
            if only is not None and stop.thread_id != only:
                kept.append(stop)  # another thread's: it waits until that thread runs
                continue
            t = self.threads.get(stop.thread_id)
            if t is None or t.gone:
                continue
            if stop.reason is StopReason.BREAKPOINT:
                live = tuple(i for i in stop.breakpoint_ids if i in self.traps.by_id and self.traps.by_id[i].enabled)
                if not live:
                    continue  # removed or disabled since: drop the stale hit
                stop = Stopped(stop.reason, stop.thread_id, breakpoint_ids=live, address=stop.address)
            self.run = Run.STOPPED
            self._flush_output()
            self.events.put(stop)
            return True
        return False

    def stop_all(self) -> None:
        """Stop every thread without reporting anything (attach, detach)."""
        self._stop_others(0)
        self.parked = []
        self.run = Run.STOPPED if self.exit_event is None else Run.EXITED

    def interrupt(self) -> None:
        target = self.parked[0] if self.parked else self.threads.get(self.pid)
        self.stop_all()
        if target is None or target.gone:
            target = next(t for t in self.threads.values() if not t.gone)
        self._report(Stopped(StopReason.PAUSE, target.tid, address=self.pc_or_none(target)))

    def pc_or_none(self, t: Tracee) -> int | None:
        try:
            return int(self.regs(t).rip)
        except OSError:
            return None

    # --- decoding stops -------------------------------------------------------------
    def handle(self, tid: int, status: int) -> None:
        """One waitpid status while the process runs."""
        t = self.threads.get(tid)
        decoded = decode(status)
        if t is None:
            if decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
                return  # a thread that went away at exec or that we already dropped
            t = self._add_thread(tid)
        stop: Stopped | _Action | None = self._classify(t, decoded)
        if isinstance(stop, Stopped) and t.plan is not None:
            stop = self._continue_plan(t, stop)
            if stop is None:
                return  # the plan moved on (stepping again, or running to its trap)
        if isinstance(stop, Stopped) and stop.reason in CATCH_REASONS:
            stop = self._judge_catch(stop)
        if isinstance(stop, Stopped):
            self._report(stop)
        elif stop is _RESUME:
            self._resume_thread(t)
        if self.run is Run.RUNNING and not self.parked and not self.any_running():
            # The only threads resumed are gone (e.g. resume(one) and it exited): the rest
            # were stopped all along, so the process is stopped, with nothing to report.
            self.run = Run.STOPPED

    def any_running(self) -> bool:
        """Whether some thread may still produce a wait status (new threads will)."""
        return any((t.running or t.new) and not t.gone for t in self.threads.values())

    def _add_thread(self, tid: int, pointer: int | None = None) -> Tracee:
        t = Tracee(tid, new=True)
        self.threads[tid] = t
        self.events.put(ThreadStarted(tid, pointer))
        return t

    def _classify(self, t: Tracee, status: WaitStatus) -> "Stopped | _Action":
        kind = status.kind
        if kind in (WaitKind.EXITED, WaitKind.KILLED):
            self._thread_gone(t, status)
            return _NONE
        t.running = False
        t.regs_valid = False
        if kind is WaitKind.INTERRUPT:
            t.interrupt_sent = False
            if t.new:
                t.new = False
                self.watches.apply(self.libc, t.tid)
            return _RESUME
        if kind is WaitKind.SYSCALL:
            # A thread interrupted inside a system call stops at its exit instead, and the
            # interrupt is spent: it is stopped, which is all the interrupt was for.
            t.interrupt_sent = False
            return self._syscall_stop(t)
        if kind in (WaitKind.GROUP_STOP, WaitKind.CONTINUED):
            return _RESUME
        if kind is WaitKind.EVENT:
            return self._ptrace_event(t, status.event)
        return self._signal(t, status.value)

    def _thread_gone(self, t: Tracee, status: WaitStatus) -> None:
        t.gone = True
        t.running = False
        if t.tid != self.pid:
            del self.threads[t.tid]
            self.events.put(ThreadExited(t.tid, status.value if status.kind is WaitKind.EXITED else None))
            return
        self._flush_output()
        if status.kind is WaitKind.EXITED:
            self.exit_event = Exited(self.pid, status.value)
        else:
            self.exit_event = Exited(self.pid, None, status.value, signal_name(status.value))
        self.run = Run.EXITED

    def _signal(self, t: Tracee, signo: int) -> "Stopped | _Action":
        if signo == sig.SIGTRAP:
            handled = self._sigtrap(t)
            if handled is not None:
                return handled
        if signo == sig.SIGSTOP and self.wake_sent:
            self.wake_sent = False
            self.parked.append(t)
            return _NONE
        if signo in self.catch_signals:
            if self._policy(signo).pass_to_program or signo in CRASH_SIGNALS:
                t.pending_signal = signo
            return Stopped(
                StopReason.SIGNAL_CAUGHT, t.tid, signal=signo, signal_name=signal_name(signo),
                description=signal_description(signo), address=int(self.regs(t).rip),
            )  # fmt: skip
        if signo in CRASH_SIGNALS:
            info = self.libc.get_siginfo(t.tid)
            t.pending_signal = signo
            address = info.address if info.code > 0 else None
            fault = FaultInfo(address, info.code, fault_description(signo, info.code))
            return Stopped(
                StopReason.CRASH, t.tid, signal=signo, signal_name=signal_name(signo),
                description=signal_description(signo), address=int(self.regs(t).rip), fault=fault,
            )  # fmt: skip
        policy = self._policy(signo)
        if policy.pass_to_program:
            t.pending_signal = signo
        if not policy.stop:
            if policy.print_:
                self.events.put(Output("console", f"\nProgram received signal {signal_name(signo)}, {signal_description(signo)}.\n"))
            return _RESUME
        return Stopped(
            StopReason.SIGNAL, t.tid, signal=signo, signal_name=signal_name(signo),
            description=signal_description(signo), address=int(self.regs(t).rip),
        )  # fmt: skip

    def _sigtrap(self, t: Tracee) -> "Stopped | _Action | None":
        """A SIGTRAP of ours (trap, step, watchpoint): what to do; None if it is a real signal."""
        if t.step_over is not None or t.stepping:
            info = self.libc.get_siginfo(t.tid)
            if info.code == TRAP_TRACE:
                return self._step_done(t)
        regs = self.regs(t)
        trap = self.traps.by_address.get(regs.rip - 1)
        if trap is not None and trap.inserted:
            regs.rip -= 1
            t.regs_dirty = True
            if self._collecting:
                t.deferred_hit = True  # counted and judged when its turn to report comes
                return _RESUME
            return self._breakpoint_hit(t, trap)
        info = self.libc.get_siginfo(t.tid)
        if info.code == SI_KERNEL and regs.rip - 1 in self.moribund:
            regs.rip -= 1  # a hit of a trap removed meanwhile: run the real instruction
            t.regs_dirty = True
            return _RESUME
        if info.code == TRAP_HWBKPT:
            return self._watch_hit(t) or _RESUME
        if info.code == TRAP_TRACE:
            return Stopped(StopReason.STEP, t.tid, address=int(regs.rip))
        return None

    def _step_done(self, t: Tracee) -> "Stopped | _Action":
        watch = self._watch_hit(t) if self.watches.active() else None
        then = AfterStep.REPORT
        if t.step_over is not None:
            trap = self.traps.by_address.get(t.step_over)
            t.step_over = None
            then, t.after_step_over = t.after_step_over, AfterStep.REPORT
            if trap is not None and trap.wanted:
                self.insert_trap(trap)
        if watch is not None:
            t.stepping = False
            return watch
        if then is not AfterStep.REPORT:
            # The step over one trap may land on another (consecutive breakpoints, a plan's
            # trap right after a call's return): that is a hit, as gdb's, not a pc to skip.
            landed = self._trap_at_pc(t)
            if landed is not None:
                hit = self._breakpoint_hit(t, landed)
                if isinstance(hit, Stopped):
                    return hit
        if then is AfterStep.RESUME_ALL:
            self.resume()
            return _NONE
        if then is AfterStep.CONTINUE_SELF:
            self._cont(t)
            return _NONE
        t.stepping = False
        pc = int(self.regs(t).rip)
        trap = self.traps.by_address.get(pc)
        if trap is not None and trap.inserted:
            # A source step that single-steps onto a user's breakpoint stops there, as gdb:
            # the hit reported, its condition judged and the hit counted (the int3 did not run).
            # Any step onto the return address a watched frame returned to ends the watch.
            hit = self._breakpoint_hit(t, trap, user_only=True, guards_only=t.plan is None)
            if isinstance(hit, Stopped):
                return hit
        return Stopped(StopReason.STEP, t.tid, address=pc)

    def _breakpoint_hit(
        self, t: Tracee, trap: PhysicalTrap, *, user_only: bool = False, guards_only: bool = False
    ) -> "Stopped | _Action":
        """`user_only`: the user's breakpoints and watch scope guards (a step landed here);
        `guards_only`: the scope guards alone."""
        stop_ids: list[int] = []
        internal_reason: StopReason | None = None
        note = ""
        finished: list[int] = []
        left: list[int] = []  # watches whose frame returned here
        for bp in list(trap.logical):
            guard = bp.guards_watch is not None
            if not bp.enabled or (user_only and bp.internal and not guard) or (guards_only and not guard):
                continue
            if bp.internal:
                if bp.condition is not None and not bp.condition(t.tid):
                    continue
                bp.hit_count += 1
                if bp.on_hit is not None:
                    bp.on_hit(t.tid)
                if bp.guards_watch is not None:
                    left.append(bp.guards_watch)
                elif bp.reports is not None:
                    internal_reason, note = bp.reports, bp.note
                if bp.temporary:
                    finished.append(bp.id)
                continue
            bp.hit_count += 1
            if bp.condition is not None:
                try:
                    if not bp.condition(t.tid):
                        continue
                except Exception:  # a broken condition stops, as in gdb, and says why
                    log.exception("breakpoint %d condition failed", bp.id)
            stop_ids.append(bp.id)
            if bp.temporary:
                finished.append(bp.id)
        for ident in finished:
            bp = self.traps.by_id[ident]
            emptied = self.traps.remove(ident)
            if not emptied.logical:
                self.remove_trap(emptied)
                self.traps.drop_trap(emptied.address)
            if not bp.internal:
                self.events.put(BreakpointChanged(bp.info(False), removed=True))
        watches_left = tuple(left)
        if stop_ids:  # a user's breakpoint wins over the engine's own reasons
            return Stopped(
                StopReason.BREAKPOINT, t.tid, breakpoint_ids=tuple(stop_ids), address=trap.address,
                watches_left=watches_left,
            )  # fmt: skip
        if internal_reason is not None:
            t.plan_traps = [ident for ident in t.plan_traps if ident not in finished]
            return Stopped(internal_reason, t.tid, address=trap.address, description=note, watches_left=watches_left)
        if watches_left:
            return Stopped(
                StopReason.WATCHPOINT_SCOPE, t.tid, breakpoint_ids=watches_left, address=trap.address,
                watches_left=watches_left,
            )  # fmt: skip
        return _RESUME

    def _watch_hit(self, t: Tracee) -> Stopped | None:
        fired = self.watches.take_fired(self.libc, t.tid)
        for watch in fired:
            if not frame_alive(self, watch, t.tid):
                # Its frame was left without returning (longjmp, an exception) and the
                # memory serves another frame now: the watch ends here, as in gdb.
                retire(self, watch, drop_guard=True)
                return Stopped(
                    StopReason.WATCHPOINT_SCOPE, t.tid, breakpoint_ids=(watch.id,),
                    address=int(self.regs(t).rip), watches_left=(watch.id,),
                )  # fmt: skip
            new = self.memory.read(watch.address, watch.size)
            old = watch.value
            if watch.kind.value == "write" and new == old:
                continue  # written with the same value: gdb does not stop either
            watch.value = new
            watch.hit_count += 1
            return Stopped(
                StopReason.WATCHPOINT, t.tid, breakpoint_ids=(watch.id,),
                address=int(self.regs(t).rip), watch_old=old, watch_new=new,
            )  # fmt: skip
        return None

    # --- ending ---------------------------------------------------------------------
    def state_of(self, t: Tracee) -> ThreadState:
        if t.gone:
            return ThreadState.EXITED
        return ThreadState.RUNNING if t.running else ThreadState.STOPPED

    def reap_all(self) -> None:
        """Wait for every thread's exit status after a SIGKILL."""
        while self.exit_event is None:
            try:
                tid, status = self.libc.waitpid(-1, _WAIT_ONE)
            except ChildProcessError:
                self.exit_event = self.exit_event or Exited(self.pid, None, sig.SIGKILL, "SIGKILL")
                break
            t = self.threads.get(tid)
            decoded = decode(status)
            if t is not None and decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
                self._thread_gone(t, decoded)
        self.run = Run.EXITED

    def detach(self) -> None:
        """Take out every trap and watchpoint and let every thread go, untraced."""
        for trap in self.traps.by_address.values():
            self.remove_trap(trap)
        for t in self.threads.values():
            if t.gone:
                continue
            try:
                self.watches.clear_thread(self.libc, t.tid)
                if t.regs_dirty:
                    self.libc.set_regs(t.tid, t.regs)
                self.libc.ptrace(binding.PTRACE_DETACH, t.tid, 0, t.pending_signal)
            except OSError as error:
                log.debug("detaching thread %d: %s", t.tid, error)
        self.run = Run.EXITED
        self.memory.close()
