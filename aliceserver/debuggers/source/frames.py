"""A stopped thread's frames, written once over the process interface: the unwinding
(kept until the program moves), the frames shown (inlined calls included, a call's dummy
frame recognised), each frame as a DWARF context (FrameView), its registers and its
variables."""

from __future__ import annotations

import logging
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Protocol

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.model import (
    DynamicTypes,
    FrameDetails,
    StackFrame,
    VariableInfo,
    VariableScope,
)
from aliceserver.debuggers.restamp import restamped
from aliceserver.debuggers.source.askedstacks import AskedStacks
from aliceserver.debuggers.source.floatregs import thread_float_registers
from aliceserver.debuggers.source.inlinestops import InlineCall, hidden_calls
from aliceserver.debuggers.source.keptarguments import KeptVariables, RecordingReader
from aliceserver.debuggers.source.keptframes import KeptUnwindings
from aliceserver.debuggers.source.keptsteps import SteppedFrames
from aliceserver.debuggers.source.samevalues import same_value_frame
from aliceserver.debuggers.source.scopevalues import entry_values, same_as_entry, scope_values
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.source.shownlevels import ShownLevels
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols, lookup_pc
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.debuggers.source.tailframes import TAIL_CALL, TailCallLinks, TailCallStack
from aliceserver.debuggers.source.twinthreads import Twin, TwinThreads, stack_areas
from aliceserver.debuggers.source.variables import (
    FloatRegisters,
    FrameView,
    VariableStore,
    register_variables,
)
from aliceserver.debuggers.symbols.dwarf.callsites import CallerFrame
from aliceserver.debuggers.symbols.dwarf.dies import attr_value, language_name
from aliceserver.debuggers.symbols.dwarf.readregisters import ReadRegisters
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.unwind import (
    StackUnwinder,
    UnwindLookups,
    UnwoundFrame,
    frame_base,
    saved_register_slots,
    stack_block,
)
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.debuggers.target import write_general_register
from aliceserver.errors import AliceError, TargetError

log = logging.getLogger(__name__)

_FIRST_FRAMES = 32  # most questions are about the top of the stack: unwind that much first
MAX_FRAMES = 4096
_MAX_LOOKUPS = 65536  # pcs whose CFI row and symbol are kept across stops
# A front end asking for variables without entry values (DAP) shows a frame's locals and
# arguments side by side: the other scope is made in the same handoff to the engine.
_SHOWN_BESIDE = {VariableScope.LOCALS: VariableScope.ARGUMENTS, VariableScope.ARGUMENTS: VariableScope.LOCALS}
DUMMY = "dummy"  # UnwoundFrame.method of the frame of a call into the program left stopped
DUMMY_NAME = "<function called from gdb>"

Unwind = Callable[[Mapping[str, int], int], list[UnwoundFrame]]  # (registers, limit) -> frames


class CallFrames(Protocol):
    """Calls into the program left stopped (gdb's dummy frames), kept by the backend that
    made them: their frames' callers are the state saved before each call."""

    def pending(self) -> bool:
        """Whether any call is left stopped (most often none: nothing to look for)."""
        ...

    def through_calls(self, frames: list[UnwoundFrame], pid: int, unwind: Unwind, limit: int) -> list[UnwoundFrame]: ...


def register_values(registers: Mapping[str, int]) -> Mapping[str, int]:
    """A copy of a thread's registers (the live backend's snapshot reads them at once), or
    where each costs a read (over a stub: `g` for those the stop reply did not carry),
    a view that reads them when asked and records which (keptframes.py)."""
    if getattr(registers, "on_demand", False):
        return ReadRegisters(registers)
    snapshot: Callable[[], dict[str, int]] | None = getattr(registers, "snapshot", None)
    return snapshot() if snapshot is not None else dict(registers)


def dummy_stack_frame(frame: UnwoundFrame) -> StackFrame:
    return StackFrame(
        level=frame.level, pc=frame.pc, cfa=frame.cfa, function=DUMMY_NAME, source=None, module=None,
        symbol=frame.symbol, called_from_debugger=True,
    )  # fmt: skip


