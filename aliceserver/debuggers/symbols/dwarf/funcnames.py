"""The names of gdb's symbol for a C++ function (dwarf2/read.c's new_symbol, dwarf2_physname).

gdb names a code address by the function's DWARF symbol before its ELF one. In a C++ unit
that symbol's print name is:
- with a DW_AT_linkage_name (also through DW_AT_specification / DW_AT_abstract_origin): the
  linkage name demangled without a template function's return type (DMGL_RET_DROP:
  `tmpl<int>(int)`, where the ELF symbol reads `int tmpl<int>(int)`); its linkage name is
  the mangled one (what x/i shows, with asm-demangle off);
- without one (main, extern "C", static and anonymous-namespace functions, lambdas and the
  templates instantiated with them): computed from the DIEs (dwarf2_compute_name): the
  enclosing namespaces and named classes (never an enclosing function), the parameters as
  gdb's C++ type printer writes them (c_type_print_args: `this` skipped, top-level cv
  dropped, `(void)` when none), ` const` for a const method; then put in canonical form
  (`main()`, `f(char const*)`) unless gdb's name parser refuses it (a lambda's
  `<lambda(int)>`), which keeps gdb's spelling (`f(const std::_Any_data &)`). That name is
  its linkage name too.
"""

from __future__ import annotations

from typing import Callable

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dieattrs import attr_value, die_name, origin_die
from aliceserver.debuggers.symbols.dwarf.dietree import children, parent_of
from aliceserver.debuggers.symbols.dwarf.languages import CPLUS
from aliceserver.debuggers.symbols.dwarf.names import Demangler
from aliceserver.debuggers.symbols.dwarf.physname import c_function_name
from aliceserver.debuggers.symbols.dwarf.type_builder import TypeBuilder, is_rust, qualified_name
from aliceserver.debuggers.symbols.dwarf.types import PointerType, QualifiedType, Type, type_name

_SCOPES = ("DW_TAG_structure_type", "DW_TAG_class_type", "DW_TAG_union_type")


def is_cplus_unit(die: DIE) -> bool:
    return attr_value(die.cu.get_top_DIE(), "DW_AT_language") in CPLUS


def symbol_names(
    function: DIE, types: TypeBuilder, demangle: Callable[[str], str]
) -> tuple[str, str] | None:
    """(print name, linkage name) of a C++ function's DWARF symbol; None outside C++."""
    if not is_cplus_unit(function):
        return None
    linkage = linkage_name(function)
    if linkage is not None:
        demangled = demangle(linkage)
        return (without_return_type(demangled) if demangled != linkage else linkage), linkage
    computed = computed_name(function, types)
    return (computed, computed) if computed is not None else None


def linkage_name(die: DIE) -> str | None:
    """DW_AT_linkage_name (or the MIPS one) of `die` or of what it completes."""
    for attr in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name"):
        carrier = origin_die(die, attr)
        if carrier is not None:
            raw = carrier.attributes[attr].value
            return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return None


def computed_name(function: DIE, types: TypeBuilder) -> str | None:
    """gdb's dwarf2_compute_name with its physname: scopes, name, parameters, canonical."""
    # cxxnames.py: imported by the first C++ name (a C program's stop reads none)
    from aliceserver.debuggers.symbols.dwarf.cxxnames import canonical_function_name

    text = _computed_text(function, types)
    canonical = canonical_function_name(text) if text is not None else None
    return canonical if canonical is not None else text


def _computed_text(function: DIE, types: TypeBuilder) -> str | None:
    name = die_name(function)
    if name is None:
        return None
    prefix = _prefix(function)
    text = f"{prefix}::{name}" if prefix else name
    params, const = _parameters(function, types)
    return text + f"({params})" + (" const" if const else "")


def _prefix(function: DIE) -> str:
    """gdb's determine_prefix: where the declaration (DW_AT_specification) sits."""
    declared = function
    for _ in range(8):
        ref = next((r for r in ("DW_AT_specification", "DW_AT_abstract_origin") if r in declared.attributes), None)
        if ref is None:
            break
        declared = declared.get_DIE_from_attribute(ref)
    parent = parent_of(declared)
    if parent is None:
        return ""
    if parent.tag == "DW_TAG_namespace":
        return (qualified_name(parent) or "") if die_name(parent) else _anonymous(parent)
    if parent.tag in _SCOPES:
        return (qualified_name(parent) or "") if die_name(parent) else ""
    return ""


def _anonymous(namespace: DIE) -> str:
    outer = parent_of(namespace)
    inner = "(anonymous namespace)"
    if outer is not None and outer.tag == "DW_TAG_namespace":
        return f"{(qualified_name(outer) or '') if die_name(outer) else _anonymous(outer)}::{inner}"
    return inner


