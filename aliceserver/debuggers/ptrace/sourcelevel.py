"""The source-level half of PtraceDebugger (DWARF): locations, frames, variables,
expressions and line stepping. Kept apart from engine.py, which owns the process and the
tracer thread; everything here runs on the tracer thread through `_call`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Callable, TypeVar

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.events import (
    Continued,
    LocationBreakpointChanged,
    Output,
    Stopped,
    StopReason,
)
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.hits import HitPolicy, parse_hit_condition, split_log_message
from aliceserver.debuggers.model import (
    BreakpointInfo,
    CodeLocation,
    DynamicTypes,
    FrameDetails,
    LocationBreakpointInfo,
    Module,
    ProcessInfo,
    SourcePosition,
    StackFrame,
    StepKind,
    VariableInfo,
    VariableScope,
    VtableInfo,
    WatchKind,
    WatchpointInfo,
    WatchScope,
)
from aliceserver.debuggers.ptrace import registers as register_sets
from aliceserver.debuggers.ptrace.binding import Libc
from aliceserver.debuggers.ptrace.dollars import SessionDollars, recorded
from aliceserver.debuggers.ptrace.dummyframes import DUMMY, dummy_stack_frame, through_calls
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.lineoracle import LineOracle
from aliceserver.debuggers.ptrace.tracee import Tracee
from aliceserver.debuggers.ptrace.watchscope import NameRecorder
from aliceserver.debuggers.source import linespec
from aliceserver.debuggers.source.retvalue import return_bytes
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols, lookup_pc
from aliceserver.debuggers.source.stepping import InlineCall, StepPlan
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.debuggers.source.variables import (
    FloatRegisters,
    FrameView,
    ProcessEvalSymbols,
    VariableStore,
    entry_values,
    evaluate,
    parse_condition,
    register_variables,
    same_as_entry,
    scope_values,
)
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.dwarf.callsites import CallerFrame
from aliceserver.debuggers.symbols.dwarf.dies import attr_value, language_name
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, ImplicitLoc, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.ptype import ptype_text, resolved_base
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.types import Type, is_float, type_name
from aliceserver.debuggers.symbols.dwarf.unwind import (
    UnwoundFrame,
    frame_base,
    saved_register_slots,
)
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.errors import AliceError, ProtocolError, TargetError, Unsupported

if TYPE_CHECKING:
    from aliceserver.debuggers.printers.commands import ScriptOutput
    from aliceserver.debuggers.ptrace.infcall import CallSettings, ProcessCaller
    from aliceserver.debuggers.ptrace.libraries import LibraryTracker
    from aliceserver.debuggers.ptrace.traps import TrapTable
    from aliceserver.debuggers.symbols.process import ProcessSymbols
    from aliceserver.debuggers.target import ProcessTarget

log = logging.getLogger(__name__)

T = TypeVar("T")

_FIRST_FRAMES = 32  # most questions are about the top of the stack: unwind that much first
MAX_FRAMES = 4096


class SourceLevel(SessionDollars):
    steps_alone = False  # gdb's scheduler-locking step (or on): see set_scheduler_locking
    strict_types = True  # gdb's check type: see set_call_options

    # Provided by PtraceDebugger.
    _events: EventSource
    _source: SourceSymbols
    _variables: VariableStore
    _frames: dict[int, list[UnwoundFrame]]
    _stop_cache: StopCache
    _inline_hidden: dict[int, int]  # thread -> inlined calls its stop hides (see _hidden_inline)
    _disassembler: Disassembler
    _libc: Libc
    _location_breakpoints: dict[int, "_LocationBreakpoint"]
    _next_location_id: int
    _inferior: Inferior | None
    _symbols: ProcessSymbols
    _tracker: LibraryTracker
    _traps: TrapTable
    call_settings: CallSettings  # calls into the program in expressions (infcall.py)

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def _call(self, fn: Callable[[], T]) -> T:
            raise NotImplementedError

        def _require_stopped(self) -> Inferior:
            raise NotImplementedError

        def _stopped_thread(self, thread_id: int) -> tuple[Inferior, Tracee]:
            raise NotImplementedError

        def _target(self) -> ProcessTarget:
            raise NotImplementedError

        def _halted_target(self) -> ProcessTarget:
            raise NotImplementedError

        def _stopped_target(self, thread_id: int) -> ProcessTarget:
            raise NotImplementedError

        def _has_target(self) -> bool:
            raise NotImplementedError

        def _read_visible(self, address: int, size: int) -> bytes:
            raise NotImplementedError

        def _write_visible(self, address: int, data: bytes) -> None:
            raise NotImplementedError

        def _forget_stop_state(self) -> None:
            raise NotImplementedError

        def _symbolize(self, address: int) -> str | None:
            raise NotImplementedError

        def _link_view(self) -> Module | None:
            raise NotImplementedError

        def _runtime_address(self, address: int) -> int:
            raise NotImplementedError

        @property
        def process(self) -> ProcessInfo | None:
            raise NotImplementedError

        def _insert_address_breakpoint(
            self, address: int, temporary: bool, enabled: bool, condition: BreakpointCondition | None,
            *, at_instruction: bool = False,
        ) -> BreakpointInfo:
            raise NotImplementedError

        def _remove_logical(self, ident: int) -> None:
            raise NotImplementedError

    # --- locations ------------------------------------------------------------------
    def resolve_location(self, spec: str) -> list[CodeLocation]:
        return self._call(lambda: self._resolve(spec))

    def _resolve(self, spec: str) -> list[CodeLocation]:
        """A location's places (on the tracer thread). gdb's `*EXPR` is the expression's
        value as an address, evaluated anew at each binding as gdb's breakpoint re-set:
        before `run` the program's link-time one, at the held copy's load address."""
        expression = linespec.address_expression(spec)
        if expression is None:
            return self._source.resolve(spec)
        if not expression:
            raise ProtocolError("Argument required (expression to compute).")
        try:
            address = int(expression, 0)
        except ValueError:
            address = self._address_of(expression)
        return [self._source.location_of(self._runtime_address(address))]

    def _address_of(self, expression: str) -> int:
        """`expression`'s value as an address: in the program held for its symbols at its
        link-time addresses (no registers), else in the first thread's innermost frame."""
        thread_id = None
        if self._link_view() is None and self.process is not None:
            try:
                thread_id = self._default_thread(None)  # refused while it runs
            except AliceError:
                thread_id = None
        info = self.evaluate(expression, thread_id, calls=False)
        if info.error:
            raise ProtocolError(info.value)
        if info.value.startswith("(") and "0x" not in info.value:
            info = self.evaluate(expression, thread_id, fmt="x", calls=False)  # `print address off`
        return linespec.value_address(info.value, info.type, info.address)

    def source_position(self, address: int) -> SourcePosition | None:
        return self._call(lambda: self._source.position(address))

    def source_files(self) -> list[str]:
        return self._call(self._source.source_files)

    def source_name(self, path: str) -> str:
        return self._call(lambda: self._source.source_name(path))

    # --- frames ---------------------------------------------------------------------
    def _unwound(self, thread_id: int, levels: int) -> list[UnwoundFrame]:
        """The frames of a stopped thread: `levels` of them, or all (up to MAX_FRAMES) once
        more are asked for; kept until the program resumes. Frame 0 alone when one is asked
        for (a stop's report, its variables): the callers cost an unwind through libc."""
        known = self._frames.get(thread_id)
        if known is not None and (len(known) >= levels or len(known) not in (1, _FIRST_FRAMES)):
            return known  # enough, or the whole stack (an unwind that ended below its limit)
        target = self._stopped_target(thread_id)
        values = dict(target.general_registers(thread_id))
        limit = 1 if levels <= 1 else _FIRST_FRAMES if levels <= _FIRST_FRAMES else MAX_FRAMES
        frames = self._source.unwind(values, self._read_visible, limit=limit)
        if self.call_settings.dummies and len(frames) > 1:  # a call left stopped: past its frame
            frames = through_calls(
                frames, self._tracker.entry, self.call_settings.dummies, target.pid,
                lambda regs, n: self._source.unwind(regs, self._read_visible, limit=n), limit,
            )  # fmt: skip
        self._frames[thread_id] = frames
        return frames

    def stack_trace(self, thread_id: int, start: int = 0, count: int | None = None) -> list[StackFrame]:
        key = (thread_id, start, count)
        known = self._stop_cache.known_stack(key)  # on the caller's thread: see StopCache
        if known is not None:
            return known

        def go() -> list[StackFrame]:
            wanted = MAX_FRAMES if count is None else start + count
            hidden = self._hidden_inline(thread_id)
            shown: list[StackFrame] = []
            frames = self._unwound(thread_id, wanted)
            for index in range(len(frames)):  # inlined calls add frames
                if frames[index].method == DUMMY:
                    shown.append(dummy_stack_frame(frames[index]))
                    continue
                shown += self._stop_cache.shown_frames(thread_id, frames, index, self._source.stack_frames)[hidden:]
                hidden = 0
                if len(shown) >= wanted:
                    break
            result = [replace(frame, level=level) for level, frame in enumerate(shown)][start:wanted]
            return self._stop_cache.remember_stack(key, result)

        return self._call(go)

    def frame_details(self, thread_id: int, level: int) -> FrameDetails:
        def go() -> FrameDetails:
            frames = self._unwound(thread_id, level + 1)
            physical, _ = self._physical_level(frames, level + self._hidden_inline(thread_id))
            frame = frames[physical]
            lookup = lookup_pc(frame)
            slots = saved_register_slots(frame, self._read_visible, self._source.symbols, self._source.cfi)
            base = frame_base(frame, self._read_visible)
            return FrameDetails(self._language_at(lookup), tuple(slots), base)

        return self._call(go)

    def frame_registers(self, thread_id: int, level: int) -> Mapping[str, int | None]:
        def go() -> Mapping[str, int | None]:
            values: dict[str, int | None] = dict(self._stopped_target(thread_id).general_registers(thread_id))
            if level == 0:
                return values
            frames = self._unwound(thread_id, level + 1)
            frame = frames[self._physical_level(frames, level + self._hidden_inline(thread_id))[0]]
            values.update(frame.registers)
            values.update(dict.fromkeys(frame.undefined))
            return values

        return self._call(go)

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

    def _frame_view(
        self, thread_id: int, level: int, *, innermost_only: bool = False
    ) -> tuple[FrameView, ModuleSymbols | None, int]:
        """The frame as a DWARF context, its module's symbols, and the pc to look up.

        `innermost_only`: unwind just frame 0, uncached (breakpoint conditions: speed).
        """
        if innermost_only:
            live = self._stopped_target(thread_id).general_registers(thread_id)
            frames = [self._source.innermost(live, self._read_visible)]
        else:
            frames = self._unwound(thread_id, level + 1)
            level += self._hidden_inline(thread_id)
        physical, inline_outer = self._physical_level(frames, level)
        frame = frames[physical]
        level = physical
        lookup_pc = frame.pc if level == 0 or frame.method == "signal" else frame.pc - 1
        module = self._source.symbols.module_at(lookup_pc)
        setter = None
        if level == 0:
            target = self._stopped_target(thread_id)

            def set_register(name: str, value: int) -> None:
                target.set_general_register(thread_id, name, value)
                self._frames.pop(thread_id, None)
                self._stop_cache.values_changed()

            setter = set_register
        floats = self._float_registers(thread_id)
        innermost = None if level == 0 else partial(self._innermost_view, thread_id, floats)
        view = FrameView(
            frame, module.base if module else 0, self._read_visible, self._write_visible, setter, inline_outer,
            partial(self._caller_frame, thread_id, frame, floats), floats, innermost,
        )
        symbols = self._source.module_symbols(module) if module is not None else None
        return view, symbols, lookup_pc

    def _float_registers(self, thread_id: int) -> FloatRegisters:
        """The thread's xmm and st registers for the frames of one request, read only when a
        location names one (ptrace calls on the tracer thread: `_call`)."""

        def read() -> dict[int, bytes]:
            return self._call(lambda: self._target().float_registers(thread_id))

        def write(name: str, data: bytes) -> None:
            def go() -> None:
                self._stopped_target(thread_id).set_vector_register(thread_id, name, data)
                self._stop_cache.values_changed()

            self._call(go)

        def read_extended() -> dict[int, bytes]:
            return self._call(lambda: self._target().extended_registers(thread_id))

        return FloatRegisters(read, write, read_extended)

    def _innermost_view(self, thread_id: int, floats: FloatRegisters) -> FrameView:
        """Frame 0 of the thread, sharing an outer frame's float registers: where `$rax` of
        an outer frame that did not save it is read and written (gdb's same value)."""
        view = self._frame_view(thread_id, 0)[0]
        view.floats = floats
        return view

    def _caller_frame(
        self, thread_id: int, callee: UnwoundFrame, floats: FloatRegisters | None = None
    ) -> CallerFrame | None:
        """The physical frame that called `callee`, for its entry values. Registers its CFI
        does not restore keep the callee's values, as gdb's unspecified rule (same value):
        gcc's DW_AT_call_value reads the argument registers so at the call's return pc."""
        frames = self._unwound(thread_id, callee.level + 2)
        if len(frames) <= callee.level + 1 or frames[callee.level].pc != callee.pc:
            return None
        frame = frames[callee.level + 1]
        module = self._source.symbols.module_at(frame.pc - 1)
        symbols = self._source.module_symbols(module) if module is not None else None
        if module is None or symbols is None:
            return None
        merged = replace(frame, registers={**callee.registers, **frame.registers})
        view = FrameView(merged, module.base, self._read_visible, self._write_visible, None, 0,
                         partial(self._caller_frame, thread_id, frame, floats), floats)  # fmt: skip
        return CallerFrame(view, symbols)

    def _physical_level(self, frames: list[UnwoundFrame], level: int) -> tuple[int, int]:
        """Shown frame `level` as (physical frame index, inlined calls out from its innermost)."""
        shown = 0
        for index, frame in enumerate(frames):
            if level == shown:
                return index, 0  # the innermost: no need to look the chain up
            depth = len(self._source.inline_chain(frame))
            if level <= shown + depth:
                return index, level - shown
            shown += depth + 1
        raise ProtocolError(f"no frame at level {level}")

    def _inline_calls(self, pc: int) -> tuple[InlineCall, ...]:
        calls = []
        for die in self._source.inline_chain_at(pc):
            ranges = self._source.inline_ranges(pc, die)
            starts = any(low == pc for low, _ in ranges) and not any(low <= pc - 1 < high for low, high in ranges)
            site = self._source.call_site(pc, die)
            calls.append(InlineCall(die.offset, ranges, starts, (site.path, site.line) if site else None))
        return tuple(calls)

    def _hidden_inline(self, thread_id: int) -> int:
        """How many inlined calls the thread's stop hides, as gdb's skip_inline_frames: at
        the first instruction of inlined calls, the stop shows their caller at the call
        site, unless a user breakpoint stopped it there (or a `step` went into them)."""
        known = self._inline_hidden.get(thread_id)
        if known is not None:
            return known
        target = self._halted_target()
        stop = target.last_stop()
        hidden = 0
        if stop is not None and stop.thread_id == thread_id and stop.reason is not StopReason.BREAKPOINT:
            pc = target.general_registers(thread_id)["rip"]
            for call in reversed(self._inline_calls(pc)):
                if not call.starts_here:
                    break
                hidden += 1
        self._inline_hidden[thread_id] = hidden
        return hidden

    def frame_variables(
        self, thread_id: int, level: int, scope: VariableScope, *, aggregate_values: bool = True,
        dynamic: DynamicTypes = DynamicTypes.NONE,
    ) -> list[VariableInfo]:
        # On the caller's thread first (see StopCache); the whole answer serves as well.
        shown = dynamic & DynamicTypes.POINTERS  # the only part that changes variables
        for with_aggregates in {aggregate_values, True}:
            known = self._stop_cache.known_variables((thread_id, level, scope, with_aggregates, shown))
            if known is not None:
                return known

        def go() -> list[VariableInfo]:
            return self._stop_cache.variables((thread_id, level, scope, aggregate_values, shown), compute)

        def compute() -> list[VariableInfo]:
            view, symbols, lookup_pc = self._frame_view(thread_id, level)
            if scope is VariableScope.REGISTERS:
                return register_variables(view.frame.registers)
            if symbols is None:
                return []
            found = scope_values(symbols, view, scope, lookup_pc)
            described = [
                (self._variables.describe(name, value, aggregate_value=aggregate_values, dynamic=shown),
                 depth, locationless, position)
                for name, value, depth, locationless, position in found
            ]
            result = [replace(info, block_depth=depth, locationless=locationless, position=position)
                      if depth or locationless or position else info
                      for info, depth, locationless, position in described]
            if scope is VariableScope.ARGUMENTS:
                result = self._with_entry_values(result, found, symbols, view, lookup_pc, aggregate_values)
            return result

        return self._call(go)

    def _with_entry_values(
        self, infos: list[VariableInfo], found: list[tuple[str, Value, int, bool, int]], symbols: ModuleSymbols,
        view: FrameView, lookup_pc: int, aggregate_values: bool,
    ) -> list[VariableInfo]:  # fmt: skip
        """The arguments with their entry values (gdb's NAME@entry) where the caller gives one."""
        entries = entry_values(symbols, view, lookup_pc)
        out = []
        for info, (name, value, *_), entry in zip(infos, found, entries, strict=False):
            if entry is not None:
                described = self._variables.describe(f"{name}@entry", entry, aggregate_value=aggregate_values)
                info = replace(info, entry=described, entry_same=same_as_entry(value, entry))
            out.append(info)
        return out

    def variable_children(self, reference: int, start: int = 0, count: int | None = None) -> list[VariableInfo]:
        return self._call(lambda: self._variables.children(reference, start, count))

    # --- expressions ----------------------------------------------------------------
    def _eval_symbols(
        self, thread_id: int, level: int, *, innermost_only: bool = False
    ) -> ProcessEvalSymbols:
        view, symbols, lookup_pc = self._frame_view(thread_id, level, innermost_only=innermost_only)
        from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols  # see variables.py

        frame_symbols = None
        if symbols is not None:
            scope = symbols.frame_scope(view, lookup_pc=lookup_pc, inline_outer=view.inline_outer)
            frame_symbols = FrameSymbols(symbols, view, scope)
        def others() -> list[tuple[int, ModuleSymbols]]:
            found = self._source.all_module_symbols()
            return [(module.base, candidate) for module, candidate in found if candidate is not symbols]

        printers = self._variables.printers
        methods = printers.methods(view) if printers is not None else None  # C++ xmethods
        def frame_names() -> list[str]:
            """Also while a condition is tested (the program not halted for the user yet)."""
            frames = self._unwound(thread_id, MAX_FRAMES)
            shown = [frame.function or "" for index in range(len(frames))
                     for frame in self._stop_cache.shown_frames(thread_id, frames, index, self._source.stack_frames)]
            return shown[level:]

        return ProcessEvalSymbols(frame_symbols, others, view, self._variables.rtti, methods=methods,
                                  calls=self._function_caller(thread_id), frame_names=frame_names,
                                  as_text=self._variables.as_text, functions=self._source.function_symbol,
                                  input_radix=self._variables.input_radix,
                                  strict_types=self.strict_types)  # fmt: skip

    def set_call_options(self, *, unwind_on_signal: bool | None = None, may_call: bool | None = None,
                         strict_types: bool | None = None) -> None:
        settings = self.call_settings
        if unwind_on_signal is not None:
            settings.unwind_on_signal = unwind_on_signal
        if may_call is not None:
            settings.may_call = may_call
        if strict_types is not None:
            self.strict_types = strict_types

    def set_scheduler_locking(self, *, steps_alone: bool) -> None:
        self.steps_alone = steps_alone

    def set_print_limits(self, *, elements: int, repeats: int, addresses: bool = True,
                         array_indexes: bool = False, output_radix: int = 10,
                         input_radix: int = 10) -> None:
        self._variables.max_elements, self._variables.repeat_threshold = elements, repeats
        self._variables.addresses, self._variables.array_indexes = addresses, array_indexes
        self._variables.output_format = {16: "x", 8: "o"}.get(output_radix)
        self._variables.input_radix = input_radix
        self._stop_cache.values_changed()  # values already formatted under the old limits

    def _function_caller(self, tid: int) -> ProcessCaller | None:
        """What runs `f(x)` in expressions on thread `tid` (infcall.py)."""
        from aliceserver.debuggers.ptrace.infcall import ProcessCaller

        inferior = self._inferior
        if inferior is None:
            return None

        def name_of(address: int) -> str | None:
            found = self._symbols.lookup_address(address)
            return found.name if found.name is not None and found.offset == 0 else None

        return ProcessCaller(inferior, tid, self.call_settings, self._tracker.entry, name_of,
                             self._symbols.lookup_name, self._forget_stop_state)  # fmt: skip

    def _default_thread(self, thread_id: int | None) -> int:
        target = self._halted_target()
        if thread_id is not None:
            return thread_id
        live = target.thread_ids()
        if not live:  # every thread ended: the process is exiting
            raise TargetError("the program has no threads left: it is exiting")
        return target.pid if target.live and target.pid in live else live[0]

    def evaluate(
        self, expression: str, thread_id: int | None = None, level: int = 0, fmt: str | None = None,
        *, dynamic: DynamicTypes = DynamicTypes.NONE, type_only: bool = False, calls: bool = True,
        record: bool = False,
    ) -> VariableInfo:
        def go() -> VariableInfo:
            if thread_id is None and not self._has_target():
                return without_program()
            tid = self._default_thread(thread_id)
            rtti = self._variables.rtti if dynamic & DynamicTypes.MEMBERS else None
            symbols = self._eval_symbols(tid, level)
            if not calls:
                symbols.calls = None
            # No thread and no calls: MI before `run`, reading the program held at its first
            # instruction for its symbols: it has no registers and no thread for gdb yet.
            before_run = thread_id is None and not calls
            symbols.no_registers = before_run
            held = self._link_view() if before_run else None
            if held is not None:  # the program's globals and functions at link-time addresses
                others = symbols.others
                symbols.others = lambda: [(0 if bias == held.base else bias, found) for bias, found in others()]
                symbols.functions = lambda name: self._link_address(self._source.function_symbol(name), held)
            values = self._session_values(None if before_run else tid)
            value = evaluate(expression, symbols, rtti, type_only=type_only, values=values)
            if type_only:
                from aliceserver.debuggers.symbols.dwarf.expr import whatis_value

                return self._variables.describe_type_only(expression, whatis_value(expression, value, symbols), dynamic)
            info = self._variables.describe(expression, value, fmt, top=True, dynamic=dynamic)
            return recorded(info, value, values) if record else info

        def without_program() -> VariableInfo:
            """No file loaded: gdb's literals, types and $ values, in gdb's own memory."""
            from aliceserver.debuggers.symbols.dwarf.expr.noprogram import NoProgramSymbols

            values = self._session_values()
            value = evaluate(expression, NoProgramSymbols(input_radix=self._variables.input_radix), type_only=type_only, values=values)
            if type_only:
                return self._variables.describe_type_only(expression, value, DynamicTypes.NONE)
            info = self._variables.describe(expression, value, fmt, top=True)
            return recorded(info, value, values) if record else info

        return self._call(go)

    @staticmethod
    def _link_address(address: int | None, held: Module) -> int | None:
        """A runtime address of the held program's image at its link-time address."""
        if address is not None and held.low <= address < held.high:
            return address - held.base
        return address

    def _find_class(self, name: str) -> Type | None:
        """A class by its qualified name in any module (a dynamic type's, from its vtable)."""
        for _module, symbols in self._source.all_module_symbols():
            found = symbols.find_type(name)
            if found is not None:
                return found
        return None

    def run_python(
        self, code: str | None, path: str | None = None, thread_id: int | None = None, level: int = 0
    ) -> ScriptOutput:
        printers = self._variables.printers
        if printers is None:
            raise Unsupported("Python scripting is not supported in this copy of GDB.")

        def go() -> ScriptOutput:
            try:
                self._halted_target()
            except TargetError:  # no program yet, or running: the code runs without a frame
                return printers.run_script(path, code, None)
            frame = self._frame_view(self._default_thread(thread_id), level)[0]
            return printers.run_script(path, code, frame)

        return self._call(go)

    def describe_type(
        self, expression: str, thread_id: int | None = None, level: int = 0, *, raw: bool = False
    ) -> str:
        def go() -> str:
            tid = self._default_thread(thread_id)
            values = self._session_values(tid)  # `$x`, `$_siginfo`: the session's, as print's
            t = evaluate(expression, self._eval_symbols(tid, level), type_only=True, values=values).type
            text = ptype_text(t)
            base = resolved_base(t)  # a C++ class keeps its name: the type printers' one
            shown = None if raw or base is None else self._type_printers_name(base, tid, level)
            return text if base is None or shown is None else text.replace(type_name(base), shown, 1)

        return self._call(go)

    def printed_type_name(self, expression: str, thread_id: int | None = None, level: int = 0) -> str | None:
        def go() -> str | None:
            tid = self._default_thread(thread_id)
            values = self._session_values(tid)  # `$x`, `$_siginfo`: the session's, as print's
            t = evaluate(expression, self._eval_symbols(tid, level), type_only=True, values=values).type
            shown = self._type_printers_name(t, tid, level)
            return None if shown == type_name(t) else shown

        return self._call(go)

    def _type_printers_name(self, t: Type, tid: int, level: int) -> str | None:
        printers = self._variables.printers
        if printers is None:
            return None
        return printers.type_name(t, self._frame_view(tid, level)[0])

    def vtables(self, expression: str, thread_id: int, level: int = 0) -> list[VtableInfo]:
        from aliceserver.debuggers.symbols.dwarf.vtables import vtables  # used rarely

        def go() -> list[VtableInfo]:
            value = evaluate(expression, self._eval_symbols(thread_id, level))
            try:
                return vtables(value, self._symbolize)
            except EvaluationError as error:
                raise ProtocolError(str(error)) from None

        return self._call(go)

    def expression_condition(self, expression: str) -> BreakpointCondition:
        from aliceserver.debuggers.ptrace.conditions import ExpressionCondition  # see variables.py

        tree = parse_condition(expression)  # a typo is reported now, not at every hit

        def general(tid: int) -> bool:
            value = evaluate(tree, self._eval_symbols(tid, 0, innermost_only=True))
            return value.as_float() != 0.0 if is_float(value.type) else value.as_int() != 0

        return ExpressionCondition(tree, general, self)  # compiled per address where it can

    def condition_problem(self, expression: str, address: int) -> str | None:
        from aliceserver.debuggers.source.condition_scope import unknown_name

        tree = parse_condition(expression)  # a syntax error is raised, as at every address
        if isinstance(tree, str):  # parsed per frame (a typedef cast, Rust): not checked here
            return None
        return self._call(lambda: unknown_name(self._source, tree, address))

    def breakpoint_condition(
        self,
        condition: str | None = None,
        hit_condition: str | None = None,
        log_message: str | None = None,
    ) -> BreakpointCondition:
        policy = HitPolicy(
            condition=self.expression_condition(condition) if condition else None,
            hit_condition=parse_hit_condition(hit_condition) if hit_condition else None,
        )
        if log_message is not None:
            parts = split_log_message(log_message)
            for text, is_expression in parts:
                if is_expression:
                    parse_condition(text)  # a typo is reported now

            def render(tid: int) -> str:
                pieces = []
                for text, is_expression in parts:
                    if not is_expression:
                        pieces.append(text)
                        continue
                    try:
                        value = evaluate(text, self._eval_symbols(tid, 0, innermost_only=True))
                        pieces.append(self._variables.describe(text, value).value)
                    except EvaluationError as error:
                        pieces.append(f"<{error}>")
                return "".join(pieces) + "\n"

            policy.log = render
            policy.emit = lambda line: self._events.put(Output("console", line))
        return policy

    def watch_expression(
        self, expression: str, kind: WatchKind, thread_id: int | None = None, level: int = 0
    ) -> WatchpointInfo:
        """A hardware watchpoint on the lvalue an expression names (`x`, `p->next`, `a[3]`);
        one that reads the frame's locals dies with the frame (see watchscope.py)."""
        address, size, scope = self._call(lambda: self._watch_target(expression, thread_id, level))
        if size not in (1, 2, 4, 8):
            raise TargetError(f"cannot watch {expression!r}: {size} bytes; a hardware watchpoint covers 1, 2, 4 or 8")
        return self.insert_watchpoint(address, size, kind, scope)

    def watch_scope(self, expression: str, thread_id: int | None = None, level: int = 0) -> WatchScope | None:
        return self._call(lambda: self._watch_target(expression, thread_id, level)[2])

    def _watch_target(self, expression: str, thread_id: int | None, level: int) -> tuple[int, int, WatchScope | None]:
        tid = self._default_thread(thread_id)
        symbols = NameRecorder(self._eval_symbols(tid, level))
        value = evaluate(expression, symbols)
        if value.address is None:
            raise ProtocolError(f"cannot watch {expression!r}: it is not in memory")
        cfa = symbols.frame.frame.cfa
        scope = WatchScope(tid, cfa) if cfa is not None and symbols.uses_frame() else None
        return value.address, value.byte_size, scope

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def insert_watchpoint(
            self, address: int, size: int, kind: WatchKind, scope: WatchScope | None = None
        ) -> WatchpointInfo:
            raise NotImplementedError

    # --- location breakpoints (pending until their code loads) ------------------------
    def insert_location_breakpoint(
        self,
        location: str,
        *,
        condition: BreakpointCondition | None = None,
        temporary: bool = False,
        enabled: bool = True,
    ) -> LocationBreakpointInfo:
        def go() -> LocationBreakpointInfo:
            if self.process is not None:
                self._resolve(location)  # a malformed spec is refused now
            self._next_location_id += 1
            entry = _LocationBreakpoint(self._next_location_id, location, condition, temporary, enabled)
            self._location_breakpoints[entry.id] = entry
            if self.process is not None:
                self._bind(entry)
            return entry.info()

        return self._call(go)

    def _bind(self, entry: "_LocationBreakpoint") -> bool:
        """Give `entry` an address breakpoint at each new place it resolves to; a PLT stub
        it no longer resolves to (its library's function has loaded) goes, as gdb re-sets
        a breakpoint on a trampoline symbol to the function once there is one."""
        try:
            places = self._resolve(entry.location)
        except AliceError as error:  # a `*EXPR` that cannot be evaluated now (a thread runs)
            log.info("breakpoint %d at %s kept where it was: %s", entry.id, entry.location, error)
            return False
        changed = False
        wanted = {place.address for place in places}
        for address, (bound, ident) in list(entry.bound.items()):
            if address not in wanted and (bound.function or "").endswith("@plt"):
                del entry.bound[address]
                self._forget_address_breakpoint(ident)
                changed = True
        for place in places:
            if place.address in entry.bound:
                continue
            try:
                owned = self._insert_address_breakpoint(
                    place.address, entry.temporary, entry.enabled, entry.condition,
                    # Line-table rows and function entries start instructions; only a
                    # user's `*ADDRESS` needs disassembling to be sure.
                    at_instruction=not entry.location.lstrip().startswith("*"),
                )  # fmt: skip
            except TargetError as error:
                log.warning("breakpoint %d at %#x: %s", entry.id, place.address, error)
                continue
            entry.bound[place.address] = (place, owned.id)
            changed = True
        return changed

    def _bind_location_breakpoints(self, new_image: bool = False) -> None:
        """Called on the tracer thread when code appears: at launch, exec and library loads."""
        for entry in self._location_breakpoints.values():
            if new_image:  # exec replaced the program: old addresses mean nothing now
                for _, ident in entry.bound.values():
                    self._forget_address_breakpoint(ident)
                entry.bound.clear()
            if self._bind(entry) and not new_image:
                self._events.put(LocationBreakpointChanged(entry.info()))

    def _unbind_module(self, module: Module, *, still_mapped: bool = False) -> None:
        """Called on the tracer thread when a library is unloaded: the places in it go (a
        breakpoint left with none is pending again, as gdb's), their traps with them, with
        nothing to restore in code no longer mapped. `still_mapped`: only the library's
        symbols went (`nosharedlibrary`), so its code gets its bytes back."""
        for entry in self._location_breakpoints.values():
            gone = [address for address in entry.bound if module.low <= address < module.high]
            for address in gone:
                _, ident = entry.bound.pop(address)
                trap = self._traps.by_address.get(address)
                if trap is not None and not still_mapped:
                    trap.inserted = False
                self._forget_address_breakpoint(ident)
            if gone:
                self._events.put(LocationBreakpointChanged(entry.info()))

    def remove_location_breakpoint(self, location_breakpoint_id: int) -> None:
        def go() -> None:
            entry = self._location_breakpoints.pop(location_breakpoint_id, None)
            if entry is None:
                raise TargetError(f"no location breakpoint number {location_breakpoint_id}")
            for _, ident in entry.bound.values():
                self._forget_address_breakpoint(ident)

        self._call(go)

    def location_breakpoints(self) -> list[LocationBreakpointInfo]:
        return self._call(lambda: [entry.info() for entry in self._location_breakpoints.values()])

    def _forget_address_breakpoint(self, ident: int) -> None:
        try:
            self._remove_logical(ident)
        except TargetError:
            pass  # a temporary one that already went

    # --- stepping -------------------------------------------------------------------
    def step(self, thread_id: int, kind: StepKind, level: int = 0) -> None:
        if kind is StepKind.INSTRUCTION:
            self.step_instruction(thread_id)
            return
        def go() -> None:
            inferior = self._require_stopped()
            t = inferior.thread(thread_id)
            pc = int(inferior.regs(t).rip)
            hidden = self._hidden_inline(thread_id)
            if kind is StepKind.INTO and hidden:
                # As gdb: step at an inlined call's first instruction goes into it, no run.
                self._forget_stop_state()
                self._inline_hidden[thread_id] = hidden - 1
                self._events.put(Continued(thread_id, all_threads=True))
                self._events.put(Stopped(StopReason.STEP, thread_id, address=pc))
                return
            plan = StepPlan(kind, thread_id, LineOracle(self, thread_id), inferior, hidden=hidden)
            if kind is StepKind.OUT:
                plan.finish_value = self._return_value_reader(thread_id, level)
                if level > 0:
                    plan.out_of = self._frame_exit(thread_id, level + hidden)
            self._forget_stop_state()
            inferior.locked = thread_id if self.steps_alone else None
            self._events.put(Continued(thread_id, all_threads=not self.steps_alone))
            inferior.start_plan(plan, pc)

        self._call(go)

    def run_until(self, thread_id: int, location: str, anywhere: bool = False) -> None:
        def go() -> None:
            inferior = self._require_stopped()
            t = inferior.thread(thread_id)
            places = self._resolve(location)
            if not places:
                raise ProtocolError(f'No location "{location}" in the program.')
            plan = StepPlan(StepKind.UNTIL, thread_id, LineOracle(self, thread_id), inferior)
            plan.targets = tuple(place.address for place in places)
            plan.anywhere = anywhere
            self._forget_stop_state()
            inferior.locked = thread_id if self.steps_alone else None
            self._events.put(Continued(thread_id, all_threads=not self.steps_alone))
            inferior.start_plan(plan, int(inferior.regs(t).rip))

        self._call(go)

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def step_instruction(self, thread_id: int) -> None:
            raise NotImplementedError

    def _frame_exit(self, thread_id: int, level: int) -> tuple[int, int]:
        """(return address, CFA) of the function at unwound level `level` (inlined calls
        counted): where finishing it lands, and the rsp its return leaves."""
        frames = self._unwound(thread_id, level + 2)
        physical, out = self._physical_level(frames, level)
        if out != len(self._source.inline_chain(frames[physical])):
            raise Unsupported("finish out of an inlined call in an outer frame")
        cfa = frames[physical].cfa
        if physical + 1 >= len(frames) or cfa is None:
            raise ProtocolError('"finish" not meaningful in the outermost frame.')
        return frames[physical + 1].pc, cfa

    def _return_value_reader(self, thread_id: int, level: int = 0) -> Callable[[], VariableInfo | None]:
        """Reads, once the function at `level` has returned, what it returned (by its DWARF type)."""
        try:
            view, symbols, lookup_pc = self._frame_view(thread_id, level)
            scope = symbols.frame_scope(view, lookup_pc=lookup_pc) if symbols else None
            function = scope.function if scope is not None else None
            name = scope.function_name if scope is not None else None
            returns = symbols.function_type(function).return_type if symbols and function else None
        except (EvaluationError, TargetError) as error:
            log.debug("no return type: %s", error)
            returns = None
        if returns is None or symbols is None:
            return lambda: None

        self.call_settings.returned.pop(thread_id, None)  # from an earlier call's return

        def read() -> VariableInfo | None:
            after, _, _ = self._frame_view(thread_id, 0, innermost_only=True)  # registers only
            # Returned into a call's dummy frame: its registers as the function left them.
            regs, vectors = self.call_settings.returned.pop(thread_id, (None, None))
            if vectors is None:
                vectors = register_sets.vector(self._libc, thread_id)
            data, address = return_bytes(returns, regs.values if regs else after.frame.registers, vectors)
            if data is not None:
                value = Value(returns, ImplicitLoc(data), after)
            elif address is not None:
                value = Value(returns, MemoryLoc(address), after)
            else:
                return None
            info = self._variables.describe(f"Value returned by {name or 'the function'}", value, top=True)
            return recorded(info, value, self._session_values(thread_id))  # gdb's finish: $N

        return read


@dataclass(slots=True)
class _LocationBreakpoint:
    id: int
    location: str
    condition: BreakpointCondition | None
    temporary: bool
    enabled: bool
    bound: dict[int, tuple[CodeLocation, int]] = field(default_factory=dict)  # address -> (place, id)

    def info(self) -> LocationBreakpointInfo:
        places = sorted(self.bound.values(), key=lambda pair: pair[0].address)
        return LocationBreakpointInfo(
            self.id, self.location, tuple(place for place, _ in places),
            tuple(ident for _, ident in places), self.enabled, self.temporary,
        )  # fmt: skip
