"""The file-level symbols of one compilation unit as gdb's symbol search sees them
(symtab.c, global_symbol_searcher): functions with code, variables with storage (or
optimized out), named types; each with its block (GLOBAL_BLOCK for what is external, and
C++'s classes) and the text `info functions` prints for it (symbol_to_info_string)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE

from aliceserver.debuggers.model import SymbolDomain
from aliceserver.debuggers.symbols.dwarf.dies import (
    _CORRUPT,
    _scope_of_spec,
    attr_value,
    die_name,
    origin_die,
)
from aliceserver.debuggers.symbols.dwarf.dietree import children
from aliceserver.debuggers.symbols.dwarf.names import strip_signature
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.type_builder import is_cplus, is_rust
from aliceserver.debuggers.symbols.dwarf.types import (
    EnumType,
    FunctionType,
    declaration,
    strip,
    type_name,
)
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)

_RECORD_KEYWORDS = {"DW_TAG_structure_type": "struct", "DW_TAG_class_type": "class",
                    "DW_TAG_union_type": "union", "DW_TAG_enumeration_type": "enum"}  # fmt: skip
_TYPE_TAGS = frozenset((*_RECORD_KEYWORDS, "DW_TAG_typedef", "DW_TAG_base_type"))


@dataclass(frozen=True, slots=True)
class UnitSymbol:
    name: str  # qualified: `ns::Point::sum`
    is_global: bool  # in gdb's GLOBAL_BLOCK (sorted before the file's statics)
    decl_file: int  # DW_AT_decl_file; 0: the unit's own file
    line: int
    type: str  # as `whatis` prints it; "" for types
    description: str
    sort_name: str = ""  # what gdb sorts by when not `name`: a C++ function's parameters too


def unit_symbols(
    symbols: ModuleSymbols, cu: CompileUnit, domain: SymbolDomain, demangle: Callable[[str], str]
) -> list[UnitSymbol]:
    """The unit's file-level symbols of `domain`, in DIE order (`demangle`: C++ linkage names)."""
    found: list[UnitSymbol] = []
    top = cu.get_top_DIE()
    cplus = is_cplus(top) and not is_rust(top)
    _collect(symbols, top, "", domain, cplus, demangle, found)
    return found


def _collect(
    symbols: ModuleSymbols,
    parent: DIE,
    prefix: str,
    domain: SymbolDomain,
    cplus: bool,
    demangle: Callable[[str], str],
    out: list[UnitSymbol],
) -> None:
    for child in children(parent, imports=False):  # dwz's partial units: listed as units of their own, as gdb
        tag = child.tag
        if tag == "DW_TAG_namespace":
            name = die_name(child)
            _collect(symbols, child, f"{prefix}{name}::" if name else prefix, domain, cplus, demangle, out)
            continue
        try:
            entry = _entry(symbols, child, prefix, domain, cplus, demangle)
        except (*_CORRUPT, AliceError) as error:
            log.debug("symbol at %#x skipped: %s", child.offset, error)
            continue
        if entry is not None:
            out.append(entry)


def _entry(
    symbols: ModuleSymbols, die: DIE, prefix: str, domain: SymbolDomain, cplus: bool, demangle: Callable[[str], str]
) -> UnitSymbol | None:
    tag = die.tag
    if domain is SymbolDomain.FUNCTIONS and tag == "DW_TAG_subprogram":
        return _function(symbols, die, prefix, cplus, demangle)
    if domain is SymbolDomain.VARIABLES and tag == "DW_TAG_variable":
        return _variable(symbols, die, prefix)
    if domain is SymbolDomain.TYPES and tag in _TYPE_TAGS:
        return _type(symbols, die, prefix, cplus)
    return None


def _place(die: DIE) -> tuple[int, int]:
    """(DW_AT_decl_file, DW_AT_decl_line), from the declaration a definition completes."""
    source = origin_die(die, "DW_AT_decl_line") or die
    file = attr_value(source, "DW_AT_decl_file")
    line = attr_value(source, "DW_AT_decl_line")
    return (file if isinstance(file, int) else 0), (line if isinstance(line, int) else 0)


def _is_external(die: DIE) -> bool:
    source = origin_die(die, "DW_AT_external") or die
    return bool(attr_value(source, "DW_AT_external"))


def _function(
    symbols: ModuleSymbols, die: DIE, prefix: str, cplus: bool, demangle: Callable[[str], str]
) -> UnitSymbol | None:
    if attr_value(die, "DW_AT_declaration") or not symbols.units.die_ranges(die):
        return None  # a prototype, or inlined everywhere: no code of its own
    name = die_name(die)
    if not name:
        return None
    qualified = _scope_of_spec(die, prefix) + name
    function_type = symbols.function_type(die, with_this=False)
    text = declaration(function_type, qualified)
    search = ""  # C++'s search name: its parameters tell overloads apart
    if cplus:
        text, search = _cplus_declaration(die, function_type, text, demangle, qualified)
    elif _is_const_method(die):
        text += " const"
    external = _is_external(die)
    file, line = _place(die)
    static = "" if external else "static "
    return UnitSymbol(qualified, external, file, line, type_name(function_type), f"{static}{text};", search)


