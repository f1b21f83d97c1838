"""Source-line stepping (gdb's step, next, finish, until) as a plan the inferior consults.

A plan single-steps its thread (the others stay stopped) while the pc stays inside one
line-table row; a run of instructions that cannot jump runs to its end at once. Out of the
row it decides as gdb's process_event_stop_test: the start of a row of another line stops
if the row is a statement; a row of the line being stepped (a loop's test placed after its
body, the second block of a split line), a row that is no statement, or a landing inside a
row goes on. The frame is known by its CFA, as gdb's frame id, so a push or pop in it is
no call or return. Calls are stepped over with a trap at the return address, guarded by
the stack pointer so a deeper recursion level passing the same address does not count;
then every thread runs, so a callee that waits for another thread cannot deadlock. A plan
ends with a Stopped(STEP), or Stopped(FUNCTION_FINISHED) for finish; any other stop on the
way (a breakpoint, a signal) is reported instead, and the plan is dropped.

`until` without a location is `next` whose range reaches back to the function's entry:
a jump back to a loop's start stays inside it, so the plan only stops at code after the
current line (the loop's exit) or when the frame returns, as gdb's until_next_command.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Callable, Protocol, runtime_checkable

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import StepKind, VariableInfo
from aliceserver.debuggers.source.inlinestops import InlineCall


class LineOracle(Protocol):
    """What a plan needs to know about the program; runtime addresses throughout."""

    def line_row(self, pc: int) -> LineRow | None:
        """The one line-table row holding pc, as gdb's find_pc_line."""
        ...

    def function_range(self, pc: int) -> tuple[int, int, int] | None:
        """(low, high, address after the prologue) of the function with line info at pc."""
        ...

    def call_length(self, pc: int) -> int | None:
        """The length of the call instruction at pc, None if it is no call."""
        ...

    def straight_run_end(self, pc: int, limit: int) -> int | None:
        """Where the instructions from pc that just fall through (no jump, call, return or
        trap among them) end, before `limit`; None if too few to be worth a trap."""
        ...

    def caller(self, tid: int) -> tuple[int, int] | None:
        """(return address, CFA) of the thread's frame 0: where `finish` lands."""
        ...

    def frame_cfa(self, tid: int) -> int | None:
        """The CFA of the thread's frame 0 (rsp reaches it when the frame returns)."""
        ...

    def has_name(self, pc: int) -> bool:
        """Whether a symbol names the code at pc."""
        ...

    def is_trampoline(self, pc: int) -> bool:
        """A PLT stub or the dynamic loader's lazy-binding resolver: code a step into a
        library function passes through on its way to the function."""
        ...

    def is_signal_trampoline(self, pc: int) -> bool:
        """The kernel's return from a signal handler (`<signal handler called>`) is at pc."""
        ...

    def inline_calls(self, pc: int) -> tuple[InlineCall, ...]:
        """The inlined calls whose code holds pc, outermost first (empty: none)."""
        ...

    def show_inline(self, tid: int, hidden: int) -> None:
        """Hide only `hidden` of the inlined calls starting at the thread's stop (gdb hides
        them all, showing their caller at the call site, unless a step went into them)."""
        ...

    def position(self, pc: int) -> tuple[str, int] | None:
        """(file, line) of the line-table row at pc."""
        ...


@dataclass(frozen=True, slots=True)
class LineRow:
    """A line-table row: runtime [start, end), (file, line), and whether it is a statement."""

    start: int
    end: int
    position: tuple[str, int]
    is_stmt: bool


class Control(Protocol):
    """What a plan may do to the process (implemented by the inferior)."""

    def single_step(self, tid: int) -> None: ...

    def run_alone_to(self, tid: int, address: int) -> None:
        """Let `tid` alone run until it reaches `address` (straight-line code)."""
        ...

    def run_to(self, tid: int, address: int, min_sp: int) -> None:
        """Resume every thread until `tid` reaches `address` with rsp >= min_sp."""
        ...

    def run_to_any(self, tid: int, targets: list[tuple[int, int]]) -> None:
        """run_to, stopping at whichever of the (address, min_sp) comes first."""
        ...

    def sp(self, tid: int) -> int: ...


@runtime_checkable
class RangeStepping(Protocol):
    """A Control that can also let a thread step through a range with one stop (a stub's
    vCont;r): a `next` then costs a round trip a line, not one an instruction."""

    def step_range(self, tid: int, start: int, end: int) -> bool:
        """Step `tid` while its pc stays in [start, end); False: not here (single steps)."""
        ...


