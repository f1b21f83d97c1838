"""gdb's scoped linespecs: `FILE:FUNCTION`, `FUNCTION:LABEL` and `FILE:FUNCTION:LABEL`.

The first part of `A:B` is a source file when the debug info names one so (gdb tries the
file first), else a function whose label B is wanted. `ns::f` stays one name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator
from weakref import WeakKeyDictionary

from aliceserver.debuggers.model import CodeLocation, SourcePosition
from aliceserver.debuggers.symbols.dwarf.dies import attr_value, die_name
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.dwarf.inlines import query_leaf
from aliceserver.errors import TargetError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from elftools.dwarf.die import DIE

    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols

_SCOPE_COLON = re.compile(r"(?<!:):(?!:)")


def scopes(text: str) -> list[str]:
    """`A:B[:C]` split at its single colons (a C++ `::` is no separator)."""
    return [part.strip() for part in _SCOPE_COLON.split(text)]


def same_file(query: str, path: str) -> bool:
    """gdb's file match: the whole path, or its trailing components."""
    query = query.strip('"')
    tail = query.lstrip("./")
    # (a library's unit of a relative directory names its files relative: `csu/check_fds.c`)
    return path in (query, tail) or path.endswith("/" + tail)


def is_source_file(source: SourceSymbols, name: str) -> bool:
    infos = tuple(info for _module, info in source.debug_infos())
    held = _FILE_ANSWERS.get(source)
    if held is None or held[0] != infos:  # (DebugInfo compares by identity)
        held = _FILE_ANSWERS[source] = (infos, {})
    known = held[1].get(name)
    if known is None:  # rbreak asks once per function, for few files
        known = held[1][name] = any(same_file(name, path) for path in source.source_files())
    return known


# Each answer of is_source_file, while the debug infos it was read from are those loaded
_FILE_ANSWERS: WeakKeyDictionary[SourceSymbols, tuple[tuple[DebugInfo, ...], dict[str, bool]]] = (
    WeakKeyDictionary()
)


def resolve_scoped(source: SourceSymbols, parts: list[str]) -> list[CodeLocation]:
    """Locations of `FILE:FUNCTION`, `FUNCTION:LABEL` or `FILE:FUNCTION:LABEL`, each part
    maybe in gdb's single quotes (rbreak's `FILE:'main(int, char**)'`)."""
    parts = [_unquoted(part) for part in parts]
    file: str | None = None
    if len(parts) == 3 or is_source_file(source, parts[0]):
        file, parts = parts[0], parts[1:]
    if file is None:
        functions = source.functions_in_file(parts[0], None)
    else:
        functions = file_functions(source, parts[0], file)
    if len(parts) == 1:
        return functions
    return [found for function in functions for found in labels_in(source, function, parts[1])]


def _unquoted(part: str) -> str:
    return part[1:-1] if len(part) > 2 and part[0] == part[-1] == "'" and "'" not in part[1:-1] else part


def file_functions(source: SourceSymbols, name: str, file: str) -> list[CodeLocation]:
    """gdb's `FILE:FUNCTION` (linespec.c): FUNCTION's own copies in the units whose line
    tables name FILE, as gdb searches those units' file-level blocks: no copy inlined into
    another function, and a copy whose breakpoint lands in a header's inlined code (a
    CPython module's `_abc__abc_init`) still its file's."""
    leaf = query_leaf(name)
    found = []
    for place in source.functions_in_file(name, None):
        module = source.symbols.module_at(place.address)
        info = source.debug_info(module) if module is not None else None
        if module is None or info is None:  # no debug info: where its line table puts it
            if place.source is not None and same_file(file, place.source.path):
                found.append(place)
            continue
        # The symbol table's functions of that name are its own copies, the rest inlined
        # ones; without any (a debug file's static function), the inlined copies say so.
        own = {m.breakpoint_address + module.base for m in info.functions_named(name)}
        if own and place.address not in own:
            continue
        if not own and any(die_name(die) == leaf for die in source.inline_chain_at(place.address)):
            continue
        if place.source is not None and same_file(file, place.source.path):
            found.append(place)
        elif info.cu_offset_at(place.address - module.base) in _units_naming(info, file):
            found.append(place)
    return found


# The units naming a file, by debug info (rbreak asks once per function, for few files)
_NAMING: WeakKeyDictionary[DebugInfo, dict[str, frozenset[int]]] = WeakKeyDictionary()


def _units_naming(info: DebugInfo, file: str) -> frozenset[int]:
    """The units whose line tables name `file`."""
    known = _NAMING.setdefault(info, {})
    units = known.get(file)
    if units is None:
        units = known[file] = frozenset(
            offset for offset, _name, primary, paths in info.unit_files()
            if any(same_file(file, path) for path in (primary, *paths))
        )  # fmt: skip
    return units


def labels_in(source: SourceSymbols, function: CodeLocation, label: str) -> Iterator[CodeLocation]:
    """The label named `label` in the function at `function` (its nested blocks too)."""
    subprogram = source.function_die(function.address)
    module = source.symbols.module_at(function.address)
    if subprogram is None or module is None:
        return
    for die in _labels(subprogram):
        low = attr_value(die, "DW_AT_low_pc")
        if die_name(die) != label or not isinstance(low, int):
            continue
        line = attr_value(die, "DW_AT_decl_line")
        place = source.location_of(low + module.base)
        path = function.source.path if function.source is not None else None
        shown = SourcePosition(path, line) if path is not None and isinstance(line, int) else place.source
        yield CodeLocation(place.address, function.function, shown, place.module)


def _labels(die: DIE) -> Iterator[DIE]:
    for child in die.iter_children():
        if child.tag == "DW_TAG_label":
            yield child
        elif child.tag == "DW_TAG_lexical_block":
            yield from _labels(child)


_HEX = compiled_later(r"0x[0-9a-fA-F]+")


def address_expression(spec: str) -> str | None:
    """The expression of gdb's `*EXPR` location (`*0x401136`, `*main+4`, `*&arr[2]`,
    `*$pc`); None for every other kind of location."""
    text = spec.strip()
    return text[1:].strip() if text.startswith("*") else None


def value_address(value: str, type_name: str, address: int | None) -> int:
    """The address a value stands for, as gdb's value_as_address: an array's or a function's
    own, a pointer's target, an integer's value."""
    if type_name.rstrip().endswith("]") and address is not None:
        return address  # an array decays to its address
    if value.startswith(("(", "{")):  # `(int *) 0x4010 <counter>`, `{int (void)} 0x1129 <f>`
        found = _HEX().search(value)
        if found is not None:
            return int(found.group(), 16)
    words = value.split()
    try:
        return int(words[0], 0) % (1 << 64) if words else 0
    except ValueError:
        raise TargetError("Invalid cast.") from None
