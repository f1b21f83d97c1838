"""One traced process: its threads, all-stop control, traps, and the decoding of every stop.

Runs on the tracer thread only. The tracer's loop (tracer.py) calls `handle()` for each
waitpid status while the process runs.

All-stop: when a thread has something to report, every other thread is interrupted
(PTRACE_INTERRUPT) and waited for. What those threads had to say on the way (their own
breakpoint hits, signals) is kept as pending reports, delivered one per resume, so that
nothing is lost or reported twice. Its parts: process events (clone, fork, exec) in
process_events.py, signal and trap stops in signal_stops.py, source-line step plans in
step_plans.py.
"""

from __future__ import annotations

import collections
import logging
import signal as sig
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.events import (
    Exited,
    Output,
    Stopped,
    StopReason,
    ThreadExited,
    ThreadStarted,
    Written,
)
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import CatchKind, SignalPolicy, ThreadState
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.emulate import plan_for
from aliceserver.debuggers.ptrace.process_events import CATCH_REASONS, ProcessEvents
from aliceserver.debuggers.ptrace.procinfo import ThreadFiles, exited_alone
from aliceserver.debuggers.ptrace.signal_stops import SignalStops
from aliceserver.debuggers.ptrace.step_plans import StepPlans
from aliceserver.debuggers.ptrace.tracee import _NONE, _RESUME, AfterStep, Run, Tracee, _Action
from aliceserver.debuggers.ptrace.traps import INT3, PhysicalTrap, TrapTable
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, WaitStatus, decode
from aliceserver.debuggers.ptrace.watch import WatchSlots
from aliceserver.debuggers.signals import (
    signal_description,
    signal_name,
)

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.patched_breakpoints import JumpPatches
    from aliceserver.foreground import Foreground

log = logging.getLogger(__name__)

_WAIT_ONE = binding.WALL | binding.WNOTHREAD
_SYSCALL_STOPS = (StopReason.SYSCALL_ENTRY, StopReason.SYSCALL_RETURN)
_TRAP_BRKPT = 1  # si_code of the SIGTRAP a single-step out of a system call raises
_JOB_STOPS = frozenset({sig.SIGSTOP, sig.SIGTSTP, sig.SIGTTIN, sig.SIGTTOU})
WRITE_PATIENCE = 1.0  # seconds a signal's line may take to be written before the thread runs on


