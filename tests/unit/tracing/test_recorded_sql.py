"""recorded_sql.py's SQL text of register bits equals callabi's fast formatters' (the bulk
insert and the one-by-one rows must read the same), for every width, sign and a pointer."""

from __future__ import annotations

import sqlite3
import struct

import pytest

from aliceserver.debuggers.ptrace.callabi import _fast_scalar
from aliceserver.debuggers.ptrace.recorded_sql import sql_format, sql_scalar, sql_value
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, PointerType, Type

BITS = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF,
        0x123456789ABCDEF0, 0x7FFFFFFFFFFFFFFF, 0x8000000000000000, 0xFFFFFFFFFFFFFFFF,
        0xDEADBEEFCAFEF00D, 0x00007FFC12345678]  # fmt: skip
TYPES: list[Type] = [BaseType(name, size, encoding) for name, size, encoding in (
    ("signed char?", 1, Encoding.SIGNED), ("unsigned char?", 1, Encoding.UNSIGNED),
    ("short", 2, Encoding.SIGNED), ("unsigned short", 2, Encoding.UNSIGNED),
    ("int", 4, Encoding.SIGNED), ("unsigned int", 4, Encoding.UNSIGNED),
    ("long", 8, Encoding.SIGNED),
)] + [PointerType(BaseType("long", 8, Encoding.SIGNED))]  # fmt: skip


@pytest.mark.parametrize("t", TYPES, ids=lambda t: getattr(t, "name", "long *"))
def test_sql_text_is_the_fast_formatters(t: Type) -> None:
    fast, expression = _fast_scalar(t), sql_scalar(t, "v")
    assert fast is not None and expression is not None
    db = sqlite3.connect(":memory:")
    for bits in BITS:
        signed = bits - (1 << 64) if bits >> 63 else bits  # as the ring's bytes cast to "q"
        (text,) = db.execute(f"SELECT {expression} FROM (SELECT ? AS v)", (signed,)).fetchone()
        assert text == fast(bits), (bits, text)
        conversion, value = sql_value(t, "v") or ("", "")  # in an arguments' printf template
        (text,) = db.execute(f"SELECT printf('[\"%s\", \"{conversion}\"]', 'x', {value}) FROM (SELECT ? AS v)",
                             (signed,)).fetchone()  # fmt: skip
        assert text == f'["x", "{fast(bits)}"]', (bits, text)


def test_unsigned_long_has_no_sql_text() -> None:
    assert sql_scalar(BaseType("unsigned long", 8, Encoding.UNSIGNED), "v") is None


@pytest.mark.parametrize("t", TYPES, ids=lambda t: getattr(t, "name", "long *"))
def test_a_value_read_in_its_format_is_the_expressions_integer(t: Type) -> None:
    """The bulk drain reads each value from the ring's bytes in sql_format's C type, in
    place of the SQL expression: the same integer for every width and sign."""
    _, expression = sql_value(t, "v") or ("", "")
    db = sqlite3.connect(":memory:")
    for bits in BITS:
        qword = memoryview(struct.pack("<Q", bits))
        read = qword.cast(sql_format(t))[0]
        signed = bits - (1 << 64) if bits >> 63 else bits
        assert read == db.execute(f"SELECT {expression} FROM (SELECT ? AS v)", (signed,)).fetchone()[0], bits
