"""The fast formatters of callabi.py as SQL expressions, for the drain's bulk inserts.

A function whose arguments are all integers or data pointers in registers (and whose return
value is one too, or void) has its rows' JSON arguments and return value made by SQLite
from the raw register bits (call_batch.py), with text equal to what the fast formatters
write in Python: `str` of the value, `hex` of a pointer. Register bits come as signed
64-bit integers (SQLite's integer): an unsigned 64-bit value has no such expression.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from aliceserver.debuggers.ptrace.callabi import ArgumentSlot
from aliceserver.debuggers.symbols.dwarf.types import (
    BaseType,
    Encoding,
    EnumType,
    PointerType,
    StructType,
    Type,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import is_char_type

IntFormat = Literal["b", "B", "h", "H", "i", "I", "q"]


@dataclass(frozen=True, slots=True)
class SqlShape:
    template: str  # printf format of the arguments' JSON, each value's conversion in it
    arguments: tuple[str, ...]  # integer expressions of columns v{i} (record value 3 + i)
    returned: str  # a text expression of column r (rax), or NULL (void)
    return_value: tuple[str, str] | None = None  # (conversion, integer expression of r); None: void
    # memoryview formats reading each value (the arguments', then the return value's) from
    # the low bytes of its qword as the expressions make it: no expression left to evaluate.
    formats: tuple[IntFormat, ...] = ()


def sql_value(t: Type, column: str) -> tuple[str, str] | None:
    """callabi._fast_scalar's text of `column`'s bits as SQL: (a printf conversion, the
    integer it converts); None where there is none (an unsigned 64-bit value)."""
    if isinstance(t, BaseType) and t.encoding in (Encoding.SIGNED, Encoding.UNSIGNED) and t.size in (1, 2, 4, 8):
        if t.size == 8:
            return ("%d", column) if t.encoding is Encoding.SIGNED else None
        mask, sign = (1 << 8 * t.size) - 1, 1 << (8 * t.size - 1)
        if t.encoding is Encoding.UNSIGNED:
            return "%d", f"({column} & {mask})"
        return "%d", f"(({column} & {mask}) - (({column} & {sign}) << 1))"
    if isinstance(t, PointerType):
        target = strip(t.target)
        if is_char_type(target) or not isinstance(target, (BaseType, StructType, PointerType, EnumType)):
            return None
        return "0x%x", column
    return None


# The expressions' integers as C types read them (little-endian: the low bytes come first).
_FORMATS: dict[tuple[Encoding, int], IntFormat] = {(Encoding.SIGNED, 1): "b", (Encoding.SIGNED, 2): "h", (Encoding.SIGNED, 4): "i",
            (Encoding.SIGNED, 8): "q", (Encoding.UNSIGNED, 1): "B", (Encoding.UNSIGNED, 2): "H",
            (Encoding.UNSIGNED, 4): "I"}  # fmt: skip


def sql_format(t: Type) -> IntFormat:
    """The memoryview format whose item, at the start of the value's qword, is the integer
    sql_value's expression makes of the qword (a pointer: the qword as is)."""
    if isinstance(t, BaseType):
        return _FORMATS[t.encoding, t.size]
    return "q"


def sql_scalar(t: Type, column: str) -> str | None:
    """The same as one text expression (a return value)."""
    value = sql_value(t, column)
    if value is None:
        return None
    conversion, expression = value
    return f"CAST({expression} AS TEXT)" if conversion == "%d" else f"printf('{conversion}', {expression})"


def sql_shape(slots: list[ArgumentSlot], returns: Type | None) -> SqlShape | None:
    """The function's arguments and return value in SQL, or None (formatted in Python).
    One printf makes the arguments' JSON (a printf per value cost a third more)."""
    if len(slots) > 6 or any(s.fast is None for s in slots):
        return None
    values = [sql_value(strip(s.type), f"v{i}") for i, s in enumerate(slots)]
    returned = "NULL" if returns is None else sql_scalar(strip(returns), "r")
    if returned is None:
        return None
    pairs, arguments = [], []
    for slot, value in zip(slots, values, strict=True):
        if value is None:
            return None
        pairs.append(f'[{json.dumps(slot.name).replace("%", "%%")}, "{value[0]}"]')
        arguments.append(value[1])
    value = None if returns is None else sql_value(strip(returns), "r")
    formats = tuple(sql_format(strip(t)) for t in [*(slot.type for slot in slots), *([returns] if returns else [])])
    return SqlShape(f"[{', '.join(pairs)}]", tuple(arguments), returned, value, formats)
