"""Memory units and strings printed as gdb's `x` prints them (printcmd.c's print_formatted)."""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.literals import binary_text

# gdb's C escapes for a char or a string element
_ESCAPES = {7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 27: "\\033"}
REPEAT_THRESHOLD = 10  # gdb's `set print repeats`: longer runs print as <repeats N times>
PRINT_ELEMENTS = 200  # gdb's `set print elements`


def signed(value: int, size: int) -> int:
    bits = 8 * size
    return value - (1 << bits) if value >> (bits - 1) else value


def unit_text(value: int, size: int, fmt: str, label: Callable[[int], str], nibbles: str = "") -> str:
    """One unit of `size` bytes (unsigned `value`) in format `fmt`; "" is natural.
    `label` gives ` <symbol+offset>` for an address, or ""; `nibbles` /t's separator
    under `print nibbles on`."""
    if fmt in ("x", "z"):
        return f"0x{value:0{2 * size}x}"
    if fmt == "u":
        return str(value)
    if fmt == "o":
        return f"0{value:o}" if value else "0"
    if fmt == "t":
        return binary_text(value, size, nibbles, zero_pad=True)
    if fmt == "a":  # gdb reads a unit smaller than an address as a signed integer
        value = signed(value, size) & ((1 << 64) - 1)
        return f"{value:#x}{label(value)}"
    if fmt == "c":
        byte = value & 0xFF  # gdb makes a char of it: the low byte, signed
        return f"{signed(byte, 1)} '{char_escape(byte, quote=39)}'"
    if fmt == "f" and size in (4, 8):
        return float_text(value, size)
    return str(signed(value, size))  # d, natural, and f of a size no float has


def float_text(value: int, size: int) -> str:
    """A float (4 bytes) or double (8) as gdb prints it: %g with 9 or 17 digits."""
    if size == 4:
        number = struct.unpack("<f", value.to_bytes(4, "little"))[0]
        mantissa_bits, digits = 23, 9
    else:
        number = struct.unpack("<d", value.to_bytes(8, "little"))[0]
        mantissa_bits, digits = 52, 17
    negative = value >> (8 * size - 1)
    if math.isnan(number):
        return f"{'-' if negative else ''}nan({value & ((1 << mantissa_bits) - 1):#x})"
    if math.isinf(number):
        return "-inf" if number < 0 else "inf"
    return format(number, f".{digits}g")


def char_escape(byte: int, quote: int) -> str:
    """A byte inside C quotes as gdb shows it (`quote` is the quote char's code)."""
    if byte in _ESCAPES:
        return _ESCAPES[byte]
    if byte == quote or byte == 92:
        return "\\" + chr(byte)
    if 32 <= byte < 127:
        return chr(byte)
    return f"\\{byte:03o}"


def string_text(data: bytes, complete: bool, ascii: bool = False) -> str:
    """A C string (without its NUL) as `x/s` shows it: runs of more than REPEAT_THRESHOLD
    equal bytes as `'c' <repeats N times>`, `...` after it when it was cut short; `ascii`
    (`set target-charset ASCII`): bytes past 127 in octal."""
    pieces: list[str] = []
    quoted = bytearray()  # decoded together: a UTF-8 character's bytes are runs of their own
    i = 0
    while i < len(data):
        run = 1
        while i + run < len(data) and data[i + run] == data[i]:
            run += 1
        if run > REPEAT_THRESHOLD:
            if quoted:
                pieces.append(f'"{_string_chars(bytes(quoted), ascii)}"')
                quoted.clear()
            pieces.append(f"'{char_escape(data[i], quote=39)}' <repeats {run} times>")
            i += run
            continue
        quoted += data[i : i + run]
        i += run
    if quoted or not pieces:
        pieces.append(f'"{_string_chars(bytes(quoted), ascii)}"')
    return ", ".join(pieces) + ("" if complete else "...")


def _string_chars(chunk: bytes, ascii: bool) -> str:
    """Bytes of a string: valid UTF-8 beyond ASCII kept as text, as gdb on a UTF-8 host."""
    text = chunk.decode("ascii" if ascii else "utf-8", "surrogateescape")
    out = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8
            out.append(f"\\{code - 0xDC00:03o}")
        elif code < 128:
            out.append(char_escape(code, quote=34))
        elif ch.isprintable():
            out.append(ch)
        else:
            out.append("".join(f"\\{b:03o}" for b in ch.encode("utf-8")))
    return "".join(out)
