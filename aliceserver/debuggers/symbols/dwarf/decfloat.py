"""IEEE 754-2008 decimal floating point (_Decimal32, _Decimal64, _Decimal128, DWARF's
DW_ATE_decimal_float) in the binary integer decimal (BID) encoding x86-64 uses, read into and
written from Python's Decimal.

gdb prints these with libdecnumber's decimalNNToString, the General Decimal Arithmetic
to-scientific-string that Decimal's str() implements too (`1.2E+10`, `1E+3`, `Infinity`);
a value is rounded to its format's digits and exponent range as decimalNNFromString does
(`1.2E96df` is `1.200000E+96`, clamped into the exponent field).
"""

from __future__ import annotations

import decimal
from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True, slots=True)
class _Format:
    digits: int  # precision
    emax: int
    exponent_bits: int  # the exponent field's width; the coefficient takes the rest

    @property
    def bias(self) -> int:
        return self.emax + self.digits - 2

    def context(self) -> decimal.Context:
        return decimal.Context(prec=self.digits, Emax=self.emax, Emin=1 - self.emax, clamp=1, traps=[],
                               rounding=decimal.ROUND_HALF_EVEN)


_FORMATS = {4: _Format(7, 96, 8), 8: _Format(16, 384, 10), 16: _Format(34, 6144, 14)}
SIZES = tuple(_FORMATS)


def rounded(number: Decimal, size: int) -> Decimal:
    """`number` as the format of `size` bytes holds it (rounded, clamped, overflowed)."""
    return _FORMATS[size].context().plus(number)


def to_text(number: Decimal, size: int) -> str:
    """gdb's text of a decimal float of `size` bytes."""
    return str(rounded(number, size))


def decode(data: bytes) -> Decimal:
    """The number a little-endian BID value of 4, 8 or 16 bytes holds."""
    size = len(data)
    fmt = _FORMATS[size]
    bits = int.from_bytes(data, "little")
    width = size * 8
    sign = bits >> (width - 1)
    special = (bits >> (width - 6)) & 0x1F  # after the sign, 11110: infinity, 11111: NaN
    if special == 0x1F:
        return Decimal("-NaN" if sign else "NaN")
    if special == 0x1E:
        return Decimal("-Infinity" if sign else "Infinity")
    coefficient_bits = width - 1 - fmt.exponent_bits
    if (bits >> (width - 3)) & 3 == 3:  # large coefficient: 100 implied before its bits
        exponent = (bits >> (coefficient_bits - 2)) & ((1 << fmt.exponent_bits) - 1)
        coefficient = (0b100 << (coefficient_bits - 2)) | (bits & ((1 << (coefficient_bits - 2)) - 1))
        if coefficient >= 10**fmt.digits:  # non-canonical: zero
            coefficient = 0
    else:
        exponent = (bits >> coefficient_bits) & ((1 << fmt.exponent_bits) - 1)
        coefficient = bits & ((1 << coefficient_bits) - 1)
    return Decimal((sign, tuple(int(d) for d in str(coefficient)), exponent - fmt.bias))


def encode(number: Decimal, size: int) -> bytes:
    """`number` rounded to the format of `size` bytes, as its little-endian BID bytes."""
    fmt = _FORMATS[size]
    number = rounded(number, size)
    width = size * 8
    sign, digits, exponent = number.as_tuple()
    coefficient_bits = width - 1 - fmt.exponent_bits
    if number.is_infinite():
        bits = 0b11110 << (width - 6)
    elif number.is_nan():
        bits = 0b11111 << (width - 6)
    else:
        assert isinstance(exponent, int)
        coefficient = int("".join(map(str, digits)) or "0")
        biased = exponent + fmt.bias
        if coefficient >> coefficient_bits:  # does not fit the small form: 11, exponent, the rest
            bits = (0b11 << (width - 3)) | (biased << (coefficient_bits - 2)) \
                | (coefficient & ((1 << (coefficient_bits - 2)) - 1))
        else:
            bits = (biased << coefficient_bits) | coefficient
    bits |= sign << (width - 1)
    return bits.to_bytes(size, "little")