class Frames:
    def __init__(
        self, engine: EngineServices, values: VariableStore, stop_cache: StopCache, calls: CallFrames
    ) -> None:
        self._engine = engine
        self._values = values
        self._stop_cache = stop_cache
        self._calls = calls
        self._read_visible = RecordingReader(engine.read_visible)  # recorded for _kept_variables
        self._write_visible = engine.write_visible
        self._frames: dict[int, list[UnwoundFrame]] = {}  # a stopped thread's, until it moves
        self._unwinders: dict[int, StackUnwinder] = {}  # those of _frames that can go deeper
        self._lookups = UnwindLookups()  # shared by the threads' unwindings, kept across stops
        self._lookups_of: tuple[object, int] | None = None  # the module lists they were made with
        self._arch_of: tuple[UnwindLookups, Architecture] | None = None  # the program's, as the lookups
        # (thread, callee level, callee pc, its float registers' id) -> the caller's frame
        self._callers: dict[tuple[int, int, int, int], CallerFrame | None] = {}
        self._entry_answers: tuple[int, dict[Hashable, Any]] = (-1, {})  # (stop cache's writes, entrychain's)
        self._levels = ShownLevels(lambda frame: 0 if frame.method == TAIL_CALL else len(self._source.inline_chain(frame)))
        self._hidden: dict[int, int] = {}  # thread -> inlined calls its stop hides (hidden_inline)
        self.breakpoint_symbols: Callable[[tuple[int, ...], int], list[str | None]] = lambda ids, pc: [None]
        self._tail_stacks: dict[int, TailCallStack] = {}  # thread -> its frames with tail calls
        self._tail_stacks_before: dict[int, TailCallStack] = {}  # the last stop's, for kept unwindings
        self._tail_links = TailCallLinks()  # the chains found at call sites, kept across stops
        self._past_main = False  # gdb's `backtrace past-main` (set_past_main)
        self._variable_threads: set[int] = set()  # those whose variables were shown at this stop
        self._kept = KeptUnwindings()  # unwindings kept across stops while nothing they read moved
        self._kept_variables = KeptVariables(self._read_visible)  # frame 0's, on a kept unwinding
        self._twins = TwinThreads(lambda: stack_areas(self._engine.target()))  # or made for a thread parked alike
        self._writes_at_stop = 0  # the stop cache's writes when the program last stopped
        self._stepped = SteppedFrames()  # or in a frame kept across steps, over a stub
        self.asked = AskedStacks()  # stack_trace's, made ahead at the next stop

    @property
    def _source(self) -> SourceSymbols:
        return self._engine.source_symbols

    def forget(self) -> None:
        """The program moves: every thread's frames are unwound anew."""
        self._frames.clear()
        self._unwinders.clear()
        self._keep_lookups()
        self._kept.next_stop()
        self._kept_variables.next_stop()
        self._twins.next_stop()
        self._writes_at_stop = self._stop_cache.writes
        self.asked.next_stop()
        self._callers.clear()
        self._levels.forget()
        self._hidden.clear()
        self._tail_stacks_before, self._tail_stacks = self._tail_stacks, {}
        self._variable_threads.clear()

    def _keep_lookups(self) -> None:
        """The pcs' CFI rows and symbols outlive the stop (a loop's next stop unwinds through
        the same pcs) while no module was mapped, moved or dropped."""
        symbols = self._source.symbols
        known = self._lookups_of
        stale = known is None or known[0] is not symbols or known[1] != symbols.generation
        if stale or len(self._lookups.rows) > _MAX_LOOKUPS:
            self._lookups = UnwindLookups()
            self._lookups_of = (symbols, symbols.generation)

    def forget_thread(self, thread_id: int, *, pc_moved: bool = False) -> None:
        """The thread's registers changed (a new pc or stack pointer): unwind it again. A
        moved pc shows every inlined call there (gdb's inline frame state is of the pc it
        was made at: stale once the pc moves)."""
        if pc_moved:
            self._hidden[thread_id] = 0
        self._frames.pop(thread_id, None)
        self._unwinders.pop(thread_id, None)
        self._kept.forget(thread_id)
        self._callers.clear()
        self._levels.forget()

    @property
    def past_main(self) -> bool:
        return self._past_main

    def set_past_main(self, on: bool) -> None:
        """gdb's `backtrace past-main`: whether the entry values of main's parameters (and
        what they give deeper down) are read from main's caller."""
        self._past_main = on
        self._callers.clear()
        self._levels.forget()

    def show_inline(self, thread_id: int, hidden: int) -> None:
        """Hide only `hidden` of the inlined calls starting at the thread's stop."""
        self._hidden[thread_id] = max(0, hidden)

    def unwound(self, thread_id: int, levels: int) -> list[UnwoundFrame]:
        """The frames of a stopped thread: `levels` of them, or all (up to MAX_FRAMES) once
        more are asked for; kept until the program resumes. Frame 0 alone when one is asked
        for (a stop's report, its variables): the callers cost an unwind through libc."""
        known = self._frames.get(thread_id)
        unwinder = self._unwinders.get(thread_id)
        complete = unwinder.done if unwinder is not None else known is not None and len(known) not in (1, _FIRST_FRAMES)
        if known is not None and (len(known) >= levels or complete):
            return known  # enough, or the whole stack (through calls: it ended below its limit)
        # Deeper than the first frames: as many as asked (the unwinding goes on later if need
        # be), all of them (up to MAX_FRAMES) through calls left stopped.
        through_calls = self._calls.pending()
        deeper = max(levels, MAX_FRAMES) if through_calls else levels
        # Frame 0 and its caller alone for a stop's arguments (their entry values; 3 levels
        # where a tail-call frame stands between them); else a first batch: the unwinding
        # goes on from there when more are asked for.
        limit = levels if levels <= 3 and not through_calls else _FIRST_FRAMES if levels <= _FIRST_FRAMES else deeper
        if unwinder is not None and known is unwinder.frames and not through_calls:  # on from where it stopped
            return unwinder.extend(limit)
        target = self._engine.stopped_target(thread_id)
        values = register_values(target.general_registers(thread_id))
        if type(values) is dict and target.live:  # for the front end's own reads of them
            self._stop_cache.remember_registers(thread_id, values)
        # Modules read or mapped at this stop (a library's symbols read when first shown):
        # lookups true from now on, and kept with the unwindings made with them
        self._keep_lookups()
        source, lookups = self._source, self._lookups
        if self._arch_of is None or self._arch_of[0] is not lookups:  # 9 us a thread: kept with the lookups
            self._arch_of = (lookups, source.arch)
        arch = self._arch_of[1]

        block = stack_block(target)

        def make(read: Callable[[int, int], bytes]) -> StackUnwinder:
            return StackUnwinder(values, read, source.symbols, source.cfi, arch, lookups, block)

        if through_calls:
            self._kept.forget()
            unwinder = make(self._read_visible)
        else:  # the last stop's where the thread has not moved (keptframes.py)
            unwinder = self._kept.unwinder(thread_id, values, lookups, self._read_visible, make)
        frames = unwinder.extend(limit)
        self._unwinders[thread_id] = unwinder
        if len(frames) > 1 and self._calls.pending():  # a call left stopped: past its frame
            self._unwinders.pop(thread_id)  # unwound in one go, through the calls' frames
            frames = self._calls.through_calls(
                frames, target.pid, lambda regs, n: self._source.unwind(regs, self._read_visible, limit=n), limit
            )
        self._frames[thread_id] = frames
        return frames

    def caller_frames(self, thread_id: int) -> list[UnwoundFrame]:
        """Frame 0 and its caller, unwound afresh and not kept: a step asks at each call it
        goes over or out of, where `unwound` goes 32 frames deep through libc (1 ms of a
        `next` over a stub). Through calls left stopped, the whole way as `unwound`."""
        self.forget_thread(thread_id)
        if self._calls.pending():
            frames = self.unwound(thread_id, 2)
            self.forget_thread(thread_id)
            return frames
        target = self._engine.stopped_target(thread_id)
        registers = register_values(target.general_registers(thread_id))
        unwinder = StackUnwinder(
            registers, self._read_visible, self._source.symbols, self._source.cfi, self._source.arch, self._lookups,
            stack_block(target),
        )
        return unwinder.extend(2)

    def with_tail_calls(self, thread_id: int, levels: int) -> list[UnwoundFrame]:
        """The frames as gdb numbers them: `unwound`'s with a virtual frame for each tail
        call between a callee and its caller (tailframes.py), at least `levels` of them."""
        stack = self._tail_stacks.get(thread_id) or self._tail_stacks_before.pop(thread_id, None)
        # Enough placed already: asking `unwound` for `levels` physical frames would unwind
        # one more for each virtual frame (an entry value through a tail call asks level 3)
        if stack is not None and len(stack.frames) >= levels and stack.physical is self._frames.get(thread_id):
            self._tail_stacks[thread_id] = stack  # (taken from the last stop's: kept for the next)
            return stack.frames
        physical = self.unwound(thread_id, levels)
        if stack is None or stack.physical is not physical:  # unwound anew
            stack = TailCallStack(physical)
        self._tail_stacks[thread_id] = stack  # the last stop's too, where its unwinding was kept
        return stack.extend(self._source, levels, self._tail_links)

    def stack_trace(
        self, thread_id: int, start: int = 0, count: int | None = None, *, arguments: bool = False
    ) -> list[StackFrame]:
        key = (thread_id, start, count)
        self.asked.asked(key, arguments)
        known = self._stop_cache.known_stack(key)  # on the caller's thread: see StopCache
        arguments = arguments and start == 0 and self._stop_cache.known_variables(
            (thread_id, 0, VariableScope.ARGUMENTS, False, DynamicTypes.NONE, True)) is None  # fmt: skip
        if known is not None and not arguments:
            return known

        def go() -> list[StackFrame]:
            found = known if known is not None else self._stack_frames(thread_id, start, count, key)
            self.asked.make_ahead(key, self._stop_cache.known_stack, lambda k: self._stack_frames(*k, k))
            # MI's *stopped: its arguments next, in this handoff. Not unasked (a console
            # step's line, DAP's stop: 40% of a stepi's frame work)
            if arguments and found:
                try:
                    self.frame_variables(thread_id, 0, VariableScope.ARGUMENTS, aggregate_values=False)
                except AliceError:
                    pass  # told when they are asked for
            return found

        return self._engine.run_on_engine(go)

    def _stack_frames(
        self, thread_id: int, start: int, count: int | None, key: tuple[int, int, int | None]
    ) -> list[StackFrame]:
        wanted = MAX_FRAMES if count is None else start + count
        frames = self.with_tail_calls(thread_id, wanted)
        # The frames shown so far at this stop, kept: a page deep down the stack makes
        # only the frames below the last page's (a 100,000-frame recursion's pages).
        stack = self._stop_cache.shown_stack(thread_id, frames, self.hidden_inline(thread_id))
        shown = stack.shown
        while len(shown) < wanted and stack.physical < len(frames):  # inlined calls add frames
            frame = frames[stack.physical]
            if frame.method == DUMMY:
                made = [dummy_stack_frame(frame)]
            else:
                made = self._stop_cache.shown_frames(thread_id, frames, stack.physical, self._source.stack_frames)
                made, stack.hiding = made[stack.hidden if stack.hiding else 0 :], False
                if frame.method == TAIL_CALL:  # one frame, named as the innermost call there
                    made = [restamped(made[0], tail_call=True, inlined=False, program_main=False)]
            # A place's frames are shared by the threads there: each gets its level and CFA
            cfa = frame.cfa
            shown += [each if each.level == len(shown) + n and each.cfa == cfa
                      else restamped(each, level=len(shown) + n, cfa=cfa)
                      for n, each in enumerate(made)]  # fmt: skip
            stack.physical += 1
        return self._stop_cache.remember_stack(key, shown[start:wanted])

    def frame_details(self, thread_id: int, level: int) -> FrameDetails:
        def go() -> FrameDetails:
            frames = self.with_tail_calls(thread_id, level + 2)
            physical, _ = self.physical_level(frames, level + self.hidden_inline(thread_id))
            frame = frames[physical]
            lookup = lookup_pc(frame)
            slots = saved_register_slots(frame, self._read_visible, self._source.symbols, self._source.cfi)
            if physical + 1 < len(frames) and frames[physical + 1].method == TAIL_CALL:
                # gdb unwinds the pc into a tail-call frame by its chain, from no stack slot
                slots = [(name, at) for name, at in slots if name != frame.arch.pc]
            base = frame_base(frame, self._read_visible)
            return FrameDetails(self._language_at(lookup), tuple(slots), base)

        return self._engine.run_on_engine(go)

    def frame_registers(self, thread_id: int, level: int) -> Mapping[str, int | None]:
        def go() -> Mapping[str, int | None]:
            values: dict[str, int | None] = dict(self._engine.stopped_target(thread_id).general_registers(thread_id))
            if level == 0:
                return values
            frames = self.with_tail_calls(thread_id, level + 1)
            frame = frames[self.physical_level(frames, level + self.hidden_inline(thread_id))[0]]
            values.update(frame.registers)
            values.update(dict.fromkeys(frame.undefined))
            return values

        return self._engine.run_on_engine(go)

    def _language_at(self, address: int) -> str | None:
        """The language of the unit holding `address`; None where there is no line info
        (gdb then prints no `source language` line)."""
        module = self._source.symbols.module_at(address)
        symbols = self._source.module_symbols(module) if module is not None else None
        if symbols is None or module is None or self._source.position(address) is None:
            return None
        try:
            cu = symbols.units.cu_for_address(address - module.base)
            return language_name(attr_value(cu.get_top_DIE(), "DW_AT_language")) if cu else None
        except AliceError:
            return None

    def frame_view(
        self, thread_id: int, level: int, *, innermost_only: bool = False
    ) -> tuple[FrameView, ModuleSymbols | None, int]:
        """The frame as a DWARF context, its module's symbols, and the pc to look up.

        `innermost_only`: unwind just frame 0, uncached (breakpoint conditions: speed).
        """
        if innermost_only:
            live = self._engine.stopped_target(thread_id).general_registers(thread_id)
            frames = [self._source.innermost(live, self._read_visible)]
        else:
            frames = self.with_tail_calls(thread_id, level + 1)
            level += self.hidden_inline(thread_id)
        physical, inline_outer = self.physical_level(frames, level)
        frame = same_value_frame(frames, physical)  # an outer one's registers as gdb's
        level = physical
        lookup_pc = frame.pc if level == 0 or frame.method == "signal" else frame.pc - 1
        module = self._source.symbols.module_at(lookup_pc)
        setter = None
        if level == 0:
            target = self._engine.stopped_target(thread_id)

            def set_register(name: str, value: int) -> None:
                moved = write_general_register(target, thread_id, name, value, self._source.arch.pc)
                self.forget_thread(thread_id, pc_moved=moved)
                self._stop_cache.values_changed()

            setter = set_register
        floats = thread_float_registers(self._engine, thread_id, self._read_visible.read_other,
                                        self._stop_cache.values_changed)  # fmt: skip
        innermost = None if level == 0 else partial(self._innermost_view, thread_id, floats)
        view = self._stepped.view(level, FrameView(  # recorded where frame 0's arguments are made
            frame, module.base if module else 0, self._read_visible, self._write_visible, setter, inline_outer,
            partial(self._caller_frame, thread_id, frame, floats), floats, innermost,
        ))
        symbols = self._source.module_symbols(module) if module is not None else None
        return view, symbols, lookup_pc

    def _innermost_view(self, thread_id: int, floats: FloatRegisters) -> FrameView:
        """Frame 0 of the thread, sharing an outer frame's float registers: where `$rax` of
        an outer frame that did not save it is read and written (gdb's same value)."""
        view = self.frame_view(thread_id, 0)[0]
        view.floats = floats
        return view

    def _caller_frame(
        self, thread_id: int, callee: UnwoundFrame, floats: FloatRegisters | None = None
    ) -> CallerFrame | None:
        """The physical frame that called `callee`, for its entry values. Registers its CFI
        does not restore keep the callee's values, as gdb's unspecified rule (same value):
        gcc's DW_AT_call_value reads the argument registers so at the call's return pc."""
        # Asked once per argument's entry value: made once per frame and stop.
        key = (thread_id, callee.level, callee.pc, id(floats))  # floats: kept alive by the entry
        if key in self._callers and self._stepped.making is None:  # made anew to be recorded
            return self._callers[key]
        found = self._callers[key] = self._make_caller_frame(thread_id, callee, floats)
        return found

    def _make_caller_frame(
        self, thread_id: int, callee: UnwoundFrame, floats: FloatRegisters | None
    ) -> CallerFrame | None:
        # gdb asks for the caller with get_prev_frame, which stops at main unless `backtrace
        # past-main` is on: no entry value reads main's caller, at whatever depth it is asked.
        if not self._past_main and callee.method != TAIL_CALL and self._source.is_program_main(callee, callee.symbol.name):
            return None
        # The caller as gdb numbers frames: a tail-call frame where the caller's call site
        # reached the callee through tail calls (its call site gives the entry values).
        frames = self.with_tail_calls(thread_id, callee.level + 2)
        if len(frames) <= callee.level + 1 or frames[callee.level].pc != callee.pc:
            return None
        frame = same_value_frame(frames, callee.level + 1)  # registers read when asked
        module = self._source.symbols.module_at(frame.pc - 1)
        symbols = self._source.module_symbols(module) if module is not None else None
        if module is None or symbols is None:
            return None
        view = self._stepped.caller_view(callee.level == 0 and frame.method != TAIL_CALL, FrameView(
            frame, module.base, self._read_visible, self._write_visible, None, 0,
            partial(self._caller_frame, thread_id, frame, floats), floats))  # fmt: skip
        writes = self._stop_cache.writes  # entry values found at this stop, while nothing was written
        if self._entry_answers[0] != writes or not self._callers:
            self._entry_answers = (writes, {})
        return CallerFrame(view, symbols, self._source.function_symbol, self._entry_answers[1])

    def physical_level(self, frames: list[UnwoundFrame], level: int) -> tuple[int, int]:
        """Shown frame `level` as (physical frame index, inlined calls out from its innermost)."""
        return self._levels.physical_level(frames, level)

    def inline_calls(self, pc: int) -> tuple[InlineCall, ...]:
        calls = []
        for die in self._source.inline_chain_at(pc):
            ranges = self._source.inline_ranges(pc, die)
            starts = any(low == pc for low, _ in ranges) and not any(low <= pc - 1 < high for low, high in ranges)
            site = self._source.call_site(pc, die)
            calls.append(InlineCall(die.offset, ranges, starts, (site.path, site.line) if site else None))
        return tuple(calls)

    def hidden_inline(self, thread_id: int) -> int:
        """How many inlined calls the thread's stop hides, as gdb's skip_inline_frames
        (inlinestops.py; a `step` into them sets it). A core hides none: gdb skips inline
        frames only at a stop it made itself."""
        known = self._hidden.get(thread_id)
        if known is not None:
            return known
        target = self._engine.halted_target()
        stop = target.last_stop() if target.live else None
        hidden = 0
        if stop is not None and stop.thread_id == thread_id:  # at a breakpoint: its locations' symbols
            pc = target.general_registers(thread_id)[self._source.arch.pc]
            symbols = self.breakpoint_symbols(stop.breakpoint_ids, pc) if stop.reason is StopReason.BREAKPOINT else None
            hidden = hidden_calls(self.inline_calls(pc), self._source.inline_chain_at(pc), symbols)
        self._hidden[thread_id] = hidden
        return hidden

    def prepare(self, thread_ids: Sequence[int]) -> None:
        """Each thread's top frame and its arguments, into the stop cache ahead of the
        requests that will ask (-thread-info, DAP threads' frames); run on the tracer thread."""
        for tid in thread_ids:
            try:
                self.stack_trace(tid, 0, 1)
                self.frame_variables(tid, 0, VariableScope.ARGUMENTS, aggregate_values=False)
            except AliceError:
                continue  # asked again by the caller, which sees the error

    def frame_variables(
        self, thread_id: int, level: int, scope: VariableScope, *, aggregate_values: bool = True,
        dynamic: DynamicTypes = DynamicTypes.NONE, entry_values: bool = True,
    ) -> list[VariableInfo]:
        # On the caller's thread first (see StopCache); the whole answer serves as well.
        shown = dynamic & DynamicTypes.POINTERS  # the only part that changes variables
        entries = entry_values and scope is VariableScope.ARGUMENTS  # only arguments have them
        for with_aggregates in {aggregate_values, True}:
            for with_entries in {entries, True}:
                key = (thread_id, level, scope, with_aggregates, shown, with_entries)
                known = self._stop_cache.known_variables(key)
                if known is not None:
                    return known

        def go() -> list[VariableInfo]:
            asked = self._stop_cache.variables((thread_id, level, scope, aggregate_values, shown, entries),
                                               partial(made, scope, entries))  # fmt: skip
            other = _SHOWN_BESIDE.get(scope)
            if other is not None and not entry_values:  # DAP's: both asked next, one handoff
                try:
                    self._stop_cache.variables((thread_id, level, other, aggregate_values, shown, False),
                                               partial(made, other, False))  # fmt: skip
                except AliceError:
                    pass  # told when that scope is asked for
            return asked

        def made(scope: VariableScope, entries: bool) -> list[VariableInfo]:
            settings = self._values.print_settings()
            if level or scope is VariableScope.REGISTERS or settings is None:
                return compute(scope, entries)
            on, covered, make = self._kept_unwinding(thread_id), self._kept.reads(thread_id), partial(compute, scope, entries)
            if on is None and scope is VariableScope.ARGUMENTS:  # over a stub: kept across steps (keptsteps.py)
                on, covered, make = self._stepped.arguments(thread_id, partial(self.with_tail_calls, thread_id),
                                                            partial(self.frame_view, thread_id, 0), self._lookups_of, make)
            how, asked = (self.hidden_inline(thread_id), self._past_main, settings), (scope, aggregate_values, shown, entries)
            verified = self._stop_cache.writes == self._writes_at_stop
            return self._kept_variables.variables(thread_id, asked, on, how, make, self._values.referred, self._values.refer,
                                                  covered, verified, self._twin(thread_id, on, verified, (asked, how)))  # fmt: skip

        def compute(scope: VariableScope, entries: bool) -> list[VariableInfo]:
            view, symbols, lookup_pc = self.frame_view(thread_id, level)
            if scope is VariableScope.REGISTERS:
                return register_variables(view.frame.registers)
            if symbols is None:
                return []
            found = scope_values(symbols, view, scope, lookup_pc)
            # Sharing pays only where several threads are shown (its key costs 6 us a variable)
            self._variable_threads.add(thread_id)
            if len(self._variable_threads) == 1:
                result = [
                    self._values.describe(name, value, aggregate_value=aggregate_values, dynamic=shown,
                                          block_depth=depth, locationless=locationless, position=position)
                    for name, value, depth, locationless, position in found
                ]  # fmt: skip
            else:
                result = [
                    self._stop_cache.shared.describe(
                        name, value, (aggregate_values, shown, depth, locationless, position),
                        partial(self._values.describe, name, value, aggregate_value=aggregate_values,
                                dynamic=shown, block_depth=depth, locationless=locationless, position=position),
                        self._read_visible,
                    )  # the same for each thread holding the same bytes there (sharedvalues.py)
                    for name, value, depth, locationless, position in found
                ]  # fmt: skip
            if entries:
                result = self._with_entry_values(result, found, symbols, view, lookup_pc, aggregate_values)
            return result

        return self._engine.run_on_engine(go)

    def _twin(self, thread_id: int, on: object | None, verified: bool, how: Hashable) -> Twin | None:
        """The thread among those parked alike (twinthreads.py): its unwinding's reads all
        recorded (kept, not through calls left stopped) and nothing written since."""
        frames = self._frames.get(thread_id)
        if on is None or not verified or not frames or self._calls.pending():
            return None
        frame, read = frames[0], self._read_visible.read_unrecorded
        return self._twins.thread(frame.registers, frame.arch.sp, (how, id(self._lookups)), read,
                                  self._kept.reads(thread_id))  # fmt: skip

    def _kept_unwinding(self, thread_id: int) -> object | None:
        """The thread's unwinding to keep its frame-0 variables with (registers read whole)."""
        frames = self.with_tail_calls(thread_id, 1)
        unwinder = self._unwinders.get(thread_id)
        if unwinder is None or not frames or isinstance(frames[0].registers, ReadRegisters):
            return None
        return unwinder

    def _with_entry_values(
        self, infos: list[VariableInfo], found: list[tuple[str, Value, int, bool, int]], symbols: ModuleSymbols,
        view: FrameView, lookup_pc: int, aggregate_values: bool,
    ) -> list[VariableInfo]:  # fmt: skip
        """The arguments with their entry values (gdb's NAME@entry) where the caller gives one."""
        entries = entry_values(symbols, view, lookup_pc)
        out = []
        for info, (name, value, *_), entry in zip(infos, found, entries, strict=False):
            if entry is not None:
                described = self._values.describe(f"{name}@entry", entry, aggregate_value=aggregate_values)
                info = replace(info, entry=described, entry_same=same_as_entry(value, entry))
            out.append(info)
        return out

    def variable_children(self, reference: int, start: int = 0, count: int | None = None) -> list[VariableInfo]:
        return self._engine.run_on_engine(lambda: self._values.children(reference, start, count))

    def default_thread(self, thread_id: int | None) -> int:
        target = self._engine.halted_target()
        if thread_id is not None:
            return thread_id
        live = target.thread_ids()
        if not live:  # every thread ended: the process is exiting
            raise TargetError("the program has no threads left: it is exiting")
        return target.pid if target.live and target.pid in live else live[0]

