"""Source-line step plans (source/stepping.py) as an Inferior runs them (a mixin of
inferior.py): starting one, feeding it each stop of its thread until it says where to
stop, and the temporary internal traps it runs to."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import StepKind
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.inferior_parts import InferiorParts
from aliceserver.debuggers.ptrace.tracee import AfterStep, Run, Tracee
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint, PhysicalTrap, TrapTable

if TYPE_CHECKING:
    from aliceserver.debuggers.source.stepping import StepPlan
    from aliceserver.foreground import Foreground

log = logging.getLogger(__name__)


class StepPlans(InferiorParts):
    # Provided by Inferior.
    traps: TrapTable
    threads: dict[int, Tracee]
    run: Run
    terminal: "Foreground | None"
    terminal_group: int

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def thread(self, tid: int) -> Tracee:
            raise NotImplementedError

        def _start_step_over(self, t: Tracee, trap: PhysicalTrap, then: AfterStep) -> None:
            raise NotImplementedError

        def _report(self, stop: Stopped) -> None:
            raise NotImplementedError

    def start_plan(self, plan: StepPlan, pc: int) -> None:
        t = self.thread(plan.tid)
        t.plan = plan
        plan.signal_first = bool(t.pending_signal)
        self.run = Run.RUNNING
        if self.terminal is not None:
            self.terminal.give(self.terminal_group)
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
