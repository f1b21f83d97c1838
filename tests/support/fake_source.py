"""The source-level methods of FakeDebugger: a simulated program has functions and
registers but no source, so locations are functions or addresses, frames have no source
position, and expressions are integers and `$registers` compared or added."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Callable, TypeVar

from aliceserver.debuggers import events as ev
from aliceserver.debuggers import model as m
from aliceserver.debuggers.hits import HitPolicy, parse_hit_condition, split_log_message
from aliceserver.debuggers.storage import SymbolStorage
from aliceserver.errors import ProtocolError, TargetError, Unsupported

if TYPE_CHECKING:
    from aliceserver.debuggers.printers.commands import ScriptOutput

T = TypeVar("T")
_TERM = re.compile(r"\s*(\$[a-z0-9]+|0x[0-9a-fA-F]+|\d+)\s*")


class FakeSourceLevel:
    _located: dict[int, m.LocationBreakpointInfo]  # set up by FakeDebugger

    # Provided by FakeDebugger.
    if TYPE_CHECKING:  # provided by the class this is mixed into
        def lookup_symbol(self, name: str) -> int:
            raise NotImplementedError

        def lookup_address(self, address: int) -> m.SymbolLocation:
            raise NotImplementedError

        def backtrace(self, thread_id: int, limit: int = 256) -> list[m.Frame]:
            raise NotImplementedError

        def read_registers(self, thread_id: int) -> m.Registers:
            raise NotImplementedError

        def step_instruction(self, thread_id: int) -> None:
            raise NotImplementedError

        def threads(self, *, details: bool = True) -> list[m.ThreadInfo]:
            raise NotImplementedError

    def resolve_location(self, spec: str) -> list[m.CodeLocation]:
        text = spec.strip()
        if text.startswith("*"):
            try:
                address = int(text[1:], 0)
            except ValueError:
                raise ProtocolError(f"bad address in location {spec!r}") from None
        else:
            try:
                address = self.lookup_symbol(text)
            except TargetError:
                return []
        symbol = self.lookup_address(address)
        return [m.CodeLocation(address, symbol.name, None, symbol.module)]

    def source_position(self, address: int) -> m.SourcePosition | None:
        return None

    def source_files(self) -> list[str]:
        return []

    def source_name(self, path: str) -> str:
        return path

    def has_debug_info(self, module_path: str) -> bool:
        return False

    def symbols_loaded(self, module_path: str) -> bool:
        return True

    def unload_library_symbols(self) -> list[m.Module]:
        return []  # no shared libraries

    def load_library_symbols(self, paths: list[str] | None = None) -> list[m.LibrarySymbolsRead]:
        return []

    def static_probes(self) -> list[m.StaticProbe]:
        return []  # no ELF images

    def compile_unit(self, path: str) -> m.CompileUnitInfo | None:
        return None  # no debug info

    def line_range(self, address: int) -> m.LineRange | None:
        return None  # no source

    def line_start(self, file: str, line: int) -> m.LineRange | None:
        raise ProtocolError(f"No source file named {file}.")

    def line_table(self, file: str) -> list[tuple[int, int]]:
        raise ProtocolError(f"No source file named {file}.")

    def symbol_storage(self, name: str, thread_id: int | None = None, level: int = 0) -> SymbolStorage:
        raise ProtocolError(f'No symbol "{name}" in current context.')

    def scope_storage(self, address: int) -> list[SymbolStorage]:
        return []

    def section_symbol(self, address: int) -> m.SectionSymbol | None:
        return None  # a simulated program has no ELF sections

    def batch(self, fn: Callable[[], T]) -> T:
        return fn()  # no engine thread to hand calls to

    def module_source_files(self, program_only: bool = False) -> list[m.ModuleSourceFiles]:
        return []  # its program has no debug info

    def search_symbols(self, query: m.SymbolSearchQuery) -> m.SymbolSearchResult:
        return m.SymbolSearchResult((), ())  # its functions have no debug info

    def stack_trace(
        self, thread_id: int, start: int = 0, count: int | None = None, *, arguments: bool = False
    ) -> list[m.StackFrame]:
        frames = self.backtrace(thread_id)[start : None if count is None else start + count]
        return [
            m.StackFrame(f.level, f.pc, None, f.symbol.name, None, f.symbol.module, f.symbol,
                         program_main=f.symbol.name == "main")
            for f in frames
        ]

    def frame_registers(self, thread_id: int, level: int) -> Mapping[str, int | None]:
        return dict(self.read_registers(thread_id).values)  # one frame's worth: the fake unwinds none

    def frame_details(self, thread_id: int, level: int) -> m.FrameDetails:
        return m.FrameDetails(None, ())

    def frame_variables(
        self, thread_id: int, level: int, scope: m.VariableScope, *, aggregate_values: bool = True,
        dynamic: m.DynamicTypes = m.DynamicTypes.NONE, entry_values: bool = True,
    ) -> list[m.VariableInfo]:
        if scope is not m.VariableScope.REGISTERS:
            return []
        values = self.read_registers(thread_id).values
        return [m.VariableInfo(name, "long", f"{value:#x}") for name, value in values.items()]

    def variable_children(self, reference: int, start: int = 0, count: int | None = None) -> list[m.VariableInfo]:
        raise ProtocolError(f"no variable reference {reference}")

    def _value(self, text: str, thread_id: int) -> int:
        total = 0
        for sign, term in re.findall(r"([+-]?)([^+-]+)", text.replace(" ", "")):
            match = _TERM.fullmatch(term)
            if match is None:
                raise ProtocolError(f'No symbol "{term}" in current context.')
            word = match.group(1)
            if word.startswith("$"):
                values = self.read_registers(thread_id).values
                if word[1:] not in values:
                    raise ProtocolError(f'No symbol "{word}" in current context.')
                number = values[word[1:]]
            else:
                number = int(word, 0)
            total += -number if sign == "-" else number
        return total

    def set_call_options(self, *, unwind_on_signal: bool | None = None, may_call: bool | None = None,
                         strict_types: bool | None = None) -> None:
        pass  # the simulated program has no functions to call: evaluate never calls

    def set_scheduler_locking(self, *, steps_alone: bool) -> None:
        pass  # a simulated program has one thread

    def set_backtrace_past_main(self, on: bool) -> None:
        pass  # the simulated frames have no entry values

    def set_print_limits(self, *, elements: int, repeats: int, addresses: bool = True,
                         array_indexes: bool = False, output_radix: int = 10,
                         input_radix: int = 10, nibbles: str = "", symbols: bool = True,
                         null_stop: bool = False, ascii: bool = False) -> None:
        pass  # the simulated values are short numbers: no limit shortens them

    def set_default_source(self, source: Callable[[], str | None]) -> None:
        pass  # the simulated program has one unit: no file's names come first

    def evaluate(
        self, expression: str, thread_id: int | None = None, level: int = 0, fmt: str | None = None,
        *, dynamic: m.DynamicTypes = m.DynamicTypes.NONE, type_only: bool = False, calls: bool = True,
        record: bool = False,
    ) -> m.VariableInfo:
        tid = thread_id if thread_id is not None else self._first_thread()
        left, equal, right = expression.partition("==")
        value = self._value(left, tid)
        if equal:
            value = int(value == self._value(right, tid))
        history = 0
        if record:  # numbers only: the fake keeps no values
            self._history_count = history = getattr(self, "_history_count", 0) + 1
        return m.VariableInfo(expression, "long", f"{value:#x}" if fmt == "x" else str(value), history=history)

    def history_count(self) -> int:
        return int(getattr(self, "_history_count", 0))

    def convenience_names(self) -> list[str]:
        return []

    def set_examined(self, address: int, size: int, contents: bytes | None) -> None:
        pass  # the fake has no convenience variables to set

    def run_python(
        self, code: str | None, path: str | None = None, thread_id: int | None = None, level: int = 0
    ) -> ScriptOutput:
        raise Unsupported("Python scripting is not supported in this copy of GDB.")

    def describe_type(
        self, expression: str, thread_id: int | None = None, level: int = 0, *, raw: bool = False,
        flags: str = "",
    ) -> str:
        described = self.evaluate(expression, thread_id, level).type
        return f"type = {described}" if "o" in flags else described

    def printed_type_name(self, expression: str, thread_id: int | None = None, level: int = 0) -> str | None:
        return None

    def vtables(self, expression: str, thread_id: int, level: int = 0) -> list[m.VtableInfo]:
        raise Unsupported("the fake debugger has no C++ objects")

    def expression_condition(self, expression: str) -> Callable[[int], bool]:
        if not expression.strip():
            raise ProtocolError("empty condition")
        return lambda tid: self.evaluate(expression, tid).value not in ("0", "0x0")

    def condition_problem(self, expression: str, address: int) -> str | None:
        return None  # the fake program's names are all global

    def breakpoint_condition(
        self,
        condition: str | None = None,
        hit_condition: str | None = None,
        log_message: str | None = None,
    ) -> Callable[[int], bool]:
        policy = HitPolicy(
            condition=self.expression_condition(condition) if condition else None,
            hit_condition=parse_hit_condition(hit_condition) if hit_condition else None,
        )
        if log_message is not None:
            parts = split_log_message(log_message)
            policy.log = lambda tid: "".join(
                self.evaluate(text, tid).value if is_expression else text for text, is_expression in parts
            ) + "\n"
            policy.emit = lambda line: self.post(ev.Output("console", line))
        return policy

    def _first_thread(self) -> int:
        threads = self.threads()
        if not threads:  # as the engine says it
            raise TargetError("The program is not being run.")
        return threads[0].tid

    def watch_expression(
        self, expression: str, kind: m.WatchKind, thread_id: int | None = None, level: int = 0
    ) -> m.WatchpointInfo:
        # The simulated program has no variables: an expression is an address.
        tid = thread_id if thread_id is not None else self._first_thread()
        return self.insert_watchpoint(int(self.evaluate(expression, tid).value, 0), 8, kind)

    def watch_scope(
        self, expression: str, thread_id: int | None = None, level: int = 0
    ) -> m.WatchScope | None:
        return None  # no variables, no frames: every expression is an address

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def insert_watchpoint(
            self, address: int, size: int, kind: m.WatchKind, scope: m.WatchScope | None = None
        ) -> m.WatchpointInfo:
            raise NotImplementedError

        def post(self, event: ev.Event) -> None:
            raise NotImplementedError

    def insert_location_breakpoint(
        self,
        location: str,
        *,
        condition: Callable[[int], bool] | None = None,
        temporary: bool = False,
        enabled: bool = True,
    ) -> m.LocationBreakpointInfo:
        # The simulated program loads no libraries: what resolves now is all there will be.
        places = tuple(self.resolve_location(location))
        ids = tuple(
            self.insert_breakpoint(p.address, temporary=temporary, enabled=enabled, condition=condition).id
            for p in places
        )
        info = m.LocationBreakpointInfo(len(self._located) + 1, location, places, ids, enabled, temporary)
        self._located[info.id] = info
        return info

    def remove_location_breakpoint(self, location_breakpoint_id: int) -> None:
        info = self._located.pop(location_breakpoint_id, None)
        if info is None:
            raise TargetError(f"no location breakpoint number {location_breakpoint_id}")
        for ident in info.breakpoint_ids:
            self.remove_breakpoint(ident)

    def enable_location_breakpoint(self, location_breakpoint_id: int, enabled: bool) -> None:
        info = self._located[location_breakpoint_id]  # (no library loads here: nothing binds later)
        self._located[location_breakpoint_id] = dataclasses.replace(info, enabled=enabled)

    def location_breakpoints(self) -> list[m.LocationBreakpointInfo]:
        return list(self._located.values())

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def insert_breakpoint(
            self,
            address: int,
            *,
            temporary: bool = False,
            enabled: bool = True,
            condition: Callable[[int], bool] | None = None,
        ) -> m.BreakpointInfo:
            raise NotImplementedError

        def remove_breakpoint(self, breakpoint_id: int) -> None:
            raise NotImplementedError

    def run_until(self, thread_id: int, location: str, anywhere: bool = False, level: int = 0) -> None:
        places = self.resolve_location(location)
        if not places:
            raise ProtocolError(f'No location "{location}" in the program.')
        self.insert_breakpoint(places[0].address, temporary=True)
        self.resume()

    if TYPE_CHECKING:  # provided by the class this is mixed into
        def resume(self, thread_id: int | None = None, *, jumped: int | None = None) -> None:
            raise NotImplementedError

    def step(self, thread_id: int, kind: m.StepKind, level: int = 0) -> None:
        # Without lines, every kind of step is one instruction.
        self.step_instruction(thread_id)
