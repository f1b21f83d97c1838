"""C++ pointers to members printed as gdb prints them (gdb's cp_print_class_member and
gnuv3_print_method_ptr): `&geo::Plain::y` for a data member (its offset names the
member), `(int (geo::Plain::*)(...)) 0x401136 <geo::Plain::f(int) const>` for a method,
`&virtual geo::Plain::g()` for a virtual one, `NULL` for either when null."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.types import (
    MemberPointerType,
    StructType,
    Type,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

_SLOT = 8  # bytes per vtable entry


def format_member_pointer(value: Value, t: MemberPointerType, address: Callable[[int], str],
                          fmt: str | None) -> str:  # fmt: skip
    """`address` writes a code address (`0x401136 <f(int)>`); `fmt` a /FMT letter or None."""
    data = value.data()
    if t.is_method:
        return _method(value, t, data, address, fmt)
    offset = int.from_bytes(data[:8], "little", signed=True)
    if fmt is not None:
        return _number(offset, fmt)
    if offset == -1:
        return "NULL"
    found = _member_at(t.owner, offset)
    if found is None:
        return str(offset)
    owner, name = found
    return f"&{type_name(owner)}::{name}"


def _method(value: Value, t: MemberPointerType, data: bytes, address: Callable[[int], str],
            fmt: str | None) -> str:  # fmt: skip
    ptr = int.from_bytes(data[:8], "little")
    adjustment = int.from_bytes(data[8:16], "little", signed=True)
    if fmt is not None:  # gdb formats the function pointer half
        return _number(ptr, fmt)
    virtual = ptr & 1
    ptr ^= virtual
    if ptr == 0 and not virtual:
        return "NULL"
    owner = strip(t.owner)
    if virtual:
        method = None
        if isinstance(owner, StructType) and owner.virtual_method is not None:
            method = owner.virtual_method(ptr // _SLOT)
        if method is not None:
            return f"&virtual {method}"
        signed = ptr - (1 << 64) if ptr >= 1 << 63 else ptr  # gdb's print_longest
        text = f"&virtual table offset {signed}"
    else:
        text = f"({type_name(value.type)}) {address(ptr)}"
    if adjustment:
        text += f", this adjustment {adjustment}"
    return text


def _number(number: int, fmt: str) -> str:
    unsigned = number & (1 << 64) - 1
    if fmt in ("x", "a"):
        return f"{unsigned:#x}"
    if fmt == "z":
        return f"0x{unsigned:016x}"
    if fmt == "o":
        return f"0{unsigned:o}" if unsigned else "0"
    if fmt == "t":
        return format(unsigned, "b")
    if fmt == "u":
        return str(unsigned)
    return str(unsigned - (1 << 64) if unsigned >> 63 else unsigned)


def _member_at(owner: Type, offset: int, depth: int = 0) -> tuple[Type, str] | None:
    """The data member at byte `offset` of `owner` (gdb's cp_find_class_member): its own
    members first, then each base's at the base's offset."""
    st = strip(owner)
    if not isinstance(st, StructType) or depth > 32:
        return None
    for member in st.members:
        if not member.is_base and member.name and member.offset == offset and not member.bit_size:
            return owner, member.name
    for member in st.members:
        if member.is_base and member.offset is not None and member.offset <= offset:
            found = _member_at(member.type, offset - member.offset, depth + 1)
            if found is not None:
                return found
    return None
