"""The x87 80-bit extended float as gdb prints it: exact, not through a Python float.

gdb formats a `long double` with `%.21Lg` (the precision its 64-bit mantissa needs) and
calls an encoding the x87 itself refuses (an integer bit that disagrees with the exponent:
unnormals, pseudo-denormals, pseudo-NaNs) `<invalid float value>`. A Python float keeps 53
bits, so `-1e-5L` came out as the double `-1.00000000000000008e-05`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # decimal is imported at the first long double shown
    from decimal import Decimal

PRECISION = 21  # significant digits, as gdb's %Lg for i387_ext
_BIAS = 16383
_FRACTION = (1 << 63) - 1


def format_x87(data: bytes) -> str:
    """gdb's text for 10 bytes of an x87 extended float (little endian)."""
    mantissa = int.from_bytes(data[:8], "little")
    sign_exponent = int.from_bytes(data[8:10], "little")
    negative, exponent = bool(sign_exponent >> 15), sign_exponent & 0x7FFF
    if (exponent == 0) != (mantissa >> 63 == 0):
        return "<invalid float value>"
    sign = "-" if negative else ""
    if exponent == 0x7FFF:  # gdb shows a NaN's whole mantissa, its integer bit too
        return f"{sign}nan({mantissa:#x})" if mantissa & _FRACTION else f"{sign}inf"
    if mantissa == 0:
        return f"{sign}0"
    power = max(exponent, 1) - _BIAS - 63  # the value is mantissa * 2**power, exactly
    from decimal import Decimal

    exact = Decimal(mantissa << power) if power >= 0 else Decimal(mantissa * 5**-power).scaleb(power)
    return sign + c_general(exact, PRECISION)


def c_general(value: Decimal, precision: int) -> str:
    """printf's %.{precision}g of a positive decimal (trailing zeros removed)."""
    from decimal import ROUND_HALF_EVEN, Context

    rounded = Context(prec=precision, rounding=ROUND_HALF_EVEN).plus(value)
    digits = "".join(map(str, rounded.as_tuple().digits)).ljust(precision, "0")[:precision]
    leading = rounded.adjusted()
    if -4 <= leading < precision:
        if leading >= 0:
            whole, fraction = digits[: leading + 1], digits[leading + 1 :]
        else:
            whole, fraction = "0", "0" * (-leading - 1) + digits
        fraction = fraction.rstrip("0")
        return f"{whole}.{fraction}" if fraction else whole
    fraction = digits[1:].rstrip("0")
    mantissa = f"{digits[0]}.{fraction}" if fraction else digits[0]
    return f"{mantissa}e{leading:+03d}"
