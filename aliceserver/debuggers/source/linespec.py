"""gdb's scoped linespecs: `FILE:FUNCTION`, `FUNCTION:LABEL` and `FILE:FUNCTION:LABEL`.

The first part of `A:B` is a source file when the debug info names one so (gdb tries the
file first), else a function whose label B is wanted. `ns::f` stays one name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterator

from aliceserver.debuggers.model import CodeLocation, SourcePosition
from aliceserver.debuggers.symbols.dwarf.dies import attr_value, die_name
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
    return path == query or path.endswith("/" + query.lstrip("./"))


def is_source_file(source: SourceSymbols, name: str) -> bool:
    return any(same_file(name, path) for path in source.source_files())


def resolve_scoped(source: SourceSymbols, parts: list[str]) -> list[CodeLocation]:
    """Locations of `FILE:FUNCTION`, `FUNCTION:LABEL` or `FILE:FUNCTION:LABEL`."""
    file: str | None = None
    if len(parts) == 3 or is_source_file(source, parts[0]):
        file, parts = parts[0], parts[1:]
    functions = source.functions_in_file(parts[0], file)
    if len(parts) == 1:
        return functions
    return [found for function in functions for found in labels_in(source, function, parts[1])]


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