class Inferior(ProcessEvents, SignalStops, StepPlans):
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
        # Told of each stop before the front end is (engine_queries.py: what it asks then)
        self.before_report: Callable[[Stopped], None] = lambda stop: None
        self.told_on_resume: list[Output] = []  # console lines due when the program goes on
        self.library_change: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # loaded, unloaded
        self.exception_type: str | None = None  # the C++ type at the last exception probe
        self.memory = binding.ProcessMemory(pid)
        self.threads: dict[int, Tracee] = {pid: Tracee(pid)}
        self.thread_files: ThreadFiles | None = None  # told of threads started and ended
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
        self.first_stops: dict[int, int] = {}  # fork children's, come before their fork events
        self.moribund: set[int] = set()
        self.jump_patches: JumpPatches | None = None  # patched breakpoints (patched_breakpoints.py)
        self.calls_running = 0  # functions the debugger is calling in the program (infcall.py)
        # The server's terminal, which the program's group (its first pid) holds while it runs
        self.terminal: Foreground | None = None
        self.terminal_group = 0
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
        if self.jump_patches is not None and self.jump_patches.serves(self, trap):
            return  # a jump patch stands in for it
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
        if not trap.inserted and self.jump_patches is not None:
            self.jump_patches.trap_dropped(self, trap)
        if trap.inserted:
            self.memory.write(trap.address, trap.original)
            trap.inserted = False
            if any(t.running for t in self.threads.values()):
                # A running thread may have hit it already, its SIGTRAP not yet collected.
                self.moribund.add(trap.address)

    # --- resuming -------------------------------------------------------------------
    def _cont(self, t: Tracee, request: int = binding.PTRACE_CONT) -> None:
        # A signal goes with a continue, and with a step the user asked for (stepi, or a
        # step plan's): the kernel stops the step at its handler's entry, as gdb's. Not
        # with the step over a trap, whose byte is out while the others are stopped.
        delivers = request == binding.PTRACE_CONT or (
            request == binding.PTRACE_SINGLESTEP and t.stepping and t.step_over is None)
        if delivers and t.pending_signal and self.jump_patches is not None:
            self.jump_patches.before_signal(self, t)  # its handler must not return into a trampoline
        if self.told_on_resume:
            for told in self.told_on_resume:
                self.events.put(told)
            self.told_on_resume.clear()
        if t.regs_dirty:
            self.libc.set_regs(t.tid, t.regs)
            t.regs_dirty = False
        t.regs_valid = False
        signal_to_deliver = t.pending_signal if delivers else 0
        t.pending_signal = 0 if delivers else t.pending_signal
        if signal_to_deliver:
            t.passed_stop = signal_to_deliver if signal_to_deliver in _JOB_STOPS else 0
        # gdb's software watchpoints: a continue single-steps (and a step it was redoing);
        # not a call into the program, which gdb runs with them unchecked
        soft = self.watches.soft_active() and not t.stepping and t.step_over is None and not self.calls_running and (
            request == binding.PTRACE_CONT or (request == binding.PTRACE_SINGLESTEP and t.soft_stepping))
        if soft:
            request = binding.PTRACE_SINGLESTEP
        t.soft_stepping = soft
        if request == binding.PTRACE_CONT and self.catch_syscalls is not None:
            request = binding.PTRACE_SYSCALL  # only while a syscall catchpoint exists
        try:
            self.libc.ptrace(request, t.tid, 0, signal_to_deliver)
        except OSError as error:
            if error.errno != 3:  # ESRCH: it died under us; its exit status follows
                raise
        t.running = True
        t.jumped, t.moved_from = False, None
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

    def _trap_to_pass(self, t: Tracee) -> PhysicalTrap | None:
        """The trap a resume steps `t` over first: none where a jump put it."""
        return None if t.jumped else self._trap_at_pc(t)

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
        if self.terminal is not None:
            self.terminal.give(self.terminal_group)
        targets = [t for t in self.threads.values() if not t.gone and not t.running and not t.new]
        if only is not None:
            targets = [t for t in targets if t.tid == only]
        for t in targets:
            trap = self._trap_to_pass(t)
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
        if self.terminal is not None:
            self.terminal.give(self.terminal_group)
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
        trap = self._trap_to_pass(t)
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
        if t.soft_stepping and self._trap_at_pc(t) is not None:
            return False  # a continue's step onto a trap: stepped over as a continue's (_resume_thread)
        self._cont(t, binding.PTRACE_SINGLESTEP)
        return True

    # --- stopping -------------------------------------------------------------------
    def _stop_others(self, tid: int) -> None:
        """Interrupt every running thread but `tid` and wait until each is in a ptrace-stop.
        Those interrupted before too: any ptrace-stop since (a trap, a clone or vfork-done
        event) may have spent it; one still pending makes one stop all the same."""
        for t in self.threads.values():
            if t.tid != tid and t.running and not t.gone:
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
        """Wait until every thread but `tid` that runs (or is new) has stopped or gone,
        queueing what each says. The leader last, and not by its tid: a killed process's
        leader is a zombie whose status waits until its other threads are reaped, a wait
        on it alone never ends (wait_thread). The others by tid: waitpid(-1) scans every
        tracee (3x the CPU of a 1,000-thread stop), and a thread's exit is never held."""
        while True:
            waiting = [t for t in self.threads.values() if t.tid != tid and (t.running or t.new) and not t.gone]
            if not waiting or self.exit_event is not None:
                return
            leader = self.threads.get(self.pid)
            for t in waiting:
                if t is leader:
                    continue
                try:
                    _, status = self.libc.waitpid(t.tid, _WAIT_ONE)
                except OSError:  # ChildProcessError too: gone under us
                    t.gone = True
                    continue
                stop = self._classify(t, decode(status))
                if isinstance(stop, Stopped) and stop.reason in CATCH_REASONS:
                    stop = self._judge_catch(stop)
                if isinstance(stop, Stopped):
                    self.pending.append(stop)
            leader = self.threads.get(self.pid)  # (an exec's thread may be it now)
            if leader is not None and leader.tid != tid and self.exit_event is None:
                if (leader.running or leader.new) and not leader.gone:
                    last = self._wait_leader(leader)
                    if last is None:  # it exited alone: nothing to stop, told as gdb's
                        leader.gone, leader.running = True, False  # check_zombie_leaders
                        self.events.put(ThreadExited(self.pid, pointer=leader.regs.fs_base or None))
                    else:
                        self._take_status(self.pid, last)

    def wait_thread(self, t: Tracee) -> int:
        """The next status of `t` while the others are stopped. For the leader waitpid(-1),
        the others' statuses meanwhile (their exits, the process killed) taken, as the
        kernel holds the leader's exit until they are reaped (delay_group_leader)."""
        if t.tid != self.pid:
            return self.libc.waitpid(t.tid, _WAIT_ONE)[1]
        status = self._wait_leader(t)
        return int(sig.SIGKILL) if status is None else status  # (a stopped leader is alive)

    def _wait_leader(self, t: Tracee) -> int | None:
        """The leader's next status; None when it exited alone (pthread_exit): a zombie
        whose other threads are all stopped, it tells nothing until they end."""
        got, status = self.libc.waitpid(t.tid, _WAIT_ONE | binding.WNOHANG)  # mostly there
        while got != t.tid:
            if got:
                self._take_status(got, status)
            elif exited_alone(self.pid):
                return None
            try:
                got, status = self.libc.waitpid(-1, _WAIT_ONE)
            except ChildProcessError:  # no tracee left: told as a kill
                return int(sig.SIGKILL)  # the status of a process killed by it
        return status

    # --- reporting (step plans: step_plans.py) -----------------------------------------
    def _report(self, stop: Stopped) -> None:
        for t in self.threads.values():
            if t.plan is not None or t.step_after_handler:  # any stop the client sees ends every step
                t.step_after_handler = False
                self._end_plan(t)
        self._stop_others(stop.thread_id)
        self.moribund.clear()  # every thread's status is in: no stale hit is left
        if self.exit_event is not None:
            return
        if self.jump_patches is not None:  # hits let go in the program, told to their gates
            self.jump_patches.settle(self)
            stop = self.jump_patches.shown(self, stop)  # not inside a displaced copy
        self.run = Run.STOPPED
        self.last_stop = stop
        if self.terminal is not None:  # the prompt's: before the stop is told
            self.terminal.take()
        self._flush_output()
        try:
            self.before_report(stop)
        except Exception:  # only work made ahead: the stop is told all the same
            log.exception("before reporting %r", stop)
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
            elif stop.reason in _SYSCALL_STOPS and not self._syscall_caught(stop.syscall):
                continue  # its catchpoint went while the stop was queued: the thread goes on
            self.run = Run.STOPPED
            if self.terminal is not None:  # (a stop found while it ran: the prompt's again)
                self.terminal.take()
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
            ended = decoded.kind in (WaitKind.EXITED, WaitKind.KILLED)
            if ended or self._early_fork_child(tid, status):
                return  # a thread gone at exec or already dropped, or a fork child's first stop
            t = self._add_thread(tid)
        self.unwritten = None
        stop: Stopped | _Action | None = self._classify(t, decoded)
        if isinstance(stop, Stopped) and t.step_after_handler and stop.reason is StopReason.STEP:
            t.step_after_handler = False  # back from the handler: now the stepi itself
            self._drop_plan_trap(t)
            t.stepping = True
            self._cont(t, binding.PTRACE_SINGLESTEP)
            return
        if isinstance(stop, Stopped) and t.plan is not None:
            stop = self._continue_plan(t, stop)
            if stop is None:
                return  # the plan moved on (stepping again, or running to its trap)
        if isinstance(stop, Stopped) and stop.reason in CATCH_REASONS:
            stop = self._judge_catch(stop)
        if isinstance(stop, Stopped):
            self._report(stop)
        elif stop is _RESUME:
            if self.unwritten is not None:
                self._await_written(self.unwritten)
            self._resume_thread(t)
        if self.run is Run.RUNNING and not self.parked and not self.any_running():
            # The only threads resumed are gone (e.g. resume(one) and it exited): the rest
            # were stopped all along, so the process is stopped, with nothing to report.
            self.run = Run.STOPPED

    def _await_written(self, written: Written) -> None:
        """Before the program runs on: the consoles wrote the signal's line (else the
        program's next output could come first); bounded, and a front end that waits for
        a command of its own ends the wait (Tracer.call)."""
        if not written.wait(WRITE_PATIENCE):
            log.debug("a console did not write a signal's line within %s s", WRITE_PATIENCE)
        self.unwritten = None

    def any_running(self) -> bool:
        """Whether some thread may still produce a wait status (new threads will)."""
        return any((t.running or t.new) and not t.gone for t in self.threads.values())

    def _add_thread(self, tid: int, pointer: int | None = None) -> Tracee:
        t = Tracee(tid, new=True)
        self.threads[tid] = t
        if self.thread_files is not None:
            self.thread_files.started(tid)
        self.events.put(ThreadStarted(tid, pointer))
        return t

    def _classify(self, t: Tracee, status: WaitStatus) -> "Stopped | _Action":
        kind = status.kind
        if kind in (WaitKind.EXITED, WaitKind.KILLED):
            self._thread_gone(t, status)
            return _NONE
        t.running = False
        t.regs_valid = False
        from_event, t.event_stop = t.event_stop, kind is WaitKind.EVENT
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
        if kind is WaitKind.GROUP_STOP and t.passed_stop == status.value and not self._collecting:
            t.passed_stop = 0  # the stop signal it was given took effect: told, not passed again
            if self._policy(status.value).stop:
                return Stopped(
                    StopReason.SIGNAL, t.tid, signal=status.value, signal_name=signal_name(status.value),
                    description=signal_description(status.value), address=int(self.regs(t).rip),
                )  # fmt: skip
        if kind in (WaitKind.GROUP_STOP, WaitKind.CONTINUED):
            return _RESUME
        if kind is WaitKind.EVENT:
            return self._ptrace_event(t, status.event)
        if from_event and t.single_stepping and status.value == sig.SIGTRAP:
            left = self._left_system_call(t)
            if left is not None:
                return left
        t.launched = False
        return self._signal(t, status.value)

    def _left_system_call(self, t: Tracee) -> "Stopped | _Action | None":
        """A single-step from an event stop first reports the return from the system call
        the event came in (si_code TRAP_BRKPT), before any instruction ran. After `catch
        fork` (or exec) gdb tells that as the step, its pc unchanged; at the launch's exec
        (`starti`), where gdb's startup holds the program by a plain SIGTRAP, its step is
        one instruction: it steps again."""
        if self.libc.get_siginfo(t.tid).code != _TRAP_BRKPT:
            return None
        if t.launched:
            t.launched = False
            self._cont(t, binding.PTRACE_SINGLESTEP)
            return _NONE
        return self._step_done(t) if t.stepping or t.step_over is not None else None

    def _thread_gone(self, t: Tracee, status: WaitStatus) -> None:
        t.gone = True
        t.running = False
        if t.tid != self.pid:
            del self.threads[t.tid]
            if self.thread_files is not None:
                self.thread_files.ended(t.tid)
            self.events.put(ThreadExited(t.tid, status.value if status.kind is WaitKind.EXITED else None))
            leader = self.threads.get(self.pid)
            if leader is not None and leader.gone and len(self.threads) == 1:  # it exited alone
                self._thread_gone(leader, decode(self.wait_thread(leader)))  # the process's end
            return
        self._flush_output()
        if status.kind is WaitKind.EXITED:
            self.exit_event = Exited(self.pid, status.value)
        else:
            self.exit_event = Exited(self.pid, None, status.value, signal_name(status.value))
        self.run = Run.EXITED

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
