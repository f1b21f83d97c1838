"""gdb.types: type helpers and type printers (gdb's own API, written anew)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from aliceserver.debuggers.printers import gdb


def get_basic_type(type_: Any) -> Any:
    """Without references, cv-qualifiers and typedefs."""
    while type_.code in (gdb.TYPE_CODE_REF, gdb.TYPE_CODE_RVALUE_REF):
        type_ = type_.target()
    return type_.unqualified().strip_typedefs()


def has_field(type_: Any, field: str) -> bool:
    type_ = get_basic_type(type_)
    if type_.code not in (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION):
        raise TypeError("not a struct or union")
    for f in type_.fields():
        if f.is_base_class:
            if has_field(f.type, field):
                return True
        elif f.name == field:
            return True
    return False


def make_enum_dict(enum_type: Any) -> dict[str, int]:
    if enum_type.code != gdb.TYPE_CODE_ENUM:
        raise TypeError("not an enum type")
    return {f.name: f.enumval for f in enum_type.fields()}


def deep_items(type_: Any) -> Iterator[tuple[str, Any]]:
    """Fields by name, those of anonymous structs and unions inlined."""
    for name, field in type_.iteritems():
        if name:
            yield name, field
        else:
            yield from deep_items(field.type)


class TypePrinter:
    """A named, enabled type printer whose instantiate() gives a recognizer."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.enabled = True

    def instantiate(self) -> Any:
        return None


def _recognizers_of(printers: list[Any], out: list[Any]) -> None:
    for printer in printers:
        if printer.enabled:
            inst = printer.instantiate()
            if inst is not None:
                out.append(inst)


def get_type_recognizers() -> list[Any]:
    result: list[Any] = []
    for objfile in gdb.objfiles():
        _recognizers_of(objfile.type_printers, result)
    _recognizers_of(gdb.current_progspace().type_printers, result)
    _recognizers_of(gdb.type_printers, result)
    return result


def apply_type_recognizers(recognizers: list[Any], type_obj: Any) -> Any:
    for recognizer in recognizers:
        result = recognizer.recognize(type_obj)
        if result is not None:
            return result
    return None


def register_type_printer(locus: Any, printer: Any) -> None:
    if locus is None:
        locus = gdb
    locus.type_printers.insert(0, printer)
