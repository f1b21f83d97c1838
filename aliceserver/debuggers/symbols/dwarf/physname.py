"""A C++ function's name as gdb prints it for a breakpoint (its "physname"), for functions
the compiler gave no linkage name (`main`, `extern "C"` ones): the name with its parameter
types written as the demangler writes them (`main(int, char**)`, `f(char const*)`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import attr_value, die_name, origin_die, resolved_attr
from aliceserver.debuggers.symbols.dwarf.dietree import children
from aliceserver.debuggers.symbols.dwarf.languages import C
from aliceserver.debuggers.symbols.dwarf.names import Demangler
from aliceserver.debuggers.symbols.dwarf.type_builder import is_cplus, is_rust, qualified_name
from aliceserver.debuggers.symbols.dwarf.variable import Variable, VarKind

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
    from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

_SUFFIX = {
    "DW_TAG_pointer_type": "*",
    "DW_TAG_reference_type": "&",
    "DW_TAG_rvalue_reference_type": "&&",
}
_QUALIFIER = {"DW_TAG_const_type": " const", "DW_TAG_volatile_type": " volatile"}
_DEMANGLER = Demangler()  # (libstdc++'s __cxa_demangle, loaded at its first name)


def physname(subprogram: DIE) -> str | None:
    """`name(T1, T2)` of a C++ function without a linkage name; None when it has one, is
    not C++, or a parameter's type is beyond this simple writer (then the symbol stands)."""
    if (
        not is_cplus(subprogram)
        or is_rust(subprogram)
        or attr_value(subprogram, "DW_AT_linkage_name")
    ):
        return None
    name = qualified_name(subprogram)
    if name is None:
        return None
    params: list[str] = []
    for child in children(subprogram):
        if child.tag == "DW_TAG_unspecified_parameters":
            params.append("...")
        elif child.tag == "DW_TAG_formal_parameter" and not attr_value(child, "DW_AT_artificial"):
            written = _written(child)
            if written is None:
                return None
            params.append(written)
    return f"{name}({', '.join(params)})"


def _written(die: DIE, depth: int = 0) -> str | None:
    """The type `die` refers to, as the demangler writes it (`char const*`)."""
    if "DW_AT_type" not in die.attributes or depth > 16:
        return "void"
    t = die.get_DIE_from_attribute("DW_AT_type")
    if t.tag in _SUFFIX or t.tag in _QUALIFIER:
        inner = _written(t, depth + 1)
        return None if inner is None else inner + _SUFFIX.get(t.tag, _QUALIFIER.get(t.tag, ""))
    if t.tag in ("DW_TAG_base_type", "DW_TAG_typedef", "DW_TAG_structure_type", "DW_TAG_class_type",
                 "DW_TAG_union_type", "DW_TAG_enumeration_type"):  # fmt: skip
        return qualified_name(t) if die_name(t) else None
    return None


def shown_function_name(function: DIE) -> str | None:
    """The name gdb gives a place in `function` (a subprogram or an inlined call), as a
    breakpoint location shows it: its C symbol's (c_function_name); a C++ function's print
    name, with its parameters (its demangled linkage name, else its physname); else its
    DW_AT_name."""
    found = c_function_name(function)
    if found is None and is_cplus(function) and not is_rust(function):
        raw = resolved_attr(function, "DW_AT_linkage_name") or resolved_attr(function, "DW_AT_MIPS_linkage_name")
        if raw is not None:
            found = _DEMANGLER.demangle(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw))
        else:
            origin = origin_die(function, "DW_AT_name")
            found = physname(origin) if origin is not None and origin.tag == "DW_TAG_subprogram" else None
    return found or die_name(function)


def c_function_name(function: DIE) -> str | None:
    """The name gdb gives a C function's frame (a subprogram or an inlined call): the name
    of its DWARF symbol, which is its DW_AT_linkage_name where it has one (an assembler
    name: glibc's hidden `__GI_raise` for raise, `f(void) __asm__("g")`), else its
    DW_AT_name (`_IO_new_file_write`, whichever ELF symbols share its address). None
    outside C units (other languages name theirs their own way)."""
    if attr_value(function.cu.get_top_DIE(), "DW_AT_language") not in C:
        return None
    raw = resolved_attr(function, "DW_AT_linkage_name") or resolved_attr(function, "DW_AT_MIPS_linkage_name")
    if raw is None:
        return die_name(function)
    return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)


def function_entered_at(module: ModuleSymbols, link: int) -> DIE | None:
    """The DWARF function of `module` whose entry is link-time `link` (gdb's
    find_function_alias_target: `print raise` or `print __GI_raise`, ELF symbols of
    glibc's raise, show its debug info's type), else None."""
    cu = module.units.cu_for_address(link)
    found = module.units.function_die_at(cu, link) if cu is not None else None
    if found is None or module.function_address(found.subprogram) != link:
        return None
    return found.subprogram


def function_alias(
    modules: Iterable[tuple[int, ModuleSymbols]], address: int, name: str, at_bias: Callable[[int], FrameContext]
) -> Value | None:
    """`name`, an ELF symbol at runtime `address`, as the function with debug info entered
    there (gdb's find_function_alias_target); `at_bias`: the frame in a module's bias."""
    for bias, module in modules:
        die = function_entered_at(module, address - bias)
        if die is not None:
            return module.value_of(Variable(name, VarKind.FUNCTION, die, module.function_type(die)), at_bias(bias))
    return None
