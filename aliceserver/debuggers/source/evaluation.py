"""Expressions over a stopped thread's frame, written once over the process interface:
gdb's print, ptype and whatis, breakpoint conditions and log messages, watched
expressions, Python run in a frame, and the print settings."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.events import Output
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.hits import HitPolicy, parse_hit_condition, split_log_message
from aliceserver.debuggers.model import DynamicTypes, Module, VariableInfo, VtableInfo, WatchScope
from aliceserver.debuggers.source.dollars import SessionDollars, recorded
from aliceserver.debuggers.source.frames import MAX_FRAMES, Frames
from aliceserver.debuggers.source.registerlists import RegisterLists
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.debuggers.source.tailframes import TAIL_CALL
from aliceserver.debuggers.source.variables import (
    ProcessEvalSymbols,
    VariableStore,
    evaluate,
    parse_condition,
)
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.types import Type, is_float, type_name
from aliceserver.errors import ProtocolError, TargetError, Unsupported

if TYPE_CHECKING:
    from elftools.dwarf.compileunit import CompileUnit
    from elftools.dwarf.die import DIE

    from aliceserver.debuggers.printers.commands import ScriptOutput
    from aliceserver.debuggers.symbols.dwarf.expr.ast import Expr
    from aliceserver.debuggers.symbols.dwarf.expr.calls import FunctionCaller
    from aliceserver.debuggers.symbols.dwarf.values import Value

# What calls `f(x)` in expressions on a thread (None: no live process to call in).
Callers = Callable[[int], "FunctionCaller | None"]
# The backend's condition over a parsed expression and its general (evaluating) path:
# it may compile the expression per address (ptrace/conditions.py).
Conditions = Callable[["str | Expr", Callable[[int], bool]], BreakpointCondition]


class Expressions:
    strict_types = True  # gdb's check type: see set_call_options
    default_source: Callable[[], str | None] | None = None  # see IDebugger.set_default_source

    def __init__(
        self, engine: EngineServices, frames: Frames, values: VariableStore, stop_cache: StopCache,
        dollars: SessionDollars, events: EventSource, *, callers: Callers, conditions: Conditions,
    ) -> None:  # fmt: skip
        self._engine = engine
        self._frames = frames
        self._values = values
        self._stop_cache = stop_cache
        self._dollars = dollars
        self._events = events
        self._callers = callers
        self._conditions = conditions
        self.register_lists = RegisterLists(engine, frames, self, values, dollars)

    @property
    def _source(self) -> SourceSymbols:
        return self._engine.source_symbols

    def eval_symbols(
        self, thread_id: int, level: int, *, innermost_only: bool = False
    ) -> ProcessEvalSymbols:
        view, symbols, lookup_pc = self._frames.frame_view(thread_id, level, innermost_only=innermost_only)
        from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols  # see variables.py

        # Before `run` gdb has read the program's symbols alone and has no frame: the held
        # process's frame (in ld.so) and ld.so's names are none of the user's.
        program_only = self._engine.program_only()
        if program_only:  # (and no memory but the program's image)
            view = replace(view, read=partial(self._program_read, view.read))
        frame_symbols = None
        if symbols is not None and not self._engine.held_for_symbols():
            scope = symbols.frame_scope(view, lookup_pc=lookup_pc, inline_outer=view.inline_outer)
            frame_symbols = FrameSymbols(symbols, view, scope)
        own = symbols if frame_symbols is not None else None
        def others() -> list[tuple[int, ModuleSymbols]]:
            found = self._source.all_module_symbols()
            return [(module.base, candidate) for module, candidate in found
                    if candidate is not own and (module.is_main or not program_only)]  # fmt: skip

        printers = self._values.printers
        methods = printers.methods(view) if printers is not None else None  # C++ xmethods
        def frame_names() -> list[str]:
            """Also while a condition is tested (the program not halted for the user yet)."""
            frames = self._frames.with_tail_calls(thread_id, MAX_FRAMES)
            shown: list[str] = []
            for index, unwound in enumerate(frames):
                made = self._stop_cache.shown_frames(thread_id, frames, index, self._source.stack_frames)
                made = made[:1] if unwound.method == TAIL_CALL else made  # one frame, as in backtraces
                shown += [frame.function or "" for frame in made]
                if not self._frames.past_main and any(frame.program_main for frame in made):
                    break  # gdb's frame.older() of main: None
            return shown[level:]

        from aliceserver.debuggers.source.datasymbols import data_symbol

        return ProcessEvalSymbols(frame_symbols, others, view, self._values.rtti, methods=methods,
                                  calls=self._callers(thread_id), frame_names=frame_names,
                                  as_text=self._values.as_text,
                                  functions=partial(self._source.function_symbol, program_only=program_only),
                                  data=partial(data_symbol, self._source, program_only=program_only),
                                  input_radix=self._values.input_radix, strict_types=self.strict_types,
                                  unit=self._program_unit() if frame_symbols is None else None,
                                  home=self._home_unit() if frame_symbols is None else None)  # fmt: skip

    def _home_unit(self) -> tuple[ModuleSymbols, CompileUnit] | None:
        """The program's unit of gdb's current source file (`list`'s), whose statics and
        types come first without a frame; None before a file is listed."""
        path = self.default_source() if self.default_source is not None else None
        if path is None:
            return None
        main = next((module for module in self._source.symbols.modules() if module.is_main), None)
        info = self._source.debug_info(main) if main is not None else None
        offset = info.unit_offset_of_file(path) if info is not None else None
        symbols = self._source.module_symbols(main) if main is not None and offset is not None else None
        if symbols is None or offset is None:
            return None
        return symbols, symbols.units.cu_at_offset(offset)

    def _program_read(self, read: Callable[[int, int], bytes], address: int, size: int) -> bytes:
        gap = self._engine.program_gap(address, size)
        if gap is not None:
            raise TargetError(f"Cannot access memory at address {gap:#x}")
        return read(address, size)

    def _program_unit(self) -> DIE | None:
        """The unit holding the program's `main` (gdb's default symtab without a frame)."""
        main = next((module for module in self._source.symbols.modules() if module.is_main), None)
        image = self._source.symbols.image_of(main.path) if main is not None else None
        symbols = self._source.module_symbols(main) if main is not None else None
        entry = image.find_symbol("main") if image is not None else None
        if main is None or symbols is None or entry is None:
            return None
        unit = symbols.units.cu_for_address(entry.address)
        if unit is None:  # rustc's C `main` has no unit: gdb takes the crate's `main`
            info = self._source.debug_info(main)  # (its DW_AT_main_subprogram)
            crate_mains = [f for f in info.functions_named("main") if f.name.count("::") == 1] if info else []
            unit = symbols.units.cu_for_address(crate_mains[0].low) if len(crate_mains) == 1 else None
        return unit.get_top_DIE() if unit is not None else None


    def set_print_limits(self, *, elements: int, repeats: int, addresses: bool = True,
                         array_indexes: bool = False, output_radix: int = 10,
                         input_radix: int = 10, nibbles: str = "", symbols: bool = True,
                         null_stop: bool = False, ascii: bool = False, static_members: bool = True,
                         max_depth: int = 20, unions: bool = True) -> None:
        self._values.max_elements, self._values.repeat_threshold = elements, repeats
        self._values.addresses, self._values.array_indexes = addresses, array_indexes
        self._values.output_format = {16: "x", 8: "o"}.get(output_radix)
        self._values.input_radix = input_radix
        self._values.nibbles, self._values.symbols, self._values.null_stop = nibbles, symbols, null_stop
        self._values.ascii = ascii
        self._values.static_members, self._values.max_depth = static_members, max_depth
        self._values.unions = unions
        self._stop_cache.values_changed()  # values already formatted under the old limits


    def evaluate(
        self, expression: str, thread_id: int | None = None, level: int = 0, fmt: str | None = None,
        *, dynamic: DynamicTypes = DynamicTypes.NONE, type_only: bool = False, calls: bool = True,
        record: bool = False,
    ) -> VariableInfo:
        def go() -> VariableInfo:
            if thread_id is None and not self._engine.has_target():
                return without_program()
            tid = self._frames.default_thread(thread_id)
            rtti = self._values.rtti if dynamic & DynamicTypes.MEMBERS else None
            symbols = self.eval_symbols(tid, level)
            if not calls:
                symbols.calls = None
            # No thread and no calls: MI before `run`, reading the program held at its first
            # instruction for its symbols: it has no registers and no thread for gdb yet.
            before_run = thread_id is None and not calls
            symbols.no_registers = before_run
            held = self._engine.link_view() if before_run else None
            if held is not None:  # the program's globals and functions at link-time addresses
                others = symbols.others
                symbols.others = lambda: [(0 if bias == held.base else bias, found) for bias, found in others()]
                functions, data = symbols.functions, symbols.data
                if functions is not None:
                    symbols.functions = lambda name: self._link_address(functions(name), held)
                if data is not None:
                    symbols.data = lambda name: self._link_address(data(name), held)
            values = self._dollars.values(None if before_run else tid)
            warnings: list[str] = []
            symbols.warn = warnings.append
            try:
                value = evaluate(expression, symbols, rtti, type_only=type_only, values=values)
            except EvaluationError as error:  # gdb's words for a name where no debug info is
                if str(error).startswith('No symbol "') and not self._symbol_table(before_run):
                    from aliceserver.debuggers.symbols.dwarf.expr.noprogram import NO_SYMBOL_TABLE

                    raise EvaluationError(NO_SYMBOL_TABLE) from None
                raise
            if type_only:
                from aliceserver.debuggers.symbols.dwarf.expr import whatis_value

                info = self._values.describe_type_only(expression, whatis_value(expression, value, symbols), dynamic)
            else:
                info = self._values.describe(expression, value, fmt, top=True, dynamic=dynamic)
            info = replace(info, warnings=tuple(warnings)) if warnings else info
            if type_only:
                return info
            return recorded(info, value, values) if record else info

        def without_program() -> VariableInfo:
            """No file loaded: gdb's literals, types and $ values, in gdb's own memory."""
            from aliceserver.debuggers.symbols.dwarf.expr.noprogram import NoProgramSymbols

            values = self._dollars.values()
            value = evaluate(expression, NoProgramSymbols(input_radix=self._values.input_radix), type_only=type_only, values=values)
            if type_only:
                return self._values.describe_type_only(expression, value, DynamicTypes.NONE)
            info = self._values.describe(expression, value, fmt, top=True)
            return recorded(info, value, values) if record else info

        return self._engine.run_on_engine(go)

    def _symbol_table(self, before_run: bool) -> bool:
        """gdb's have_full_symbols: whether a loaded module has debug info (before `run`,
        gdb has loaded the program alone)."""
        found = self._source.all_module_symbols()
        return any(module.is_main for module, _ in found) if before_run else bool(found)

    @staticmethod
    def _link_address(address: int | None, held: Module) -> int | None:
        """A runtime address of the held program's image at its link-time address."""
        if address is not None and held.low <= address < held.high:
            return address - held.base
        return address

    def find_class(self, name: str) -> Type | None:
        """A class by its qualified name in any module (a dynamic type's, from its vtable)."""
        for _module, symbols in self._source.all_module_symbols():
            found = symbols.find_type(name)
            if found is not None:
                return found
        return None

    def run_python(
        self, code: str | None, path: str | None = None, thread_id: int | None = None, level: int = 0
    ) -> ScriptOutput:
        printers = self._values.printers
        if printers is None:
            raise Unsupported("Python scripting is not supported in this copy of GDB.")

        def go() -> ScriptOutput:
            try:
                self._engine.halted_target()
            except TargetError:  # no program yet, or running: the code runs without a frame
                return printers.run_script(path, code, None)
            frame = self._frames.frame_view(self._frames.default_thread(thread_id), level)[0]
            return printers.run_script(path, code, frame)

        return self._engine.run_on_engine(go)

    def describe_type(
        self, expression: str, thread_id: int | None = None, level: int = 0, *, raw: bool = False,
        flags: str = "",
    ) -> str:
        def go() -> str:
            tid = self._frames.default_thread(thread_id)
            values = self._dollars.values(tid)  # `$x`, `$_siginfo`: the session's, as print's
            symbols = self.eval_symbols(tid, level)
            t = evaluate(expression, symbols, type_only=True, values=values).type
            # ptype's modules: imported by the first ptype (a first stop shows no type)
            from aliceserver.debuggers.symbols.dwarf.ptype import (
                ptype_text,
                resolved_base,
                under_declarator,
            )
            from aliceserver.debuggers.symbols.dwarf.ptype_cplus import cplus_ptype
            from aliceserver.debuggers.symbols.dwarf.ptype_offsets import (
                names_typedef,
                offsets_text,
            )

            text = ptype_text(t)
            base = resolved_base(t)  # a C++ class keeps its name: the type printers' one
            shown = None if raw or base is None or under_declarator(t) else self._type_printers_name(base, tid, level)
            if "o" in flags:  # ptype/o: the whole line, gdb's header and `type = ` included
                laid = offsets_text(t, "x" in flags, not names_typedef(expression, symbols))
                if laid is None or base is None or shown in (None, type_name(base)):
                    return laid or "type = " + text
                return laid[:laid.index("type = ")] + "type = " + text.replace(type_name(base), shown, 1)
            if base is not None and shown in (None, type_name(base)):  # no type printer names it: its body
                rename = (lambda u: self._type_printers_name(u, tid, level))  # noqa: E731
                return cplus_ptype(t, flags + ("r" if raw else ""), rename) or text
            return text if base is None or shown is None else text.replace(type_name(base), shown, 1)

        return self._engine.run_on_engine(go)

    def printed_type_name(self, expression: str, thread_id: int | None = None, level: int = 0) -> str | None:
        def go() -> str | None:
            tid = self._frames.default_thread(thread_id)
            values = self._dollars.values(tid)  # `$x`, `$_siginfo`: the session's, as print's
            t = evaluate(expression, self.eval_symbols(tid, level), type_only=True, values=values).type
            shown = self._type_printers_name(t, tid, level)
            return None if shown == type_name(t) else shown

        return self._engine.run_on_engine(go)

    def _type_printers_name(self, t: Type, tid: int, level: int) -> str | None:
        printers = self._values.printers
        if printers is None:
            return None
        return printers.type_name(t, self._frames.frame_view(tid, level)[0])

    def vtables(self, expression: str, thread_id: int, level: int = 0) -> list[VtableInfo]:
        from aliceserver.debuggers.symbols.dwarf.vtables import vtables  # used rarely

        def go() -> list[VtableInfo]:
            value = evaluate(expression, self.eval_symbols(thread_id, level))
            try:
                return vtables(value, self._engine.symbolize)
            except EvaluationError as error:
                raise ProtocolError(str(error)) from None

        return self._engine.run_on_engine(go)

    def expression_condition(self, expression: str) -> BreakpointCondition:
        tree = parse_condition(expression)  # a typo is reported now, not at every hit

        def general(tid: int) -> bool:
            value = evaluate(tree, self.eval_symbols(tid, 0, innermost_only=True))
            return value.as_float() != 0.0 if is_float(value.type) else value.as_int() != 0

        return self._conditions(tree, general)  # the backend compiles it per address where it can

    def condition_problem(self, expression: str, address: int) -> str | None:
        from aliceserver.debuggers.source.condition_scope import unknown_name

        tree = parse_condition(expression)  # a syntax error is raised, as at every address
        if isinstance(tree, str):  # parsed per frame (a typedef cast, Rust): not checked here
            return None
        return self._engine.run_on_engine(lambda: unknown_name(self._source, tree, address))

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

            def shown(text: str, tid: int) -> tuple[Value, str]:
                value = evaluate(text, self.eval_symbols(tid, 0, innermost_only=True))
                return value, self._values.describe(text, value).value

            from aliceserver.debuggers.source.logmessages import LogMessage

            message = LogMessage(parts, shown, self.expression_condition)
            policy.log = message.render
            policy.log_spec = message.logged  # numbers the program may record (a jump patch)
            policy.emit = lambda line: self._events.put(Output("console", line))
        return policy


    def watch_scope(self, expression: str, thread_id: int | None = None, level: int = 0) -> WatchScope | None:
        return self._engine.run_on_engine(lambda: self.watch_target(expression, thread_id, level)[1])

    def watch_target(self, expression: str, thread_id: int | None,
                     level: int) -> tuple[list[tuple[int, int]], WatchScope | None]:  # fmt: skip
        """The memory a watch on `expression` watches, (address, size) each: an lvalue's
        own, else what the expression reads (watchchain.py); and the frame it dies with."""
        tid = self._frames.default_thread(thread_id)
        from aliceserver.debuggers.source.watchnames import NameRecorder

        symbols = NameRecorder(self.eval_symbols(tid, level))
        value = evaluate(expression, symbols)
        from aliceserver.debuggers.symbols.dwarf.types import FunctionType, strip

        if isinstance(strip(value.type), FunctionType):  # code does not change: gdb's words
            raise ProtocolError(f"Cannot watch constant value `{expression}'.")
        if value.address is not None:
            regions = [(value.address, value.byte_size)]
        else:
            from aliceserver.debuggers.source.watchchain import fixed_regions
            from aliceserver.debuggers.symbols.dwarf.expr.entry import parse_expression

            tree = parse_expression(expression, symbols)
            regions = fixed_regions(tree, lambda node: evaluate(node, symbols), expression)
        cfa = symbols.frame.frame.cfa
        scope = WatchScope(tid, cfa) if cfa is not None and symbols.uses_frame() else None
        return regions, scope
