"""Scalars and literals in gdb's words: C escapes, character and string literals (UTF-8
characters kept, runs of one byte repeated), wide-character prefixes, floats (IEEE single
and double, half and bfloat16) and enum values (flag enums as `(A | B)`)."""

from __future__ import annotations

import functools
import math
import re
import struct

from aliceserver.debuggers.symbols.dwarf.types import (
    BaseType,
    Encoding,
    EnumType,
    QualifiedType,
    Type,
    TypedefType,
)
from aliceserver.regexes import compiled_later

_ESCAPES = {7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v", 27: "\\033"}


def _escape(byte: int, quote: str) -> str:
    if byte in _ESCAPES:
        return _ESCAPES[byte]
    ch = chr(byte)
    if ch == "\\" or ch == quote:
        return "\\" + ch
    if 32 <= byte < 127:
        return ch
    return f"\\{byte:03o}"


# A string's bytes within double quotes: printable ASCII, the quote and backslash escaped.
_QUOTED_ASCII = tuple(_escape(byte, '"') for byte in range(0x80))
_PLAIN = compiled_later(rb"[ !#-\[\]-~]*")  # printable ASCII but `"` and `\`: shown as they are


@functools.lru_cache(maxsize=8)
def _repeated(threshold: int) -> re.Pattern[bytes]:
    """Finds a run of one byte longer than `threshold`."""
    return re.compile(rb"(.)\1{%d}" % threshold, re.DOTALL)


def char_literal(code: int, *, wide: bool = False) -> str:
    """`'a'`, `'\\n'`, `'\\000'`, `'\\303'` like gdb; wide characters as text."""
    if wide:
        return "'" + wide_escape(code, "'") + "'"
    return "'" + _escape(code & 0xFF, "'") + "'"


def wide_escape(code: int, quote: str = '"') -> str:
    if code < 0x80:
        return _escape(code, quote)
    if code < 0x110000 and chr(code).isprintable():
        return chr(code)
    return f"\\{code:o}"


def binary_text(number: int, size: int, separator: str = "", *, zero_pad: bool = False) -> str:
    """`number` (unsigned, of `size` bytes) in binary as gdb's print_binary_chars: with a
    `separator` (`print nibbles`: the language's, " " or C++'s "'" or Rust's "_") every
    nibble from the first one shows whole, and groups of four are separated after the
    first one digit (x/t's zero-padded digits before it stay together, as in gdb)."""
    if not separator:
        return f"{number:0{8 * size}b}" if zero_pad else format(number, "b")
    digits = f"{number:0{8 * size}b}"
    out: list[str] = []
    seen_one = False
    for i in range(0, len(digits), 4):
        nibble = digits[i : i + 4]
        if seen_one:
            out.append(separator)
        if zero_pad or seen_one or "1" in nibble:
            out.append(nibble)
        seen_one = seen_one or "1" in nibble
    return "".join(out) if seen_one or zero_pad else "0"


_WIDE_NAMES = {"wchar_t": "L", "char16_t": "u", "char32_t": "U"}


def wide_prefix(t: Type) -> str | None:
    """gdb's literal prefix (L, u, U) when `t` is a wide character type, by its name."""
    for _ in range(16):
        name = getattr(t, "name", None)
        if isinstance(name, str) and name in _WIDE_NAMES:
            return _WIDE_NAMES[name]
        if isinstance(t, BaseType):
            if t.encoding == Encoding.UTF and t.size > 1:
                return "u" if t.size == 2 else "U"
            return None
        if not isinstance(t, (TypedefType, QualifiedType)):
            return None
        t = t.target
    return None


def _utf8_width(lead: int) -> int:
    return 2 if 0xC2 <= lead <= 0xDF else 3 if 0xE0 <= lead <= 0xEF else 4 if 0xF0 <= lead <= 0xF4 else 0


def _utf8_character(data: bytes) -> str | None:
    """The one printable character `data` encodes, or None."""
    try:
        text = data.decode("utf-8") if data else ""
    except UnicodeDecodeError:
        return None
    return text if len(text) == 1 and text.isprintable() else None


def _quoted_run(data: bytes, ascii: bool = False) -> str:
    out: list[str] = []
    i = 0
    while i < len(data):
        byte = data[i]
        if byte >= 0x80:
            # Valid UTF-8 shows as text (gdb does the same with a UTF-8 host charset): one
            # character of the width its lead byte says, never the ASCII bytes after it;
            # under `set target-charset ASCII` no byte past 127 is a character.
            text = None if ascii else _utf8_character(data[i : i + _utf8_width(byte)])
            if text is not None:
                out.append(text)
                i += len(text.encode("utf-8"))
            else:
                out.append(f"\\{byte:03o}")
                i += 1
            continue
        out.append(_QUOTED_ASCII[byte])
        i += 1
    return '"' + "".join(out) + '"'


def string_literal(data: bytes, threshold: int = 10, ascii: bool = False) -> str:
    """gdb's string printing: runs longer than `threshold` as `'c' <repeats N times>`;
    `ascii` (`set target-charset ASCII`): bytes past 127 in octal, UTF-8 or not."""
    if not data:
        return '""'
    # Most strings: plain text without a long run, shown as they are (a tenth of the time)
    if _PLAIN().fullmatch(data) and 0 <= threshold and (len(data) <= threshold or not _repeated(threshold).search(data)):
        return '"' + data.decode("ascii") + '"'
    segments: list[str] = []
    pending = bytearray()
    i = 0
    while i < len(data):
        run = 1
        while i + run < len(data) and data[i + run] == data[i]:
            run += 1
        if run > threshold:
            if pending:
                segments.append(_quoted_run(bytes(pending), ascii))
                pending.clear()
            # gdb quotes a repeated character with the string's quoter: ''', not '\''
            segments.append("'" + _escape(data[i], '"') + f"' <repeats {run} times>")
        else:
            pending += data[i : i + run]
        i += run
    if pending:
        segments.append(_quoted_run(bytes(pending), ascii))
    return ", ".join(segments)


def format_float(data: bytes, digits: int = 9) -> str:
    """gdb's %g with the type's precision: 9 digits for float, 17 for double, 21 for the
    x87 long double (`digits`: a float's, for bfloat16's 4 read as the float it widens to)."""
    if len(data) == 4:
        number = float(struct.unpack("<f", data)[0])
        mant_bits, raw = 23, int.from_bytes(data, "little")
    elif len(data) == 8:
        number = float(struct.unpack("<d", data)[0])
        digits, mant_bits, raw = 17, 52, int.from_bytes(data, "little")
    else:
        from aliceserver.debuggers.symbols.dwarf.x87 import format_x87  # long doubles: on the first

        return format_x87(data[:10])  # exactly: a Python float would keep 53 of its 64 bits
    if math.isnan(number):
        sign = "-" if raw >> (len(data) * 8 - 1) else ""
        return f"{sign}nan({raw & ((1 << mant_bits) - 1):#x})"
    if math.isinf(number):
        return "-inf" if number < 0 else "inf"
    return f"{number:.{digits}g}"


def format_short_float(data: bytes, *, bfloat16: bool) -> str:
    """A 16-bit float as gdb's %g with its precision (floatformat_printf_format: 2 +
    mantissa bits * log10 2): 4 digits for bfloat16 (8 bits), 5 for IEEE half (11)."""
    raw = int.from_bytes(data[:2], "little")
    if bfloat16:
        if raw & 0x7F80 == 0x7F80 and raw & 0x7F:  # a NaN: its own 7 mantissa bits, as gdb
            return f"{'-' if raw >> 15 else ''}nan({raw & 0x7F:#x})"
        return format_float((raw << 16).to_bytes(4, "little"), digits=4)
    number = float(struct.unpack("<e", data[:2])[0])
    if math.isnan(number):
        return f"{'-' if raw >> 15 else ''}nan({raw & 0x3FF:#x})"
    if math.isinf(number):
        return "-inf" if number < 0 else "inf"
    return f"{number:.5g}"


def format_enum(t: EnumType, number: int) -> str:
    for name, value in t.enumerators:
        if value == number:
            return name
    if t.is_flag and number > 0:
        names = []
        rest = number
        for name, value in t.enumerators:
            if value and rest & value == value:
                names.append(name)
                rest &= ~value
        if rest:
            names.append(f"unknown: {rest:#x}")
        return "(" + " | ".join(names) + ")"
    return str(number - (1 << 64) if number >= 1 << 63 else number)  # gdb prints a LONGEST
