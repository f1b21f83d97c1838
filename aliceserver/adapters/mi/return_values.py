"""`return VALUE` from a float or double function (gdb's return_command through
amd64_return_value): the value, cast to the function's return type, goes in the low 4 or
8 bytes of xmm0, the rest of xmm0 left as it was. The value is computed in the selected
frame before it is popped and written after; a long double (st0) is still refused."""

from __future__ import annotations

import math
import re
import struct
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import MiError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

# the return type: (struct format, xmm0's lane of that size as an integer, its bits)
_LANES = {"float": ("<f", "v4_int32", 32), "double": ("<d", "v2_int64", 64)}
_NAN = re.compile(r"(-?)nan\(0x([0-9a-f]+)\)")


def float_returned(session: MiSession, returns: str, text: str) -> str | None:
    """For a float or double function, the assignment that puts TEXT (cast to RETURNS,
    as gdb's value_cast) in xmm0, to evaluate once the frame is popped; None for another
    type."""
    lane = _LANES.get(returns)
    if lane is None:
        return None
    shown = session.display(session.evaluate(f"({returns})({text})"))
    bits = _bits(shown, returns)
    if bits is None:
        raise MiError(f"Returning a {returns} value is not supported by aliceserver.")
    _, name, size = lane
    signed = bits - (1 << size) if bits >> (size - 1) else bits  # the lane is a signed int
    return f"$xmm0.{name}[0] = {signed}"


def _bits(shown: str, returns: str) -> int | None:
    """The IEEE bits of a value gdb printed as SHOWN (%g to round trip, inf, nan(0xM))."""
    fmt, _, size = _LANES[returns]
    nan = _NAN.fullmatch(shown)
    if nan is not None:  # the mantissa gdb shows is the value's own: keep it
        exponent = (1 << 8) - 1 if size == 32 else (1 << 11) - 1
        mantissa_bits = 23 if size == 32 else 52
        sign = 1 << (size - 1) if nan.group(1) else 0
        return sign | exponent << mantissa_bits | int(nan.group(2), 16)
    try:
        value = float(shown)
    except ValueError:
        return None
    if math.isnan(value):
        return None
    return int.from_bytes(struct.pack(fmt, value), "little")
