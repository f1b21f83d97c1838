"""Symbol and line-table queries (an object the engine composes): where a line's
code starts and ends, where a symbol is stored and the symbols of a scope. They answer
gdb's `info line`, `info address` and `info scope` (`rbreak` lists `info functions`'
search: symbolsearch.py).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.debuggers.model import SourcePosition
from aliceserver.debuggers.source.debugfilesyms import debug_file_symbols
from aliceserver.debuggers.source.pcanswers import PcAnswers
from aliceserver.debuggers.source.services import EngineServices, FrameViews, LinkView
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.storage import DwarfExpression, LocationEntry, StorageKind, SymbolStorage
from aliceserver.debuggers.symbols.dwarf.dies import attr_value, language_name
from aliceserver.debuggers.symbols.dwarf.funcnames import rust_function_name, symbol_names
from aliceserver.debuggers.symbols.dwarf.locexpr import ByteReader, EvaluationError
from aliceserver.debuggers.symbols.dwarf.names import Demangler
from aliceserver.debuggers.symbols.dwarf.opdecode import decode_expression
from aliceserver.debuggers.symbols.dwarf.physname import c_function_name, function_entered_at
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.type_builder import TypeBuilder, is_rust
from aliceserver.debuggers.symbols.dwarf.types import strip
from aliceserver.debuggers.symbols.dwarf.variable import Variable, VarKind
from aliceserver.debuggers.symbols.sdt import read_probes
from aliceserver.errors import AliceError, ProtocolError

if TYPE_CHECKING:  # made here, imported where made (model_symbols.py: not at a first stop)
    from aliceserver.debuggers.model_symbols import (
        CompileUnitInfo,
        LineRange,
        StaticProbe,
    )

log = logging.getLogger(__name__)

_DW_OP_ADDR, _DW_OP_ADDRX = 0x03, 0xA1
_FUNCTION_TAGS = ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine")
_MASK64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class _Link:
    """The little of a FrameContext that finding the scope at an address needs."""

    pc: int
    load_bias: int


def _text(value: object) -> str:
    """A DWARF string attribute's value ("" when absent)."""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value or "")


