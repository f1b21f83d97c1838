"""Source-line stepping (gdb's step, next, finish, until), written once over the process
interface: the plan (stepping.py) with its line oracle, started through the execution
control a live backend offers (StepControl), and what `finish` shows returned."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Callable, Protocol

from aliceserver.debuggers.events import Continued, Stopped, StopReason
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import Registers, StepKind, VariableInfo, VectorRegisters
from aliceserver.debuggers.source.dollars import SessionDollars, recorded
from aliceserver.debuggers.source.frames import Frames
from aliceserver.debuggers.source.locations import Locations
from aliceserver.debuggers.source.retvalue import return_bytes, return_value_of
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.debuggers.source.tailframes import TAIL_CALL
from aliceserver.debuggers.source.variables import VariableStore
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, ImplicitLoc, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.errors import ProtocolError, TargetError, Unsupported

if TYPE_CHECKING:
    from aliceserver.debuggers.source.lineoracle import LineOracle
    from aliceserver.debuggers.source.stepping import Control, StepPlan
    from aliceserver.debuggers.stepskips import StepSkips
    from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame

log = logging.getLogger(__name__)


class StepControl(Protocol):
    """The execution control stepping needs of a live backend (ptrace's inferior today)."""

    def plan_start(self, thread_id: int) -> tuple[Control, int]:
        """What a plan for the stopped thread drives, and the thread's pc (refused while
        the program runs)."""
        ...

    def run_plan(self, plan: StepPlan, pc: int, *, alone: bool) -> None:
        """Resume under the plan; `alone`: only its thread runs (scheduler-locking step)."""
        ...

    def step_instruction(self, thread_id: int) -> None: ...

    def take_call_return(self, thread_id: int) -> tuple[Registers, VectorRegisters] | None:
        """The registers a call left stopped returned with on the thread, taken once."""
        ...


class Stepping:
    steps_alone = False  # gdb's scheduler-locking step (or on): see set_scheduler_locking
    skips: StepSkips | None = None  # the front end's skip list (gdb's skip): see set_step_skips

    def __init__(
        self, engine: EngineServices, frames: Frames, locations: Locations, values: VariableStore,
        dollars: SessionDollars, stop_cache: StopCache, disassembler: Disassembler, events: EventSource,
        control: StepControl,
    ) -> None:  # fmt: skip
        self._engine = engine
        self._frames = frames
        self._locations = locations
        self._values = values
        self._dollars = dollars
        self._stop_cache = stop_cache
        self._disassembler = disassembler
        self._events = events
        self._control = control

    def step(self, thread_id: int, kind: StepKind, level: int = 0) -> None:
        if kind is StepKind.INSTRUCTION:
            self._control.step_instruction(thread_id)
            return
        def go() -> None:
            control, pc = self._control.plan_start(thread_id)
            hidden = self._frames.hidden_inline(thread_id)
            if kind is StepKind.INTO and hidden and not self._skipped_hidden(thread_id, pc, hidden):
                # As gdb: step at an inlined call's first instruction goes into it, no run.
                self._engine.forget_stop_state()
                self._frames.show_inline(thread_id, hidden - 1)
                self._events.put(Continued(thread_id, all_threads=True))
                self._events.put(Stopped(StopReason.STEP, thread_id, address=pc))
                return
            from aliceserver.debuggers.source.stepping import StepPlan  # (a first stop takes none)

            plan = StepPlan(kind, thread_id, self._oracle(thread_id), control, hidden=hidden)
            if kind is StepKind.INTO and self.skips is not None:
                plan.skipped, plan.skipped_inline = self._skipped, self._skipped_inline
            if kind is StepKind.OUT:
                plan.finish_value = self._return_value_reader(thread_id, level)
                if level > 0:
                    plan.out_of, plan.leave_depth = self._frame_exit(thread_id, level + hidden)
            self._start(plan, pc)

        self._engine.run_on_engine(go)

    def run_until(self, thread_id: int, location: str, anywhere: bool = False, level: int = 0) -> None:
        def go() -> None:
            control, pc = self._control.plan_start(thread_id)
            places = self._locations.resolve(location)
            if not places:
                raise ProtocolError(f'No location "{location}" in the program.')
            from aliceserver.debuggers.source.stepping import StepPlan

            plan = StepPlan(StepKind.UNTIL, thread_id, self._oracle(thread_id), control)
            plan.targets = tuple(place.address for place in places)
            plan.anywhere = anywhere
            if level > 0:
                plan.selected_sp, plan.selected_return = self._selected_frame(
                    thread_id, level + self._frames.hidden_inline(thread_id))
            self._start(plan, pc)

        self._engine.run_on_engine(go)

    def _skipped(self, pc: int) -> bool:
        """Whether the skip list names the function entered at pc: by its name, or by the
        file of its first line (gdb's find_pc_line at stop_func_start)."""
        skips = self.skips
        if skips is None:
            return False
        symbols = self._engine.source_symbols
        function = symbols.function_range(pc)
        place = symbols.position(function[0] if function is not None else pc)
        files = () if place is None else tuple(dict.fromkeys((place.symtab or place.path, place.path)))
        from aliceserver.debuggers.stepskips import SkipQuery

        return skips(SkipQuery(symbols.function_name(pc), files))

    def _skipped_hidden(self, thread_id: int, pc: int, hidden: int) -> bool:
        """At inlined calls' first instruction: whether the one a step would show is skipped."""
        if self.skips is None:
            return False
        calls = self._frames.inline_calls(pc)
        return len(calls) >= hidden and self._skipped_inline(pc, calls[len(calls) - hidden].id)

    def _skipped_inline(self, pc: int, call: int) -> bool:
        """Whether the skip list names the inlined call `call` (its DIE) around pc, by its
        function's name or the file of the line at pc."""
        from aliceserver.debuggers.symbols.dwarf.dies import die_name  # only with a skip list
        from aliceserver.debuggers.symbols.dwarf.physname import c_function_name

        skips = self.skips
        symbols = self._engine.source_symbols
        die = next((die for die in symbols.inline_chain_at(pc) if die.offset == call), None)
        if skips is None or die is None:
            return False
        place = symbols.position(pc)
        files = () if place is None else tuple(dict.fromkeys((place.symtab or place.path, place.path)))
        from aliceserver.debuggers.stepskips import SkipQuery

        return skips(SkipQuery(c_function_name(die) or die_name(die), files))

    def _oracle(self, thread_id: int) -> LineOracle:
        from aliceserver.debuggers.source.lineoracle import LineOracle  # a step's, on its first

        return LineOracle(self._engine, self._frames, self._stop_cache, self._disassembler, thread_id)

    def _start(self, plan: StepPlan, pc: int) -> None:
        self._engine.forget_stop_state()
        self._events.put(Continued(plan.tid, all_threads=not self.steps_alone))
        self._control.run_plan(plan, pc, alone=self.steps_alone)


    def _frame_exit(self, thread_id: int, level: int) -> tuple[tuple[int, int] | None, int | None]:
        """How finishing the function at unwound level `level` (inlined calls counted) goes:
        (return address, CFA) of the frame to return from first (None: none), and for an
        inlined call, its place in the inline chain there (outermost first) to step out of
        next, as gdb steps out of an inlined call in its caller's frame (None: a function's
        return is the finish)."""
        frames = self._frames.with_tail_calls(thread_id, level + 2)
        physical, out = self._frames.physical_level(frames, level)
        if frames[physical].method == TAIL_CALL:  # returns where the chain's caller called
            return self._return_of(frames, physical), None
        chain = len(self._engine.source_symbols.inline_chain(frames[physical]))
        if out == chain:  # the function itself
            return self._return_of(frames, physical), None
        depth = chain - 1 - out
        if physical == 0:  # inlined into the innermost function: no return first
            return None, depth
        if frames[physical - 1].method == TAIL_CALL:
            raise Unsupported("finish out of an inlined call that a tail call left")
        return self._return_of(frames, physical - 1), depth

    def _selected_frame(self, thread_id: int, level: int) -> tuple[int | None, tuple[int, int] | None]:
        """For `until`/`advance` from unwound level `level`: rsp in the function it is (an
        inlined call: the one it is in, gdb's stack frame id), as the CFA of the nearest
        real frame inside unwinds it (None: not known, frame 0's then), and that function's
        return (address, rsp; None for the outermost frame)."""
        frames = self._frames.with_tail_calls(thread_id, level + 2)
        physical, _out = self._frames.physical_level(frames, level)
        inner = (frame.cfa for frame in reversed(frames[:physical]) if frame.method != TAIL_CALL and frame.cfa)
        sp = next(inner, None)
        try:
            returned = self._return_of(frames, physical)
        except ProtocolError:  # the outermost frame: no return to stop at
            returned = None
        return sp, returned

    @staticmethod
    def _return_of(frames: list[UnwoundFrame], physical: int) -> tuple[int, int]:
        """(return address, CFA) of the physical frame `physical`: where its return lands,
        and the rsp it leaves."""
        cfa = frames[physical].cfa
        caller = physical + 1
        while caller < len(frames) and frames[caller].method == TAIL_CALL:  # gdb's skip_tailcall_frames
            caller += 1
        if caller >= len(frames) or cfa is None:
            raise ProtocolError('"finish" not meaningful in the outermost frame.')
        return frames[caller].pc, cfa

    def _return_value_reader(self, thread_id: int, level: int = 0) -> Callable[[], VariableInfo | None]:
        """Reads, once the function at `level` has returned, what it returned (by its DWARF type)."""
        try:
            view, symbols, lookup_pc = self._frames.frame_view(thread_id, level)
            if view.frame.method == TAIL_CALL:  # gdb's find_pc_function at the frame's pc: past
                lookup_pc = view.frame.pc  # a function ending in its tail call, often none
            # The shown frame's function (an inlined call a stop hides is not it); out of an
            # inlined call gdb shows no value: "no way to locate it".
            scope = symbols.frame_scope(view, lookup_pc=lookup_pc, inline_outer=view.inline_outer) if symbols else None
            inlined = scope is not None and scope.function is not None and scope.function.tag == "DW_TAG_inlined_subroutine"
            function = scope.subprogram if scope is not None and not inlined else None
            name = scope.function_name if scope is not None else None
            returns = symbols.function_type(function).return_type if symbols and function else None
        except (EvaluationError, TargetError) as error:
            log.debug("no return type: %s", error)
            returns = None
        if returns is None or symbols is None:
            return lambda: None

        self._control.take_call_return(thread_id)  # from an earlier call's return

        def read() -> VariableInfo | None:
            after, _, _ = self._frames.frame_view(thread_id, 0, innermost_only=True)  # registers only
            # Returned into a call's dummy frame: its registers as the function left them.
            regs, vectors = self._control.take_call_return(thread_id) or (None, None)
            arch = after.frame.arch
            if arch.name != "i386:x86-64":  # no x87/SSE: its ABI's registers by name and number
                floats = self._engine.target().float_registers(thread_id)
                data, address = return_value_of(returns, arch, after.frame.registers, floats)
            else:
                if vectors is None:
                    vectors = self._engine.target().vector_registers(thread_id)
                data, address = return_bytes(returns, regs.values if regs else after.frame.registers, vectors)
            if data is not None:
                value = Value(returns, ImplicitLoc(data), after)
            elif address is not None:
                value = Value(returns, MemoryLoc(address), after)
            else:
                return None
            info = self._values.describe(f"Value returned by {name or 'the function'}", value, top=True)
            return recorded(info, value, self._dollars.values(thread_id))  # gdb's finish: $N

        return read