def _parameters(function: DIE, types: TypeBuilder) -> tuple[str, bool]:
    """c_type_print_args with linkage_name set, and whether `this` points to const."""
    written: list[str] = []
    varargs = False
    const = False
    first = True
    for child in children(function):
        if child.tag == "DW_TAG_unspecified_parameters":
            varargs = True
        if child.tag != "DW_TAG_formal_parameter":
            continue
        carrier = origin_die(child, "DW_AT_type")
        param: Type = types.of_die_attr(carrier) if carrier is not None else types.void
        if origin_die(child, "DW_AT_artificial") is not None:
            this = param.target if isinstance(param, QualifiedType) else param  # `T *const this`
            if first and isinstance(this, PointerType):
                target = this.target
                const = isinstance(target, QualifiedType) and target.const
            first = False
            continue
        first = False
        while isinstance(param, QualifiedType):  # `int f(const int)` is `f(int)`
            param = param.target
        written.append(type_name(param))
    if written and varargs:
        written.append("...")
    return (", ".join(written) if written else "void"), const


def without_return_type(demangled: str) -> str:
    """The demangled name as gdb_demangle's DMGL_RET_DROP gives it: a template function's
    return type (`int tmpl<int>(int)`, `std::iterator_traits<int const*>::difference_type
    std::distance<...>(...)`) left out."""
    from aliceserver.debuggers.symbols.dwarf.cxxnames import split_parameters

    split = split_parameters(demangled)
    if split is None:
        return demangled
    head = split[0]
    operator = _operator_at(head)
    scan = head if operator < 0 else head[:operator]
    depth = 0
    cut = -1
    for i, c in enumerate(scan):
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        elif c == " " and depth == 0:
            cut = i
    return demangled if cut < 0 else demangled[cut + 1 :]


def _operator_at(head: str) -> int:
    """Where the last `operator` word outside brackets starts, or -1."""
    at = head.rfind("operator")
    while at > 0 and (head[at - 1].isalnum() or head[at - 1] == "_"):
        at = head.rfind("operator", 0, at)
    return at


def frame_function_name(function: DIE, inlined: bool = False) -> str | None:
    """The name a frame of `function` shows (gdb: its symbol's print name without the
    parameters): a C function's DWARF name (physname.c_function_name); a C++ function
    without a linkage name by its computed name (`Local::m`, a lambda's `operator()`),
    where the ELF symbol's demangled name reads `main::Local::m`, and in full where gdb's
    name parser refuses it (a lambda's type in a template's arguments). None: the ELF
    symbol's. `inlined`: an inlined call's DIE, named by its own symbol (`ns::Acc::add`).
    A Rust function's: rust_function_name."""
    named = c_function_name(function)
    if named is None and is_rust(function):
        return rust_function_name(function)
    if named is not None or not is_cplus_unit(function):
        return named
    linkage = linkage_name(function)
    if linkage is not None:  # an inlined call's: its demangled linkage name; an ABI-tagged
        # one's too (`label[abi:cxx11](int)`: gdb's cp_remove_params refuses the tag)
        tagged = "B" in linkage and not inlined
        names = symbol_names(function, TypeBuilder(), Demangler().demangle) if inlined or tagged else None
        if names is None or tagged and "[abi:" not in names[0]:
            return None
        return _without_parameters(names[0])
    from aliceserver.debuggers.symbols.dwarf.cxxnames import (
        canonical_function_name,
        split_parameters,
    )

    text = _computed_text(function, TypeBuilder())
    canonical = canonical_function_name(text) if text is not None else None
    split = split_parameters(canonical) if canonical is not None else None
    return split[0] if split is not None else text  # gdb's cp_remove_params refuses it too


def rust_function_name(function: DIE) -> str | None:
    """gdb's name of a Rust function (dwarf2_compute_name): its DW_AT_name, which rustc
    writes with the generic arguments (`fold<rprobe::Shape, f64, ...>`), inside its
    namespaces (`core::slice::iter::{impl#171}::`), for an inlined call too; not the ELF
    symbol's demangled `<core::slice::iter::Iter<T> as ...>::fold`."""
    named = origin_die(function, "DW_AT_name")
    return qualified_name(named) if named is not None else None


def without_parameters(name: str) -> str:
    """`ns::Counter::add(int) const` -> `ns::Counter::add`; `operator()(int)` keeps `()`."""
    text = name
    for qualifier in (" const", " volatile", " &&", " &"):
        if text.endswith(qualifier):
            text = text[: -len(qualifier)]
    if not text.endswith(")"):
        return name
    from aliceserver.debuggers.symbols.dwarf.cxxnames import has_function_type_argument

    if has_function_type_argument(text):  # gdb's parser refuses it
        return name
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[index], 0)
        if depth == 0:
            return text[:index] if index > 0 else name
    return name


def _without_parameters(name: str) -> str:
    """gdb's cp_remove_params: a name its parser refuses (a lambda's) stays whole."""
    from aliceserver.debuggers.symbols.dwarf.cxxnames import (
        has_function_type_argument,
        split_parameters,
    )

    refused = "{lambda" in name or "<lambda" in name or "[abi:" in name or has_function_type_argument(name)
    split = None if refused else split_parameters(name)
    return split[0] if split is not None else name


def unlinked_name(function: DIE) -> str | None:
    """A C++ function's computed name where it has no linkage name (`main(int, char**)`,
    `Local::m(char const*)`, a lambda's `operator()(int) const`): what gdb names its
    breakpoint locations by; None for others (the ELF symbol's demangled name is gdb's)."""
    if not is_cplus_unit(function) or linkage_name(function) is not None:
        return None
    return computed_name(function, TypeBuilder())
