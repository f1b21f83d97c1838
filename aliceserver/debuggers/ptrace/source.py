"""Source-level symbols of one process: per-module DWARF, location specs, stack frames.

Debug info is loaded per module on first need (the index is cached on disk), so starting a
session costs nothing until a file:line or a frame is asked for. Addresses in DebugInfo are
link-time; a module's `base` (load bias) turns them into runtime ones.
"""

from __future__ import annotations

import logging
import re
from typing import Mapping

from aliceserver.debuggers.model import (
    CodeLocation,
    Module,
    SourcePosition,
    StackFrame,
    SymbolLocation,
)
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable, CfiTables, UnwindRow
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.unwind import UnwoundFrame, unwind_stack
from aliceserver.debuggers.symbols.linkmap import ReadMemory
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.errors import AliceError, ProtocolError

log = logging.getLogger(__name__)

_FILE_LINE = re.compile(r"^(?P<file>.+):(?P<line>\d+)$")
_ROW_CACHE = 4096
# DWARF register numbers of x86-64 in gdb's names (System V psABI).
DWARF_NAMES = ("rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
               "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip")  # fmt: skip


class _CachedTable:
    """A CfiTable whose rows are remembered by pc: a breakpoint hit again and again unwinds
    from the same pc, and finding its FDE is the costly part."""

    def __init__(self, table: CfiTable) -> None:
        self._table = table
        self._rows: dict[int, UnwindRow | None] = {}

    def row_at(self, link_pc: int) -> UnwindRow | None:
        try:
            return self._rows[link_pc]
        except KeyError:
            pass
        row = self._table.row_at(link_pc)  # TargetError passes through, uncached
        if len(self._rows) >= _ROW_CACHE:
            self._rows.clear()
        self._rows[link_pc] = row
        return row


class _RowCache:
    """`Module -> table` for unwind_stack, over CfiTables, with rows cached per table."""

    def __init__(self, tables: CfiTables) -> None:
        self._tables = tables
        self._cached: dict[int, _CachedTable] = {}

    def __call__(self, module: Module) -> _CachedTable | None:
        table = self._tables(module)
        if table is None:
            return None
        cached = self._cached.get(id(table))
        if cached is None or cached._table is not table:
            cached = self._cached[id(table)] = _CachedTable(table)
        return cached


