"""The signal stops of an Inferior (a mixin of inferior.py): a signal the user's policy
stops for, passes or catches; a crash with its fault; and a SIGTRAP of ours, which is a
trap hit (its logical breakpoints judged), a finished single-step (over a trap, or a
source step landing on a breakpoint) or a hardware watchpoint."""

from __future__ import annotations

import logging
import signal as sig
from typing import TYPE_CHECKING, Callable, cast

from aliceserver.debuggers.catch_events import gate_wants
from aliceserver.debuggers.events import BreakpointChanged, Stopped, StopReason, Written
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import FaultInfo, SignalPolicy
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.inferior_parts import InferiorParts
from aliceserver.debuggers.ptrace.tracee import _NONE, _RESUME, AfterStep, Tracee, _Action
from aliceserver.debuggers.ptrace.traps import PhysicalTrap, TrapTable, judge_trap_hit
from aliceserver.debuggers.ptrace.watch import WatchSlots
from aliceserver.debuggers.ptrace.watchscope import frame_alive, retire
from aliceserver.debuggers.signals import (
    CRASH_SIGNALS,
    fault_description,
    signal_description,
    signal_name,
)

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.patched_breakpoints import JumpPatches
    from aliceserver.foreground import Foreground

log = logging.getLogger(__name__)

TRAP_TRACE = 2
TRAP_BRKPT = 1  # si_code of a single-step's SIGTRAP when the instruction was a system call
TRAP_HWBKPT = 4
# si_code of the SIGTRAP that ends a step at a signal handler's entry (the kernel's
# ptrace_notify after it set up the handler's frame): the signal number itself
HANDLER_STEP = sig.SIGTRAP
SI_KERNEL = 0x80  # si_code of the SIGTRAP an int3 raises


