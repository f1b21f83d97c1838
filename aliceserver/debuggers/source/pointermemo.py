"""Descriptions of pointer variables kept across stops, by their type and bytes.

A loop's stop shows the same `char **argv`, `const char *text`, `PyObject *self` as the
last one; describing one through the format layers (its type's name, its text, its
children's count, the checks for printers, Rust enums and dynamic types) cost 25-45 us of
a variables request. All of it but three parts follows from the pointer's type and bytes:
its symbol (`<table+8>`, looked up again: the symbolizer keeps it while the modules stay),
a char *'s string (read again at each stop: the program may have written it) and its
children's reference (a new one at each stop). Pointers whose children or text depend on
what they point to otherwise (a Rust enum's variant, a wide string, Rust's own formatting)
are described anew. Not used where pretty printers are loaded: a printer may take any type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.restamp import restamped
from aliceserver.debuggers.source.memo import DescriptionKey, Memo, bytes_key
from aliceserver.debuggers.symbols.dwarf.dynamic import is_dynamic_class
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions, Symbolize, c_string
from aliceserver.debuggers.symbols.dwarf.literals import wide_prefix
from aliceserver.debuggers.symbols.dwarf.rust_types import is_rust
from aliceserver.debuggers.symbols.dwarf.types import PointerType, StructType, strip
from aliceserver.debuggers.symbols.dwarf.values import Value, is_char_type, is_rust_enum


def pointer_key(
    name: str, value: Value, how: tuple[object, ...], *, dynamic: bool = False
) -> DescriptionKey | None:
    """What the description of pointer `value` depends on but its symbol, string, children's
    reference and address; None for any other value or a pointer described anew. `dynamic`:
    dynamic types are looked for, which only a pointer to a class with a vtable changes."""
    t = strip(value.type)
    if not isinstance(t, PointerType) or is_rust(value.type) or wide_prefix(t.target) is not None:
        return None
    target = strip(t.target)
    if isinstance(target, StructType) and is_rust_enum(target):  # its variant is read through it
        return None
    if dynamic and is_dynamic_class(target):  # its type is read through it
        return None
    return bytes_key(name, value, how)


@dataclass(frozen=True, slots=True)
class _Shape:
    info: VariableInfo  # as described at the first stop
    prefix: str  # `(T *) ` before the address, where the description has one
    string: bool  # a char *: its string follows the address

    def text(self, address: int, value: Value, options: FormatOptions, symbolize: Symbolize) -> str:
        """The value's text as format_value writes it, without the format layers."""
        text = f"{self.prefix}{address:#x}"
        name = symbolize(address, True) if address else None
        if name:
            text += f" <{name}>"
        if self.string and address:
            text += " " + c_string(value.ctx, address, options)
        return text


class PointerDescriptions(Memo[_Shape]):
    """The shapes of the pointers described, by pointer_key."""

    def describe(
        self, key: DescriptionKey, value: Value, options: FormatOptions, symbolize: Symbolize,
        make: Callable[[], VariableInfo], new_reference: Callable[[], int],
    ) -> VariableInfo:  # fmt: skip
        """`make()`'s description of `value`, or the one a shape kept for `key` gives."""
        address = int.from_bytes(key[3], "little")
        shape = self.get(key)
        if shape is None:
            info = make()
            shape = _shape(info, address, value, options, symbolize)
            if shape is not None:
                self.keep(key, shape)
            return info
        return restamped(
            shape.info, value=shape.text(address, value, options, symbolize),
            reference=new_reference() if shape.info.reference else 0, address=value.address,
        )  # fmt: skip


def _shape(
    info: VariableInfo, address: int, value: Value, options: FormatOptions, symbolize: Symbolize
) -> _Shape | None:
    """The shape of `info`, if its text is the one the shape writes (else it is not kept)."""
    if info.error or info.printer is not None or info.variant is not None:
        return None
    t = strip(value.type)
    assert isinstance(t, PointerType)
    hexadecimal = f"{address:#x}"
    at = info.value.find(hexadecimal)
    if at < 0:
        return None
    shape = _Shape(info, info.value[:at], is_char_type(strip(t.target)))
    return shape if shape.text(address, value, options, symbolize) == info.value else None
