"""Value types of the symbol queries (`info source`, `info functions`, `info probes`,
`info vtbl`, symbol search, `info sources`, a line's code): made when such a query is
first asked, not at a session's start (model.py gives them by name: a first stop makes
none, and a dozen slotted dataclasses cost about 2% of the start's imports)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aliceserver.debuggers.model import SourcePosition


@dataclass(frozen=True, slots=True)
class StaticProbe:
    """A SystemTap SDT probe of a loaded image (gdb's `info probes` row)."""

    provider: str
    name: str
    address: int  # runtime address of the probe's instruction
    semaphore: int  # link-time address of its enabling counter (gdb shows it so); 0: none
    object_path: str  # the image it is in


@dataclass(frozen=True, slots=True)
class CompileUnitInfo:
    """What gdb's `info source` tells of the compilation unit of a source file."""

    comp_dir: str  # DW_AT_comp_dir ("" when absent)
    producer: str  # DW_AT_producer ("" when absent)
    dwarf_version: int
    language: str  # gdb's name for DW_AT_language (`c`, `c++`, `rust`, `minimal`)
    has_macros: bool  # DW_AT_macros / DW_AT_macro_info present


@dataclass(frozen=True, slots=True)
class LineRange:
    """One row of a line table (gdb's find_pc_line): the code [start, end) of a line."""

    start: int
    end: int
    source: SourcePosition
    is_stmt: bool = True  # a statement boundary: gdb shows a frame's pc where its row is not one


@dataclass(frozen=True, slots=True)
class FunctionDeclaration:
    """One breakpoint of gdb's `rbreak` (gdbcommands/symbols.py rbreak_functions)."""

    name: str  # the location broken at: `FULLNAME:NAME`, `'NAME'` without debug info
    address: int  # runtime entry; 0 for one with debug info (its breakpoint finds it)
    declaration: str  # `int sq(int);`, `static int fold(int, int);`
    source: SourcePosition | None


@dataclass(frozen=True, slots=True)
class VtableSlot:
    """One virtual function pointer of a vtable: its address and symbol, or why not."""

    address: int | None
    symbol: str | None = None  # `geo::Rect::area() const`, with `+offset` when inside
    error: str | None = None


class SymbolDomain(enum.Enum):
    """What gdb's symbol search (`info functions`, `-symbol-info-variables`...) lists."""

    FUNCTIONS = "functions"
    VARIABLES = "variables"
    TYPES = "types"


@dataclass(frozen=True, slots=True)
class SymbolSearchQuery:
    """gdb's global_symbol_searcher: regexes are POSIX basic ones, as gdb compiles them."""

    domain: SymbolDomain
    name_regex: str | None = None
    type_regex: str | None = None  # matched against the type as `whatis` prints it
    include_nondebug: bool = False  # ELF symbols without debug info (not for TYPES)
    max_results: int | None = None
    program_only: bool = False  # before `run` gdb has read the program's symbols, no library's


@dataclass(frozen=True, slots=True)
class DebugSymbolEntry:
    """One symbol with debug info, as gdb's print_symbol_info and MI's output_debug_symbol
    show it."""

    file: str  # its symbol table's file name as gdb displays it
    fullname: str  # absolute
    line: int  # 0: none (base types)
    name: str  # qualified, without parameters
    type: str  # `int (another_int_t)`, `float`; "" for TYPES
    description: str  # `static int f1(int, int);`, `typedef int my_int_t;`, `int`
    search_name: str = ""  # what gdb's regex searches where not `name`: `ns::f(char const*)`


@dataclass(frozen=True, slots=True)
class NondebugSymbolEntry:
    """An ELF symbol of a function or datum that has no debug info (runtime address)."""

    address: int
    name: str


@dataclass(frozen=True, slots=True)
class SymbolSearchResult:
    debug: tuple[DebugSymbolEntry, ...]  # sorted as gdb sorts: file, global before static, name
    nondebug: tuple[NondebugSymbolEntry, ...]  # by address


@dataclass(frozen=True, slots=True)
class SourceFileEntry:
    """A source file of a module's debug info, as gdb's `info sources` lists it."""

    file: str  # as the debug info names it (a unit's DW_AT_name for its own file)
    fullname: str  # absolute
    fully_read: bool  # whether its unit's debug info has been read in full (gdb's expanded symtab)


@dataclass(frozen=True, slots=True)
class ModuleSourceFiles:
    objfile: str
    has_debug_info: bool
    fully_read: bool  # every unit read
    files: tuple[SourceFileEntry, ...]