class SourceSymbols:
    def __init__(self, symbols: ProcessSymbols, cache: IndexCache | None = None) -> None:
        self.symbols = symbols
        self._cache = cache if cache is not None else IndexCache()
        self._debug: dict[tuple[str, int], DebugInfo | None] = {}
        self._values: dict[tuple[str, int], ModuleSymbols | None] = {}
        self._all: list[ModuleSymbols] = []
        self._all_key: tuple[tuple[str, int], ...] = ()
        self.cfi = _RowCache(CfiTables(symbols))

    # --- per module -------------------------------------------------------------------
    def debug_info(self, module: Module) -> DebugInfo | None:
        key = (module.path, module.base)
        if key not in self._debug:
            image = self.symbols.image_of(module.path)
            info = None
            if image is not None:
                try:
                    info = DebugInfo.load(image, cache=self._cache)
                except AliceError as error:
                    log.warning("debug info of %s unusable: %s", module.path, error)
            self._debug[key] = info
        return self._debug[key]

    def module_symbols(self, module: Module) -> ModuleSymbols | None:
        key = (module.path, module.base)
        if key not in self._values:
            image = self.symbols.image_of(module.path)
            values = None
            if image is not None:
                try:
                    values = ModuleSymbols(image, is_executable=module.is_main)
                    if not values.has_dwarf:
                        values = None
                except AliceError as error:
                    log.warning("variables of %s unusable: %s", module.path, error)
            self._values[key] = values
        return self._values[key]

    def all_module_symbols(self) -> list[ModuleSymbols]:
        """Every module's variables (main first), recomputed only when modules change."""
        modules = self.symbols.modules()
        key = tuple((module.path, module.base) for module in modules)
        if self._all_key != key:
            found = [self.module_symbols(module) for module in modules]
            self._all = [symbols for symbols in found if symbols is not None]
            self._all_key = key
        return self._all

    def _with_debug_info(self) -> list[tuple[Module, DebugInfo]]:
        found = []
        for module in self.symbols.modules():
            info = self.debug_info(module)
            if info is not None:
                found.append((module, info))
        return found

    # --- locations --------------------------------------------------------------------
    def resolve(self, spec: str) -> list[CodeLocation]:
        """`file:line`, `function` or `*address` -> runtime locations (empty: none yet)."""
        text = spec.strip()
        if not text:
            raise ProtocolError("empty location")
        if text.startswith("*"):
            try:
                address = int(text[1:].strip(), 0)
            except ValueError:
                raise ProtocolError(f"bad address in location {spec!r}") from None
            return [self.location_of(address)]
        match = _FILE_LINE.match(text)
        if match is not None:
            return self._resolve_line(match["file"], int(match["line"]))
        return self._resolve_function(text)

    def _resolve_line(self, file: str, line: int) -> list[CodeLocation]:
        locations = []
        for module, info in self._with_debug_info():
            resolved = info.resolve_line(file, line)
            if resolved is None:
                continue
            for link_address in resolved.addresses:
                address = link_address + module.base
                function = info.function_at(link_address)
                locations.append(
                    CodeLocation(
                        address, function.name if function else None,
                        SourcePosition(resolved.file, resolved.line), module.path,
                        requested_line=resolved.requested_line,
                    )  # fmt: skip
                )
        return locations

    def _resolve_function(self, name: str) -> list[CodeLocation]:
        locations = []
        for module, info in self._with_debug_info():
            for match in info.functions_named(name):
                address = match.breakpoint_address + module.base
                source = SourcePosition(match.file, match.line) if match.file and match.line else None
                locations.append(CodeLocation(address, match.name, source, module.path))
        if locations:
            return locations
        fallback = self.symbols.lookup_name(name)  # a function without debug info (libc)
        return [] if fallback is None else [self.location_of(fallback)]

    def location_of(self, address: int) -> CodeLocation:
        symbol = self.symbols.lookup_address(address)
        return CodeLocation(address, self.function_name(address), self.position(address), symbol.module)

    # --- positions --------------------------------------------------------------------
    def _info_at(self, address: int) -> tuple[Module, DebugInfo] | None:
        module = self.symbols.module_at(address)
        if module is None:
            return None
        info = self.debug_info(module)
        return None if info is None else (module, info)

    def position(self, address: int) -> SourcePosition | None:
        found = self._info_at(address)
        if found is None:
            return None
        module, info = found
        row = info.location_at(address - module.base)
        return None if row is None else SourcePosition(row.file, row.line, row.column)

    def function_name(self, address: int) -> str | None:
        found = self._info_at(address)
        if found is not None:
            function = found[1].function_at(address - found[0].base)
            if function is not None:
                return function.name
        return self.symbols.lookup_address(address).name

    def line_range(self, address: int) -> tuple[int, int] | None:
        """Runtime [start, end) of the line block holding `address`."""
        found = self._info_at(address)
        if found is None:
            return None
        module, info = found
        block = info.line_range_at(address - module.base)
        return None if block is None else (block[0] + module.base, block[1] + module.base)

    def is_statement_start(self, address: int) -> bool:
        found = self._info_at(address)
        return found is not None and found[1].is_statement_start(address - found[0].base)

    def function_range(self, address: int) -> tuple[int, int, int] | None:
        """(low, high, address after the prologue) of the function holding `address`."""
        found = self._info_at(address)
        if found is None:
            return None
        module, info = found
        function = info.function_at(address - module.base)
        if function is None or function.file is None:
            return None  # no line info (a PLT stub, an assembly routine)
        base = module.base
        return function.low + base, function.high + base, function.breakpoint_address + base

    # --- frames -----------------------------------------------------------------------
    def unwind(self, registers: Mapping[str, int], read: ReadMemory, limit: int) -> list[UnwoundFrame]:
        return unwind_stack(registers, read, self.symbols, self.cfi, limit)  # type: ignore[arg-type]

    def innermost(self, registers: Mapping[str, int], read: ReadMemory) -> UnwoundFrame:
        """Frame 0 alone with its CFA, the cheap way when the CFA is register + offset
        (what breakpoint conditions need at every hit); else a one-frame unwind."""
        pc = registers["rip"]
        module = self.symbols.module_at(pc)
        table = self.cfi(module) if module is not None else None
        row = None
        if table is not None and module is not None:
            try:
                row = table.row_at(pc - module.base)
            except AliceError:
                row = None
        if row is None or row.cfa.expression is not None or row.cfa.register >= len(DWARF_NAMES):
            return self.unwind(registers, read, limit=1)[0]
        cfa = (registers[DWARF_NAMES[row.cfa.register]] + row.cfa.offset) & (1 << 64) - 1
        return UnwoundFrame(0, pc, cfa, registers, SymbolLocation(pc, None, 0, None), "first")

    def stack_frame(self, frame: UnwoundFrame) -> StackFrame:
        # A caller's pc is a return address: the call is the instruction before it.
        lookup = frame.pc if frame.level == 0 or frame.method == "signal" else frame.pc - 1
        position = self.position(lookup)
        return StackFrame(
            level=frame.level, pc=frame.pc, cfa=frame.cfa,
            function=self.function_name(lookup) or frame.symbol.name, source=position,
            module=frame.symbol.module, symbol=frame.symbol,
            signal_trampoline=frame.signal_trampoline,
        )  # fmt: skip