class SymbolQueries:
    def __init__(self, engine: EngineServices, frame_view: FrameViews, link_view: LinkView) -> None:
        self._engine = engine
        self._call = engine.run_on_engine
        self._frame_view = frame_view
        self._link_view = link_view
        self._line_ranges: PcAnswers[LineRange | None] = PcAnswers(lambda: self._source, engine.run_on_engine)

    @property
    def _source(self) -> SourceSymbols:
        return self._engine.source_symbols

    # --- line tables ------------------------------------------------------------------
    def has_debug_info(self, module_path: str) -> bool:
        def go() -> bool:
            found = [m for m in self._source.symbols.modules() if m.path == module_path]
            return bool(found) and self._source.debug_info(found[0]) is not None

        return self._call(go)

    def static_probes(self) -> list[StaticProbe]:
        def go() -> list[StaticProbe]:
            from aliceserver.debuggers.model_symbols import StaticProbe

            return [
                StaticProbe(probe.provider, probe.name, module.base + probe.address, probe.semaphore, module.path)
                for module in self._source.symbols.modules() for probe in read_probes(module.path)
            ]  # fmt: skip

        return self._call(go)

    def compile_unit(self, path: str) -> CompileUnitInfo | None:
        return self._call(lambda: self._compile_unit(path))

    def _compile_unit(self, path: str) -> CompileUnitInfo | None:
        from aliceserver.debuggers.model_symbols import CompileUnitInfo

        for module, info in self._source.debug_infos():
            offset = info.unit_offset_of_file(path)
            symbols = self._source.module_symbols(module) if offset is not None else None
            if offset is None or symbols is None:
                continue
            unit = symbols.units.cu_at_offset(offset)
            top = unit.get_top_DIE()
            return CompileUnitInfo(
                comp_dir=_text(attr_value(top, "DW_AT_comp_dir")),
                producer=_text(attr_value(top, "DW_AT_producer")),
                dwarf_version=int(unit.header["version"]),
                language=language_name(attr_value(top, "DW_AT_language")),
                has_macros=any(name in top.attributes for name in ("DW_AT_macros", "DW_AT_macro_info",
                                                                   "DW_AT_GNU_macros")),
            )  # fmt: skip
        return None

    def line_range(self, address: int) -> LineRange | None:
        if self._engine.hidden(address):  # before run: not the program's
            return None
        return self._line_ranges.answer(address, lambda: self._line_range(address))  # pcanswers.py

    def _line_range(self, address: int) -> LineRange | None:
        runtime = self._engine.runtime_address(address)  # before run: a link-time one too
        row = self._source.line_row(runtime)
        if row is None:
            return None
        start, end, where, is_stmt = row
        moved = runtime - address  # the row in the caller's addresses (link-time ones before run)
        from aliceserver.debuggers.model_symbols import LineRange

        return LineRange(start - moved, end - moved, SourcePosition(where.path, where.line), is_stmt)

    def line_start(self, file: str, line: int) -> LineRange | None:
        def go() -> LineRange | None:
            known = False
            for module, info in self._source.debug_infos():
                if not info.match_file(file):
                    continue
                known = True
                link = info.line_start(file, line)
                if link is not None:
                    return self._line_range(link + module.base)
            if not known:
                raise ProtocolError(f"No source file named {file}.")
            return None

        return self._call(go)

    def line_table(self, file: str) -> list[tuple[int, int]]:
        def go() -> list[tuple[int, int]]:
            held = self._link_view()  # before run: the program at link-time addresses
            for module, info in self._source.debug_infos():
                table = info.line_table(file)
                if table is not None:
                    base = 0 if held is not None and module.base == held.base else module.base
                    return [(address + base, line) for address, line in table]
            raise ProtocolError(f"No source file named {file}.")

        return self._call(go)

    # --- symbols ----------------------------------------------------------------------
    def symbol_storage(self, name: str, thread_id: int | None = None, level: int = 0) -> SymbolStorage:
        def go() -> SymbolStorage:
            if thread_id is not None:
                view, symbols, lookup_pc = self._frame_view(thread_id, level)
                scope = symbols.frame_scope(view, lookup_pc=lookup_pc, inline_outer=view.inline_outer) \
                    if symbols is not None else None
                found = scope.lookup(name) if scope is not None else None
                module_path = scope.rust_module if scope is not None and found is None and "::" not in name else None
                if symbols is not None and module_path:  # Rust: a bare name in the frame's module
                    found = symbols.find_global(f"{module_path}::{name}")
                if symbols is not None and found is not None and _called(found, name):
                    return _storage(symbols, found, view.load_bias)
            program_only = self._engine.program_only()  # before `run`: the program's names alone
            for module, symbols in self._source.all_module_symbols():
                found = symbols.find_global(name) if module.is_main or not program_only else None
                if found is not None and _called(found, name):
                    return _storage(symbols, found, module.base)
            if program_only:  # its own symbol, else its PLT stub (gdb's trampoline symbol)
                address = self._source.symbols.lookup_name(name, main_only=True)
                if address is None:
                    address = self._source.function_symbol(name, True)
            else:
                address = self._source.symbols.lookup_name(name)
            if address is None:  # a name only a separate debug file's table holds: the last
                # module's, as gdb's found_minimal_symbols::maybe_collect keeps
                local = debug_file_symbols(self._source, name, False, program_only)
                address = next(reversed(local), None)
            if address is not None:
                return self._c_function(name, address) or SymbolStorage(name, StorageKind.NO_DEBUG_INFO, address=address)
            raise ProtocolError(f'No symbol "{name}" in current context.')

        return self._call(go)

    def _c_function(self, name: str, address: int) -> SymbolStorage | None:
        """A C function gdb knows by its assembler name (`__GI_raise`, the ELF `raise`)."""
        module = self._source.symbols.module_at(address)
        symbols = self._source.module_symbols(module) if module is not None else None
        die = function_entered_at(symbols, address - module.base) if module and symbols else None
        if module is None or symbols is None or die is None or c_function_name(die) != name:
            return None
        return _storage(symbols, Variable(name, VarKind.FUNCTION, die, symbols.function_type(die)), module.base)

    def function_ranges(self, address: int) -> list[tuple[int, int]] | None:
        """The runtime ranges of the DWARF function holding `address`, in DW_AT_ranges'
        order (the entry's first); None where no function with debug info holds it."""

        def go() -> list[tuple[int, int]] | None:
            if self._engine.hidden(address):
                return None
            runtime = self._engine.runtime_address(address)  # before run: a link-time one too
            module = self._source.symbols.module_at(runtime)
            symbols = self._source.module_symbols(module) if module is not None else None
            if module is None or symbols is None:
                return None
            cu = symbols.units.cu_for_address(runtime - module.base)
            found = symbols.units.function_die_at(cu, runtime - module.base) if cu is not None else None
            ranges = symbols.units.die_ranges(found.subprogram) if found is not None else []
            base = module.base - (runtime - address)  # in the caller's addresses
            return [(low + base, high + base) for low, high in ranges] or None

        return self._call(go)

    def scope_storage(self, address: int) -> list[SymbolStorage]:
        def go() -> list[SymbolStorage]:
            module = self._source.symbols.module_at(address)
            symbols = self._source.module_symbols(module) if module is not None else None
            if module is None or symbols is None:
                return []
            scope = symbols.frame_scope(_Link(address, module.base), lookup_pc=address)  # type: ignore[arg-type]
            if scope is None:
                return []
            blocks = scope.scopes
            functions = [i for i, block in enumerate(blocks) if block.tag in _FUNCTION_TAGS]
            found: list[SymbolStorage] = []
            for block in reversed(blocks[functions[-1] if functions else 0 :]):
                variables = [*scope._vars_of(block, True), *scope._vars_of(block, False)]
                for var in sorted(variables, key=lambda v: v.position):
                    found.append(_storage(symbols, var, module.base))
            return found

        return self._call(go)


