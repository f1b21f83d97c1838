"""`<name+offset>` after an address, as gdb's build_address_symbolic (printcmd.c) makes it.

gdb weighs two symbols: the function whose DWARF block holds the address (a "full symbol")
and the nearest ELF symbol (a "minimal symbol", read from the module and from its separate
debug file, which keeps the local names a stripped library such as ld.so or libc dropped).
The function wins unless the ELF symbol starts exactly at the address and the function
does not. Values (`print`) show print names (demangled), x/a, /a and disassembly show
linkage names (`asm-demangle off`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.model import SymbolLocation
from aliceserver.debuggers.symbols.dwarf.dies import attr_value, die_name
from aliceserver.debuggers.symbols.dwarf.funcnames import is_cplus_unit, symbol_names
from aliceserver.debuggers.symbols.dwarf.languages import MIPS_ASSEMBLER
from aliceserver.debuggers.symbols.dwarf.physname import c_function_name, physname
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from elftools.dwarf.die import DIE

    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Function:
    entry: int  # runtime; gdb's BLOCK_ENTRY_PC: the start of the first range
    print_name: str
    linkage_name: str


def address_symbol(
    source: SourceSymbols, address: int, demangle: Callable[[str], str] | None
) -> SymbolLocation:
    """The symbol gdb names `address` by; `demangle` None: the linkage names (x/a, x/i)."""
    where = source.symbols.lookup_address(address)
    if where.module is None:
        return where
    found = _minimal_symbol(source, address)
    if found is None:
        return SymbolLocation(address, None, 0, where.module)
    name, offset = found
    # Code is named by its DWARF function where it has one: gcc's local names (`calls.0`,
    # `f.cold`), C's assembler names (glibc's `__GI_raise` for the ELF symbol `raise`) and
    # DW_AT_names the ELF aliases hide (`_IO_new_file_write`), C++'s written its own way
    # (funcnames.py). Data needs no look: no function's block holds it (gdb's
    # find_pc_sect_function finds none), and asking for its unit scanned every unit's
    # ranges (.debug_aranges covers code only): 0.87 s profiled at huge_program's 2,200 units.
    code = _in_code(source, address)
    if code is False:
        function = None
    elif "." in name or _in_cplus(source, address):
        function = _function(source, address, demangle)
    else:  # other languages' DWARF functions do not name code as gdb does; gas's do
        function = _function(source, address, demangle, c_only=True) if code else None
    if function is not None and not (offset == 0 and function.entry != address):
        text = function.print_name if demangle is not None else function.linkage_name
        return SymbolLocation(address, text, address - function.entry, where.module)
    if demangle is not None:
        base, at, version = name.partition("@")  # `_ZSt4cout@GLIBCXX_3.4`: std::cout@GLIBCXX_3.4
        demangled = demangle(base)
        name = demangled + at + version if demangled != base else gdb_print_name(name)
    return SymbolLocation(address, name, offset, where.module)


def _minimal_symbol(source: SourceSymbols, address: int) -> tuple[str, int] | None:
    """gdb's lookup_minimal_symbol_by_pc_section, from the module's and its debug file's
    symbols, the nearer: a sized symbol names only its own bytes (not the padding after a
    function, nor the pc after a noreturn call at its end), a label (size 0) what follows
    it in its section; build_address_symbolic drops a label outside code."""
    module = source.symbols.module_at(address)
    if module is None:
        return None
    link = address - module.base
    hits: list[tuple[str, int]] = []
    for image in (source.symbols.image_of(module.path), source.debug_image(module)):
        hit = image.section_symbol(link) if image is not None else None
        if image is not None and hit is not None and (hit[0].size or image.is_executable_address(link)):
            hits.append((hit[0].name, hit[1]))
    return min(hits, key=lambda hit: hit[1]) if hits else None


def _function(
    source: SourceSymbols, address: int, demangle: Callable[[str], str] | None, *, c_only: bool = False
) -> _Function | None:
    die = source.function_die(address)
    module = source.symbols.module_at(address)
    values = source.module_symbols(module) if module is not None else None
    if die is None or module is None or values is None:
        return None
    try:
        ranges = values.units.die_ranges(die)
    except (AliceError, ValueError, KeyError) as error:  # pyelftools on odd DWARF
        log.debug("no ranges of the function at %#x: %s", address, error)
        return None
    name = die_name(die)
    if not ranges or name is None:
        return None
    cplus = None if c_only else symbol_names(die, values.types, demangle or (lambda text: text))
    if cplus is not None:
        return _Function(ranges[0][0] + module.base, cplus[0], cplus[1])
    c_name = c_function_name(die)  # gdb's C symbol: the linkage name, printed as it is
    if c_name is None and c_only and _in_assembler(die):
        c_name = die_name(_last_at_entry(die))  # (an assembler's: named as written)
    if c_name is not None or c_only:
        return None if c_name is None else _Function(ranges[0][0] + module.base, c_name, c_name)
    linkage = _linkage_name(die)
    if linkage is not None:
        demangled = demangle(linkage) if demangle is not None else linkage
        printed = demangled if demangled != linkage else name
    else:
        printed = physname(die) or name
    return _Function(ranges[0][0] + module.base, printed, linkage or name)


def _in_assembler(die: DIE) -> bool:
    return bool(attr_value(die.cu.get_top_DIE(), "DW_AT_language") == MIPS_ASSEMBLER)


def _last_at_entry(die: DIE) -> DIE:
    """Of the functions an assembler unit gives one body (glibc's `memmove` and `memcpy`:
    gas writes a DW_TAG_subprogram per ELF symbol), the last in the unit: gdb's blockvector
    keeps those of one start in DIE order, and find_block_in_blockvector takes the last."""
    parent, low = die.get_parent(), attr_value(die, "DW_AT_low_pc")
    high = attr_value(die, "DW_AT_high_pc")
    if parent is None or low is None:
        return die
    last = die
    for child in parent.iter_children():
        if (child.offset > die.offset and child.tag == "DW_TAG_subprogram"
                and attr_value(child, "DW_AT_low_pc") == low and attr_value(child, "DW_AT_high_pc") == high):  # fmt: skip
            last = child
    return last


def _in_code(source: SourceSymbols, address: int) -> bool | None:
    """Whether `address` is in an executable section of its module; None: no image to tell."""
    module = source.symbols.module_at(address)
    image = source.symbols.image_of(module.path) if module is not None else None
    if module is None or image is None:
        return None
    return image.is_executable_address(address - module.base)


def _in_cplus(source: SourceSymbols, address: int) -> bool:
    """Whether the unit whose code holds `address` is C++ (its DW_AT_language)."""
    module = source.symbols.module_at(address)
    values = source.module_symbols(module) if module is not None else None
    if module is None or values is None:
        return False
    try:
        cu = values.units.cu_for_address(address - module.base)
    except (AliceError, ValueError, KeyError) as error:  # pyelftools on odd DWARF
        log.debug("no unit at %#x: %s", address, error)
        return False
    return cu is not None and is_cplus_unit(cu.get_top_DIE())


def _linkage_name(die: DIE) -> str | None:
    """DW_AT_linkage_name, following a concrete copy to its abstract origin."""
    for _ in range(8):
        raw = attr_value(die, "DW_AT_linkage_name") or attr_value(die, "DW_AT_MIPS_linkage_name")
        if raw is not None:
            return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        ref = next((r for r in ("DW_AT_abstract_origin", "DW_AT_specification") if r in die.attributes), None)
        if ref is None:
            return None
        die = die.get_DIE_from_attribute(ref)
    return None


_DIGITS_SUFFIX = compiled_later(r"(\.\d+|___?\d+|\$\d+)$")
_WORD_SUFFIX = compiled_later(r"\.([a-z_]+)$")


def gdb_print_name(name: str) -> str:
    """The print name gdb gives an ELF symbol no C++/Rust demangler took: gdb tries its Ada
    decoder last, which drops gcc's `.N` (`calls.0` -> `calls`, `f.constprop.0` ->
    `f.constprop`), writes other suffixes in brackets (`f.cold` -> `f[cold]`) and `__` as
    `.`; it gives up on names starting with `_` or holding capitals."""
    if not name or name[0] in "_<" or any(c.isupper() for c in name):
        return name
    text, found = _DIGITS_SUFFIX().subn("", name)
    if not found:
        text = _WORD_SUFFIX().sub(r"[\1]", text)
    text = text.replace("__", ".")
    return text if text else name