def _cplus_declaration(
    die: DIE, function_type: FunctionType, text: str, demangle: Callable[[str], str], qualified: str
) -> tuple[str, str]:
    """(declaration, search name): gdb names a C++ function by its demangled linkage name,
    parameters as the demangler writes them (`push_back(long const&)`), after its return
    type; without a linkage name (main, extern "C") an empty list is `()`."""
    source = origin_die(die, "DW_AT_linkage_name") or origin_die(die, "DW_AT_MIPS_linkage_name") or die
    linkage = attr_value(source, "DW_AT_linkage_name") or attr_value(source, "DW_AT_MIPS_linkage_name")
    demangled = demangle(linkage.decode() if isinstance(linkage, bytes) else str(linkage or ""))
    if not linkage or demangled.startswith("_Z"):
        text = text[: -len("(void)")] + "()" if text.endswith("(void)") else text
        # gdb's computed name, put through its C++ name parser: `sfoo(char const*, int)`
        at = text.find(qualified + "(") if text.endswith(")") else -1
        from aliceserver.debuggers.symbols.dwarf.cxxnames import canonical_function_name

        canonical = canonical_function_name(text[at:]) if at > 0 and text[at - 1] in " *&" else None
        text = text[:at] + canonical if canonical is not None else text
        text += " const" if _is_const_method(die) else ""
        return text, text[text.find(qualified) :] if qualified in text else ""
    name, params = strip_signature(demangled)
    search = f"{name}{params or '()'}{' const' if demangled.endswith(' const') else ''}"
    return declaration(function_type.return_type, search), search


def _is_const_method(die: DIE) -> bool:
    """Whether a C++ method's `this` points to const (gdb prints `int Point::sum() const;`)."""
    source = origin_die(die, "DW_AT_object_pointer") or die
    this = source.get_DIE_from_attribute("DW_AT_object_pointer") if "DW_AT_object_pointer" in source.attributes \
        else None  # fmt: skip
    if this is None:
        return False
    pointer = this.get_DIE_from_attribute("DW_AT_type") if "DW_AT_type" in this.attributes else None
    target = pointer.get_DIE_from_attribute("DW_AT_type") if pointer is not None and "DW_AT_type" in \
        pointer.attributes else None  # fmt: skip
    return target is not None and target.tag == "DW_TAG_const_type"


def _variable(symbols: ModuleSymbols, die: DIE, prefix: str) -> UnitSymbol | None:
    has_storage = "DW_AT_location" in die.attributes or "DW_AT_const_value" in die.attributes
    if not has_storage and attr_value(die, "DW_AT_declaration"):
        return None  # `extern int x;`: gdb's LOC_UNRESOLVED, not listed
    name = die_name(die)
    if not name:
        return None
    var_type = symbols.types.of_die_attr(origin_die(die, "DW_AT_type") or die)
    if "DW_AT_location" not in die.attributes and isinstance(strip(var_type), EnumType):
        return None  # an enumerator-like constant
    qualified = _scope_of_spec(die, prefix) + name
    external = _is_external(die)
    file, line = _place(die)
    static = "" if external else "static "
    return UnitSymbol(qualified, external, file, line, type_name(var_type),
                      f"{static}{declaration(var_type, qualified)};")  # fmt: skip


def _type(symbols: ModuleSymbols, die: DIE, prefix: str, cplus: bool) -> UnitSymbol | None:
    name = die_name(die)
    if not name or attr_value(die, "DW_AT_declaration"):
        return None
    qualified = prefix + name
    file, line = _place(die)
    tag = die.tag
    if tag == "DW_TAG_base_type":  # as gdb names it: `short`, `unsigned long`
        shown = type_name(symbols.types.build(die))
        return UnitSymbol(shown, False, 0, 0, "", shown)
    if tag == "DW_TAG_typedef":
        target = symbols.types.of_die_attr(die)
        # c_print_typedef writes the whole type, then the name: `typedef int (*)(int) fn;`
        return UnitSymbol(qualified, False, file, line, "", f"typedef {type_name(target)} {qualified};")
    # gdb keeps C++'s classes in the global block and prints them without their keyword
    if cplus:
        return UnitSymbol(qualified, True, file, line, "", f"{qualified};")
    return UnitSymbol(qualified, False, file, line, "", f"{_RECORD_KEYWORDS[str(tag)]} {qualified};")