def _called(var: Variable, name: str) -> bool:
    """gdb's C function is called by its assembler name (`__GI_raise`) alone."""
    return var.kind is not VarKind.FUNCTION or c_function_name(var.die) in (None, name)


def _storage(symbols: ModuleSymbols, var: Variable, bias: int) -> SymbolStorage:
    die = var.die
    try:
        size = strip(var.type).size if var.kind is not VarKind.FUNCTION else 0
    except (AliceError, AttributeError):
        size = 0
    if var.kind is VarKind.FUNCTION:
        ranges = symbols.units.die_ranges(die)
        return SymbolStorage(_print_name(var), StorageKind.FUNCTION, address=ranges[0][0] + bias if ranges else None)
    if var.kind is VarKind.CONSTANT or "DW_AT_const_value" in die.attributes:
        value = attr_value(die, "DW_AT_const_value")
        return SymbolStorage(var.name, StorageKind.CONSTANT, size, value=value if isinstance(value, int) else None)
    attr = die.attributes.get("DW_AT_location")
    if attr is None:
        symbol = symbols.declared_symbol(var) if var.kind is VarKind.GLOBAL else None
        if symbol is not None:  # an extern declaration: the symbol's address
            return SymbolStorage(var.name, StorageKind.STATIC, size, address=symbol.address + bias)
        return SymbolStorage(var.name, StorageKind.OPTIMIZED_OUT, size)
    frame_base = DwarfExpression()
    if var.frame_function is not None:
        base = var.frame_function.attributes.get("DW_AT_frame_base")
        if base is not None and isinstance(base.value, (bytes, list)):
            frame_base = decode_expression(bytes(base.value))
    if isinstance(attr.value, int):  # a location list
        entries = _location_list(symbols, die, attr.value, bias)
        return SymbolStorage(var.name, StorageKind.LOCATION_LIST, size, entries=entries, frame_base=frame_base)
    expression = bytes(attr.value or b"")
    static = _static_address(symbols, die, expression)
    if static is not None:
        return SymbolStorage(var.name, StorageKind.STATIC, size, address=static + bias)
    return SymbolStorage(
        var.name, StorageKind.COMPUTED, size, expression=decode_expression(expression), frame_base=frame_base
    )


