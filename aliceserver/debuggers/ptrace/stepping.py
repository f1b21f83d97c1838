"""Source-line stepping (gdb's step, next, finish) as a plan the inferior consults.

A plan single-steps its thread (the others stay stopped) while the pc stays inside the
line's address block. Calls are stepped over with a trap at the return address, guarded by
the stack pointer so a deeper recursion level passing the same address does not count;
then every thread runs, so a callee that waits for another thread cannot deadlock. A plan
ends with a Stopped(STEP) at the start of a new line, or Stopped(FUNCTION_FINISHED) for
finish; any other stop on the way (a breakpoint, a signal) is reported instead, and the
plan is dropped.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable, Protocol

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import StepKind, VariableInfo


class LineOracle(Protocol):
    """What a plan needs to know about the program; runtime addresses throughout."""

    def line_range(self, pc: int) -> tuple[int, int] | None: ...

    def is_statement_start(self, pc: int) -> bool: ...

    def function_range(self, pc: int) -> tuple[int, int, int] | None:
        """(low, high, address after the prologue) of the function with line info at pc."""
        ...

    def call_length(self, pc: int) -> int | None:
        """The length of the call instruction at pc, None if it is no call."""
        ...

    def caller(self, tid: int) -> tuple[int, int] | None:
        """(return address, CFA) of the thread's frame 0: where `finish` lands."""
        ...

    def is_trampoline(self, pc: int) -> bool:
        """A PLT stub or the dynamic loader's lazy-binding resolver: code a step into a
        library function passes through on its way to the function."""
        ...


class Control(Protocol):
    """What a plan may do to the process (implemented by the inferior)."""

    def single_step(self, tid: int) -> None: ...

    def run_to(self, tid: int, address: int, min_sp: int) -> None:
        """Resume every thread until `tid` reaches `address` with rsp >= min_sp."""
        ...

    def run_to_any(self, tid: int, targets: list[tuple[int, int]]) -> None:
        """run_to, stopping at whichever of the (address, min_sp) comes first."""
        ...

    def sp(self, tid: int) -> int: ...


_THROUGH_STEPS = 20_000  # the first call through a PLT runs the resolver: a few thousand


class Phase(enum.Enum):
    STEPPING = "stepping"  # single-stepping inside a line block
    RETURNING = "returning"  # running to a return address (a call stepped over, or finish)
    ENTERING = "entering"  # running to a callee's first line (step into)
    THROUGH = "through"  # single-stepping through a PLT stub and the resolver (step into)