class SignalStops(InferiorParts):
    # Provided by Inferior.
    libc: binding.Libc
    events: EventSource
    traps: TrapTable
    watches: WatchSlots
    memory: binding.ProcessMemory
    catch_signals: frozenset[int]
    wake_sent: bool
    parked: list[Tracee]
    moribund: set[int]
    _collecting: bool
    jump_patches: "JumpPatches | None"
    _policy: Callable[[int], SignalPolicy]
    pid: int
    threads: dict[int, Tracee]
    _plan_trap: Callable[[Tracee, int, Callable[[int], bool]], None]  # (step_plans.StepPlans)
    # A terminal's ^C queued in the stopped program (where it shares the server's process
    # group: the server's stdin is no terminal): its next SIGINT stop is that one, dropped
    stale_sigint: bool = False
    terminal: "Foreground | None"  # set: the program has a process group of its own
    # A `nostop print` signal's line, published: handle() waits (bounded) for the consoles
    # to have written it before the thread runs on, as gdb writes it first
    unwritten: Written | None = None

    def drop_terminal_sigint(self) -> bool:
        """The server got a ^C while the program was stopped: when a SIGINT is pending in
        the process now, it is the terminal's (gdb gives the program a process group of
        its own, so it never gets one): not delivered, its stop not reported. Where ours
        has one too (foreground.py), a SIGINT pending in it is not the terminal's."""
        if self.terminal is not None or not sigint_pending(self.pid):
            return False
        self.stale_sigint = True
        return True

    def _signal(self, t: Tracee, signo: int) -> "Stopped | _Action":
        if signo == sig.SIGINT and self.stale_sigint:
            self.stale_sigint = False
            log.debug("thread %d: the terminal's SIGINT, queued while stopped, dropped", t.tid)
            return _RESUME
        if signo == sig.SIGTRAP:
            handled = self._sigtrap(t)
            if handled is not None:
                return handled
        if signo == sig.SIGSTOP and self.wake_sent:
            self.wake_sent = False
            self.parked.append(t)
            return _NONE
        if signo in CRASH_SIGNALS and self.jump_patches is not None:
            ours = self.jump_patches.fault(cast("Inferior", self), t, signo)  # a trampoline's fault
            if ours is not None:
                return ours
        if signo in self.catch_signals:
            if self._policy(signo).pass_to_program or signo in CRASH_SIGNALS:
                t.pending_signal = signo
            return Stopped(
                StopReason.SIGNAL_CAUGHT, t.tid, signal=signo, signal_name=signal_name(signo),
                description=signal_description(signo), address=int(self.regs(t).rip),
            )  # fmt: skip
        if signo in CRASH_SIGNALS and self._policy(signo).stop:  # else `handle SIGSEGV nostop`: as any signal
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
                name, meaning = signal_name(signo), signal_description(signo)
                said = f"\nProgram received signal {name}, {meaning}.\n"
                self.unwritten = self.events.put_written("console", said)
            if policy.pass_to_program and t.stepping and t.plan is None and t.step_over is None:
                return self._handler_then_step(t)
            return _RESUME
        return Stopped(
            StopReason.SIGNAL, t.tid, signal=signo, signal_name=signal_name(signo),
            description=signal_description(signo), address=int(self.regs(t).rip),
        )  # fmt: skip

    def _handler_then_step(self, t: Tracee) -> "_Action":
        """A signal come during a stepi: its handler runs to a trap at the pc it interrupted
        (at that depth or above), where the stepi is taken again, as gdb's step-resume
        breakpoint (a breakpoint in the handler stops there)."""
        regs = self.regs(t)
        pc, sp = int(regs.rip), int(regs.rsp)
        self._plan_trap(t, pc, lambda hit: hit == t.tid and int(self.regs(self.threads[hit]).rsp) >= sp)
        t.step_after_handler, t.stepping = True, False
        self._cont(t)
        return _NONE

    def _sigtrap(self, t: Tracee) -> "Stopped | _Action | None":
        """A SIGTRAP of ours (trap, step, watchpoint): what to do; None if it is a real signal."""
        if t.soft_stepping and t.step_over is None and not t.stepping:
            # a continue's step (TRAP_BRKPT: out of a system call's event): compare; its
            # resume steps again while soft_stepping holds (_step_again, _cont)
            if self.libc.get_siginfo(t.tid).code in (TRAP_TRACE, TRAP_BRKPT):
                return self._watch_hit(t) or self._landed(t)
        if t.step_over is not None or t.stepping:
            info = self.libc.get_siginfo(t.tid)
            if info.code in (TRAP_TRACE, TRAP_BRKPT, HANDLER_STEP):  # TRAP_BRKPT: the step ran a `syscall`
                return self._step_done(t)
        regs = self.regs(t)
        if self.jump_patches is not None:  # a trampoline's stop or judge trap
            patched = self.jump_patches.trap_hit(cast("Inferior", self), t, regs.rip - 1)
            if patched is not None:
                return patched
        trap = self.traps.by_address.get(regs.rip - 1)
        if trap is not None and trap.inserted:
            regs.rip -= 1
            t.regs_dirty = True
            if self._collecting:
                t.deferred_hit = True  # counted and judged when its turn to report comes
                return _RESUME
            hit = self._breakpoint_hit(t, trap)
            if hit is _RESUME and self.jump_patches is not None:  # a jump patch may take over
                return self.jump_patches.after_trap_hit(cast("Inferior", self), t, trap)
            return hit
        info = self.libc.get_siginfo(t.tid)
        if info.code == SI_KERNEL and regs.rip - 1 in self.moribund:
            regs.rip -= 1  # a hit of a trap removed meanwhile: run the real instruction
            t.regs_dirty = True
            return _RESUME
        if info.code == TRAP_HWBKPT:
            return self._watch_hit(t) or self._landed(t)
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
            # A step (stepi, or a source step) onto a user's breakpoint stops there, as gdb:
            # the hit reported, its condition judged and the hit counted (the int3 did not run).
            # Any step onto the return address a watched frame returned to ends the watch.
            hit = self._breakpoint_hit(t, trap, user_only=True)
            if isinstance(hit, Stopped):
                return hit
        return Stopped(StopReason.STEP, t.tid, address=pc)

    def _breakpoint_hit(
        self, t: Tracee, trap: PhysicalTrap, *, user_only: bool = False, guards_only: bool = False
    ) -> "Stopped | _Action":
        """`user_only`: the user's breakpoints and watch scope guards (a step landed here);
        `guards_only`: the scope guards alone."""
        verdict = judge_trap_hit(trap, t.tid, user_only=user_only, guards_only=guards_only)
        stop_ids, internal_reason, note = verdict.stop_ids, verdict.internal, verdict.note
        finished, left = verdict.finished, verdict.left
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

    def _landed(self, t: Tracee) -> "Stopped | _Action":
        """A thread going on after a data trap, which fires after its instruction: on a
        trap it has not run yet (the end of a step's run, a breakpoint), that is a hit
        now, as gdb's bpstat finds it; resumed, the trap would be stepped over."""
        landed = self._trap_at_pc(t)
        if landed is None:
            return _RESUME
        if self._collecting:
            t.deferred_hit = True  # judged when its turn to report comes
            return _RESUME
        return self._breakpoint_hit(t, landed)

    def _watch_hit(self, t: Tracee) -> Stopped | None:
        fired = self.watches.take_fired(self.libc, t.tid)
        for watch in fired:
            if not frame_alive(cast("Inferior", self), watch, t.tid):
                # Its frame was left without returning (longjmp, an exception) and the
                # memory serves another frame now: the watch ends here, as in gdb.
                retire(cast("Inferior", self), watch, drop_guard=True)
                return Stopped(
                    StopReason.WATCHPOINT_SCOPE, t.tid, breakpoint_ids=(watch.id,),
                    address=int(self.regs(t).rip), watches_left=(watch.id,),
                )  # fmt: skip
            new = watch.read(self.memory.read)
            old = watch.value
            if watch.kind.value == "write" and new == old:
                continue  # written with the same value: gdb does not stop either
            watch.value = new
            watch.hit_count += 1
            stop = Stopped(
                StopReason.WATCHPOINT, t.tid, breakpoint_ids=(watch.id,),
                address=int(self.regs(t).rip), watch_old=old, watch_new=new,
            )  # fmt: skip
            if gate_wants(self.watches.gate, stop):
                return stop
        return None


def sigint_pending(pid: int) -> bool:
    """Whether a SIGINT waits in `pid`'s shared pending set (a signal sent to the process,
    as the terminal's to its process group); False when it is gone."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"ShdPnd:"):
                    return bool(int(line.split()[1], 16) >> (sig.SIGINT - 1) & 1)
    except (OSError, ValueError, IndexError):
        pass
    return False