def _print_name(function: Variable) -> str:
    """gdb's print name of a function's symbol: C++'s with its parameters
    (`checkout(Shop&, int)`), Rust's inside its namespaces, else its name."""
    named = symbol_names(function.die, TypeBuilder(), Demangler().demangle)
    if named is not None:
        return named[0]
    return (rust_function_name(function.die) if is_rust(function.die) else None) or function.name


def _static_address(symbols: ModuleSymbols, die: object, expression: bytes) -> int | None:
    """The link-time address of a location that is one DW_OP_addr(x) (gdb's LOC_STATIC)."""
    if len(expression) == 9 and expression[0] == _DW_OP_ADDR:
        return int.from_bytes(expression[1:], "little")
    if expression[:1] == bytes([_DW_OP_ADDRX]):
        reader = ByteReader(expression, 1)
        index = reader.uleb()
        if reader.at_end():
            return symbols.units.addrx(die.cu, index)  # type: ignore[attr-defined]
    return None


def _location_list(symbols: ModuleSymbols, die: object, offset: int, bias: int) -> tuple[LocationEntry, ...]:
    """Every entry of the location list at `offset`, its ranges at runtime addresses."""
    cu = die.cu  # type: ignore[attr-defined]
    base = symbols.units.cu_base(cu)
    entries: list[LocationEntry] = []
    shown_base: int | None = None
    try:
        if cu.header.version < 5:
            data = symbols.units.section(".debug_loc") or b""
            reader = ByteReader(data, offset)
            while reader.pos + 16 <= len(data):
                begin, end = reader.unsigned(8), reader.unsigned(8)
                if begin == 0 and end == 0:
                    break
                if begin == _MASK64:
                    base = shown_base = end
                    continue
                expression = reader.take(reader.unsigned(2))
                entries.append(LocationEntry(base + begin + bias, base + end + bias, decode_expression(expression), shown_base))
                shown_base = None
            return tuple(entries)
        data = symbols.units.section(".debug_loclists") or b""
        reader = ByteReader(data, offset)
        while not reader.at_end():
            kind = reader.unsigned(1)
            if kind == 0:  # end_of_list
                break
            if kind in (1, 6):  # base_addressx, base_address
                base = shown_base = symbols.units.addrx(cu, reader.uleb()) if kind == 1 else reader.unsigned(8)
                continue
            if kind == 9:  # GNU view pair: no range of its own
                reader.uleb()
                reader.uleb()
                continue
            if kind == 2:  # startx_endx
                low, high = symbols.units.addrx(cu, reader.uleb()), symbols.units.addrx(cu, reader.uleb())
            elif kind == 3:  # startx_length
                low = symbols.units.addrx(cu, reader.uleb())
                high = low + reader.uleb()
            elif kind == 4:  # offset_pair
                low, high = base + reader.uleb(), base + reader.uleb()
            elif kind == 7:  # start_end
                low, high = reader.unsigned(8), reader.unsigned(8)
            elif kind == 8:  # start_length
                low = reader.unsigned(8)
                high = low + reader.uleb()
            else:  # default_location (5) has no range: gdb shows none either
                reader.take(reader.uleb())
                continue
            expression = reader.take(reader.uleb())
            entries.append(LocationEntry(low + bias, high + bias, decode_expression(expression), shown_base))
            shown_base = None
    except EvaluationError as error:
        log.debug("location list at %#x: %s", offset, error)
    return tuple(entries)