def _range_stepper(control: object) -> Callable[[int, int, int], bool] | None:
    """The control's step_range where it is a RangeStepping: asked at each move of a
    `next`, where isinstance against the runtime protocol costs 10 us (getattr: 0.1)."""
    found = getattr(control, "step_range", None)
    return found if callable(found) else None


_TRAMPOLINE_BYTES = 16  # x86-64's is 9: `mov $15, %rax; syscall`
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
    # The stepping frame, as gdb's frame id: pushes and pops inside it change rsp, not these.
    frame_cfa: int | None = None
    function: tuple[int, int] | None = None  # [low, high) of its function's code
    calling: bool = False  # the move under way single-steps a call instruction
    phase: Phase = Phase.STEPPING
    finish_value: Callable[[], VariableInfo | None] | None = None
    targets: tuple[int, ...] = ()  # UNTIL: the locations to reach (none: until the next line)
    through_budget: int = _THROUGH_STEPS
    entry_sp: int | None = None  # rsp on entering a callee: its real code runs at this depth
    # Inlined calls active where the step began: `next` steps over any other one it meets.
    inlined: tuple[int, ...] = ()
    hidden: int = 0  # inlined calls the stop the step began from hid (gdb shows the caller)
    # The line being stepped (gdb's current_line): the one shown where the step began, then
    # the line of a row it landed inside. None: none (a return onto a non-statement row).
    from_line: tuple[str, int] | None = None
    leave: tuple[tuple[int, int], ...] = ()  # finish from an inlined call: its code ranges
    # finish from an outer frame: (its return address, its CFA). Inner levels of a recursion
    # pass the same address first; only a return with rsp back at that CFA is this frame's.
    out_of: tuple[int, int] | None = None
    # finish from an inlined call in an outer frame: its place in the inline chain (outermost
    # first) where it is left, once returned there through `out_of` (at once without one)
    leave_depth: int | None = None
    out_of_inlined: bool = False  # a finish out of an inlined call, done as a step
    anywhere: bool = False  # UNTIL: the targets count in any frame (gdb's advance)
    # UNTIL with an outer frame selected (gdb's until and advance go by the selected frame):
    # rsp in that frame, and its return (address, rsp; None: the outermost frame's)
    selected_sp: int | None = None
    selected_return: tuple[int, int] | None = None
    ranged: bool = False  # the move under way steps a range, calls in it included
    stopped: bool = False  # a move has stopped: the stub has answered since the request
    # gdb's skip list: True for a function entered (at its first pc) that `step` goes over.
    skipped: Callable[[int], bool] | None = None
    # The same for an inlined call (pc, its id): `step` goes through its code as `next` does.
    skipped_inline: Callable[[int, int], bool] | None = None
    trampoline: int | None = None  # the signal return trampoline being stepped through
    moved_from: tuple[int, int] | None = None  # (pc, sp) where the last single step began
    # The thread stopped for a signal it gets with the first move: a handler entered then
    # is where the step ends (gdb: a new line); one taken later is run through.
    signal_first: bool = False

    def start(self, pc: int) -> Stopped | None:
        """Begin; a Stopped when there is nothing to do (it is reported at once)."""
        self.frame_sp = self.control.sp(self.tid)
        calls = self.oracle.inline_calls(pc)
        shown = calls[: len(calls) - self.hidden]
        self.inlined = tuple(call.id for call in shown)
        hidden = calls[len(shown) :]
        self.from_line = hidden[0].call_site if hidden else self.oracle.position(pc)
        if self.kind is StepKind.OUT and self.out_of is not None:
            self.phase = Phase.RETURNING
            self.control.run_to(self.tid, *self.out_of)
            return None
        if self.kind is StepKind.OUT and self.leave_depth is not None:
            return self._out_of_inlined(pc)
        if self.kind is StepKind.OUT and not shown:
            return self._finish()
        if self.kind is StepKind.UNTIL and self.targets:
            # The location in this frame or an outer one (in any, for advance), or this
            # frame's return: first wins.
            selected_sp = self.selected_sp
            frame_sp = self.frame_sp if selected_sp is None else selected_sp
            stops = [(address, 0 if self.anywhere else frame_sp) for address in self.targets]
            caller = self.oracle.caller(self.tid) if selected_sp is None else self.selected_return
            if caller is not None:
                stops.append(caller)
            self.phase = Phase.RETURNING
            self.control.run_to_any(self.tid, stops)
            return None
        self._note_frame(pc)
        if self.kind is StepKind.OUT:
            # As gdb: step over the rest of the inlined call, then to a line start.
            self.leave = shown[-1].ranges
            self.kind, self.out_of_inlined = StepKind.OVER, True
            self.inlined = self.inlined[:-1]
            return self._step_from(pc)
        self.line = self._row_range(pc)
        if self.line is None:  # no line info here: run until this function returns
            return self._finish()
        if self.kind is StepKind.UNTIL:
            function = self.oracle.function_range(pc)
            if function is not None and function[0] <= self.line[0]:
                self.line = (function[0], self.line[1])  # backward jumps stay in range
        return self._step_from(pc)

    def _out_of_inlined(self, pc: int) -> Stopped | None:
        """Finish the inlined call at `leave_depth` of the chain at pc, in the function the
        thread is in (returned to it first, or it was there): as from a frame 0 inlined
        call, a step over the rest of it, then to a line start."""
        calls = self.oracle.inline_calls(pc)
        depth, self.leave_depth = self.leave_depth or 0, None
        self.leave = calls[depth].ranges if depth < len(calls) else ()  # () : left by the return
        self.inlined = tuple(call.id for call in calls[:depth])
        self.kind, self.out_of_inlined, self.finish_value = StepKind.OVER, True, None
        self.frame_sp = self.control.sp(self.tid)
        self.from_line = None  # gdb's step info of the caller's frame has no line: "line 0"
        self._note_frame(pc)
        row = self.oracle.line_row(pc)
        if self.stopped and row is not None and not any(low <= pc < high for low, high in self.leave):
            return self._new_row(pc, row, None, False)  # the return left it: this stop counts
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
        self.calling = False
        self.phase = Phase.STEPPING
        self.ranged = False
        if self.stopped and self._range_step(pc):
            # A call in the range, even at pc, is stepped into and _next_move returns from
            # it, as gdb: no read of the code at pc first (a round trip at each move). The
            # first move still reads it: a stub gone under the stopped program is found
            # before anything is resumed (gdb's "Command aborted." after it).
            return None
        call = self.oracle.call_length(pc)
        if call is not None and self.kind in (StepKind.OVER, StepKind.UNTIL):
            self.phase = Phase.RETURNING
            self.control.run_to(self.tid, pc + call, self.control.sp(self.tid))
            return None
        if self.line is not None and self.line[0] <= pc < self.line[1]:
            if self._range_step(pc):
                return None  # a call in the range is stepped into: _next_move returns
            end = self.oracle.straight_run_end(pc, self.line[1])
            if end is not None:  # what single steps would do, with one stop instead of many
                self.control.run_alone_to(self.tid, end)
                return None
        self.calling = call is not None  # step into: the next stop is in the callee
        self.moved_from = (pc, self.control.sp(self.tid))
        self.control.single_step(self.tid)
        return None

    def _range_step(self, pc: int) -> bool:
        """`next` and `until` step the line from `pc` in one move where the control can."""
        if self.kind not in (StepKind.OVER, StepKind.UNTIL) or self.line is None:
            return False
        if not self.line[0] <= pc < self.line[1]:
            return False
        step_range = _range_stepper(self.control)
        self.ranged = step_range is not None and step_range(self.tid, *self.line)
        return self.ranged

    def on_stop(self, stop: Stopped) -> Stopped | None:
        """The plan's thread stopped for a step or its trap: go on, or say what to report."""
        report = self._next_move(stop)
        if report is not None and self.out_of_inlined and report.reason is StopReason.STEP:
            # A finish out of an inlined call, done as a step: reported as a finish (gdb's
            # "function-finished"), without a value, as gdb has none to show.
            return replace(report, reason=StopReason.FUNCTION_FINISHED)
        return report

    def _next_move(self, stop: Stopped) -> Stopped | None:
        pc = stop.address if stop.address is not None else 0
        self.stopped = True
        signal_first, self.signal_first = self.signal_first, False
        if self.kind is StepKind.UNTIL and self.targets:
            reached = "location reached" if pc in self.targets else "the frame returned"
            return Stopped(StopReason.STEP, self.tid, address=pc, description=reached)
        if self.kind is StepKind.OUT and self.leave_depth is not None:  # returned into its function
            return self._out_of_inlined(pc)
        if self.kind is StepKind.OUT:
            return Stopped(
                StopReason.FUNCTION_FINISHED, self.tid, address=pc,
                return_value=self.finish_value() if self.finish_value else None,
            )  # fmt: skip
        if self.phase is Phase.ENTERING:
            return self._in_callee(pc)
        if self.phase is Phase.THROUGH and self.control.sp(self.tid) < self.frame_sp:
            return self._entered(pc)
        if self.phase is Phase.RETURNING and self._returned(self.control.sp(self.tid)):
            # The function we were stepping in (one without line info) returned: go on
            # in the caller as from any other stop in a new frame.
            current = self.from_line
            self.frame_sp = self.control.sp(self.tid)
            self._returned_to(pc)
            row = self.oracle.line_row(pc)
            if row is None:
                return Stopped(StopReason.STEP, self.tid, address=pc)
            return self._new_row(pc, row, current, True)
        sp = self.control.sp(self.tid)
        called, self.calling = self.calling, False
        if self._deeper(pc, sp, called):
            if not called and self._in_handler():
                return Stopped(StopReason.STEP, self.tid, address=pc) if signal_first else self._over_handler()
            if self.ranged and self.kind in (StepKind.OVER, StepKind.UNTIL):
                return self._run_to_return(pc)
            return self._entered(pc)
        returned = self._returned(sp)
        if not returned and self.line is not None and self.line[0] <= pc < self.line[1]:
            return self._step_from(pc)
        if not returned and any(low <= pc < high for low, high in self.leave):
            return self._step_from(pc)  # still in the inlined call being finished
        if self._through_trampoline(pc):
            # gdb's "stepped into signal trampoline": a handler's return steps on through
            # the sigreturn, back into the code the signal interrupted.
            self.control.single_step(self.tid)
            return None
        current = self.from_line  # gdb's current_line: what a row's line is compared with
        if returned:  # returned from the stepping frame into its caller
            self.frame_sp = sp
            self._returned_to(pc)
        row = self.oracle.line_row(pc)
        if row is None:  # code without line info (e.g. after main returned)
            # gdb stops there, but a `step` leaves code no symbol names for its caller.
            if self.kind is StepKind.INTO and not self.oracle.has_name(pc):
                return self._finish()
            return Stopped(StopReason.STEP, self.tid, address=pc)
        calls = self.oracle.inline_calls(pc)
        # gdb's "calls" to inlined functions are those inside the frame the step began in;
        # from one inlined call into another one's code only the line tells (a sibling
        # call on the line being stepped is gone through).
        within = self.inlined == tuple(call.id for call in calls[: len(self.inlined)])
        entered = [call for call in calls if call.id not in self.inlined] if within else []
        if entered and entered[0].starts_here:
            # At an inlined call's first instruction, as gdb: a call on another line stops
            # here (shown at its call site); on the same line, `next` goes over it and
            # `step` goes in.
            if entered[0].call_site != self.from_line:
                return Stopped(StopReason.STEP, self.tid, address=pc)
            if self.kind is StepKind.INTO and not self._inline_skipped(pc, entered):
                self.oracle.show_inline(self.tid, _starting(self.oracle.inline_calls(pc)) - 1)
                return Stopped(StopReason.STEP, self.tid, address=pc)
        if entered and (self.kind in (StepKind.OVER, StepKind.UNTIL) or self._inline_skipped(pc, entered)):
            self.line = (row.start, row.end)  # in an inlined call begun after the step: over it
            return self._step_from(pc)
        return self._new_row(pc, row, current, returned)

    def _in_handler(self) -> bool:
        """The step went into a signal handler (the signal delivered with it): its caller
        is the signal trampoline."""
        caller = self.oracle.caller(self.tid)
        return caller is not None and self.oracle.is_signal_trampoline(caller[0])

    def _over_handler(self) -> Stopped | None:
        """As gdb's step-resume breakpoint at the interrupted pc: the handler runs (a
        breakpoint in it stops there), then the step goes on from where it was."""
        if self.moved_from is None:
            return Stopped(StopReason.STEP, self.tid)
        self.phase = Phase.RETURNING
        self.control.run_to(self.tid, *self.moved_from)
        return None

    def _through_trampoline(self, pc: int) -> bool:
        """At the signal return trampoline's start, or a few bytes on (its syscall); never
        in the function being stepped (asked only when the pc leaves it: a read each)."""
        start = self.trampoline
        if start is not None and 0 < pc - start < _TRAMPOLINE_BYTES:
            return True
        inside = self.function is not None and self.function[0] <= pc < self.function[1]
        self.trampoline = pc if not inside and self.oracle.is_signal_trampoline(pc) else None
        return self.trampoline is not None

    def _inline_skipped(self, pc: int, entered: list[InlineCall]) -> bool:
        """A `step` in an inlined call the skip list names (gdb's inline_frame_is_marked_for_skip)."""
        skipped = self.skipped_inline
        return self.kind is StepKind.INTO and skipped is not None and any(skipped(pc, call.id) for call in entered)

    def _new_row(
        self, pc: int, row: LineRow, current: tuple[str, int] | None, returned: bool
    ) -> Stopped | None:
        """Out of the range being stepped, as gdb's process_event_stop_test: the start of a
        row of another line stops if it is a statement; a row of the line being stepped (a
        loop's test after its body, the second block of a split line) or a landing inside
        a row goes on, and a landing inside a row makes its line the one being stepped."""
        self.line = (row.start, row.end)
        if row.start == pc and row.position != current:
            if row.is_stmt:
                return Stopped(StopReason.STEP, self.tid, address=pc)
            # Not a statement: go through it, still looking for a line other than the
            # current one (none after a return: gdb then forgets it, "line 0").
            self.from_line = None if returned else current
        else:
            self.from_line = row.position
        return self._step_from(pc)

    def _row_range(self, pc: int) -> tuple[int, int] | None:
        # One row, as gdb: rows of the same line are not merged, since an inlined call may
        # begin at a row boundary inside the line and a step must notice it.
        row = self.oracle.line_row(pc)
        return None if row is None else (row.start, row.end)

    def _in_callee(self, pc: int) -> Stopped:
        """Stepped into a function: as gdb, inlined calls its code starts with stay hidden
        (the stop shows their call site; another `step` goes into them)."""
        return Stopped(StopReason.STEP, self.tid, address=pc)

    def _returned_to(self, pc: int) -> None:
        """Back in the caller: its inlined calls around pc are the ones the step is in."""
        self.inlined = tuple(call.id for call in self.oracle.inline_calls(pc))
        self.from_line = self.oracle.position(pc)
        self.leave = ()
        self._note_frame(pc)

    def _note_frame(self, pc: int) -> None:
        """Remember the frame the step is in now (see _deeper and _returned)."""
        self.frame_cfa = self.oracle.frame_cfa(self.tid)
        function = self.oracle.function_range(pc)
        self.function = (function[0], function[1]) if function is not None else None

    def _deeper(self, pc: int, sp: int, called: bool) -> bool:
        """In a callee: a call was stepped into, or other code runs with a lower sp (a
        signal handler). A lower sp in the frame's own function is a push, not a call."""
        if called:
            return True
        if sp >= self.frame_sp:
            return False
        if self.function is None or not self.function[0] <= pc < self.function[1]:
            return True
        return self.ranged and pc == self.function[0]  # a range step into a recursive call

    def _returned(self, sp: int) -> bool:
        """The stepping frame returned: rsp is back above its return address."""
        return sp >= self.frame_cfa if self.frame_cfa is not None else sp > self.frame_sp

    def _run_to_return(self, pc: int) -> Stopped | None:
        """Run to the return of the call the thread is in, and step on from there, as `next`
        goes over calls: a call a range step went into (gdb's step into subroutine), or a
        function without line info entered."""
        caller = self.oracle.caller(self.tid)
        if caller is None:
            return Stopped(StopReason.STEP, self.tid, address=pc)
        self.phase = Phase.RETURNING
        self.control.run_to(self.tid, caller[0], caller[1])
        return None

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
            return self._run_to_return(pc)
        if self.skipped is not None and self.skipped(pc):  # as gdb's step into a skipped one
            return self._run_to_return(pc)
        after_prologue = function[2]
        if pc == after_prologue:
            return self._in_callee(pc)
        self.phase = Phase.ENTERING
        self.control.run_to(self.tid, after_prologue, 0)
        return None


def _starting(calls: tuple[InlineCall, ...]) -> int:
    """How many of the innermost inlined calls start at the pc."""
    count = 0
    for call in reversed(calls):
        if not call.starts_here:
            break
        count += 1
    return count