@dataclass(slots=True)
class StepPlan:
    kind: StepKind
    tid: int
    oracle: LineOracle
    control: Control
    line: tuple[int, int] | None = None
    frame_sp: int = 0  # rsp when the step began: deeper frames have a lower one
    phase: Phase = Phase.STEPPING
    finish_value: Callable[[], VariableInfo | None] | None = None
    targets: tuple[int, ...] = ()  # UNTIL: the locations to reach
    through_budget: int = _THROUGH_STEPS
    entry_sp: int | None = None  # rsp on entering a callee: its real code runs at this depth

    def start(self, pc: int) -> Stopped | None:
        """Begin; a Stopped when there is nothing to do (it is reported at once)."""
        self.frame_sp = self.control.sp(self.tid)
        if self.kind is StepKind.OUT:
            return self._finish()
        if self.kind is StepKind.UNTIL:
            # The location in this frame or an outer one, or this frame's return: first wins.
            stops = [(address, self.frame_sp) for address in self.targets]
            caller = self.oracle.caller(self.tid)
            if caller is not None:
                stops.append(caller)
            self.phase = Phase.RETURNING
            self.control.run_to_any(self.tid, stops)
            return None
        self.line = self.oracle.line_range(pc)
        if self.line is None:  # no line info here: run until this function returns
            return self._finish()
        return self._step_from(pc)

    def _finish(self) -> Stopped | None:
        caller = self.oracle.caller(self.tid)
        if caller is None:
            return Stopped(StopReason.STEP, self.tid, description="no caller to return to")
        address, cfa = caller
        self.phase = Phase.RETURNING
        self.control.run_to(self.tid, address, cfa)
        return None

    def _step_from(self, pc: int) -> Stopped | None:
        """Issue the next move from `pc` inside the current line."""
        self.entry_sp = None
        call = self.oracle.call_length(pc)
        if call is not None and self.kind is StepKind.OVER:
            self.phase = Phase.RETURNING
            self.control.run_to(self.tid, pc + call, self.control.sp(self.tid))
            return None
        self.phase = Phase.STEPPING
        self.control.single_step(self.tid)
        return None

    def on_stop(self, stop: Stopped) -> Stopped | None:
        """The plan's thread stopped for a step or its trap: go on, or say what to report."""
        pc = stop.address if stop.address is not None else 0
        if self.kind is StepKind.UNTIL:
            reached = "location reached" if pc in self.targets else "the frame returned"
            return Stopped(StopReason.STEP, self.tid, address=pc, description=reached)
        if self.kind is StepKind.OUT:
            return Stopped(
                StopReason.FUNCTION_FINISHED, self.tid, address=pc,
                return_value=self.finish_value() if self.finish_value else None,
            )  # fmt: skip
        if self.phase is Phase.ENTERING:
            return Stopped(StopReason.STEP, self.tid, address=pc)
        if self.phase is Phase.THROUGH and self.control.sp(self.tid) < self.frame_sp:
            return self._entered(pc)
        if self.phase is Phase.RETURNING and self.control.sp(self.tid) > self.frame_sp:
            # The function we were stepping in returned (finish of a no-line function, or
            # the step ran off its end): continue in the caller up to a line start.
            self.frame_sp = self.control.sp(self.tid)
            self.line = self.oracle.line_range(pc)
            if self.line is None or self.oracle.is_statement_start(pc):
                return Stopped(StopReason.STEP, self.tid, address=pc)
            return self._step_from(pc)
        sp = self.control.sp(self.tid)
        if self.line is not None and self.line[0] <= pc < self.line[1] and sp >= self.frame_sp:
            return self._step_from(pc)
        if sp < self.frame_sp:  # we are in a callee (step into, or a jump into another function)
            return self._entered(pc)
        if sp > self.frame_sp:  # returned from the stepping frame into its caller
            self.frame_sp = sp
        line = self.oracle.line_range(pc)
        if line is None:
            return self._finish()  # into code without line info (e.g. after main returned)
        if self.oracle.is_statement_start(pc):
            return Stopped(StopReason.STEP, self.tid, address=pc)
        self.line = line  # landed mid-line: finish that line first, as gdb does
        return self._step_from(pc)

    def _entered(self, pc: int) -> Stopped | None:
        sp = self.control.sp(self.tid)
        if self.entry_sp is None:
            self.entry_sp = sp
        # Deeper than the entry is code the trampoline calls (the lazy-binding resolver, an
        # IFUNC resolver): not the target, even with line info; nor is the loader itself.
        deeper = sp < self.entry_sp
        if (deeper or self.oracle.is_trampoline(pc)) and self.through_budget > 0:
            # On the way to a library function: follow it, it may have line info (gdb does).
            self.through_budget -= 1
            self.phase = Phase.THROUGH
            self.control.single_step(self.tid)
            return None
        function = self.oracle.function_range(pc)
        if function is None:  # a function without line info: step over it
            caller = self.oracle.caller(self.tid)
            if caller is None:
                return Stopped(StopReason.STEP, self.tid, address=pc)
            self.phase = Phase.RETURNING
            self.control.run_to(self.tid, caller[0], caller[1])
            return None
        after_prologue = function[2]
        if pc == after_prologue:
            return Stopped(StopReason.STEP, self.tid, address=pc)
        self.phase = Phase.ENTERING
        self.control.run_to(self.tid, after_prologue, 0)
        return None
