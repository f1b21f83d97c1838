"""BID decimal floating point (decfloat.py) against the bits gdb 13 prints with `p/x` for
the same literals, and round trips through the three formats."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.decfloat import decode, encode, to_text

# (literal, size, gdb 13's p/x of it, its text)
_KNOWN = [
    ("1.2", 4, 0x3200000C, "1.2"),
    ("1.2E96", 4, 0x5F924F80, "1.200000E+96"),
    ("1.2E97", 4, 0x78000000, "Infinity"),
    ("-1.2", 8, 0xB1A000000000000C, "-1.2"),
    ("0.1", 8, 0x31A0000000000001, "0.1"),
    ("1.234567890123456789012345678901234", 16, 0x2FFE3CDE6FFF9732DE825CD07E96AFF2,
     "1.234567890123456789012345678901234"),
    ("1.2E6144", 16, 0x5FFE3B2A211F104A441B3A0C00000000, "1.200000000000000000000000000000000E+6144"),
]


@pytest.mark.parametrize(("literal", "size", "bits", "text"), _KNOWN)
def test_bits_and_text_as_gdb(literal: str, size: int, bits: int, text: str) -> None:
    data = encode(Decimal(literal), size)
    assert int.from_bytes(data, "little") == bits
    assert to_text(decode(data), size) == text


@given(st.integers(min_value=-(10**16) + 1, max_value=10**16 - 1), st.integers(min_value=-398, max_value=369),
       st.sampled_from([8, 16]))
def test_round_trip(coefficient: int, exponent: int, size: int) -> None:
    number = Decimal(coefficient).scaleb(exponent)
    assert decode(encode(number, size)) == number
