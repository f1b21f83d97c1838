"""gdb's `printf "FORMAT", ARGS...`: the format string's pieces and their printing.

The rules are gdb's (gdbsupport/format.cc's format_pieces, printcmd.c's printf_command):
C89 conversions plus `ll` and `z`, gdb's escapes in the string, an argument class per
conversion, and the values converted as the host printf would take them (an `int`
conversion takes the value cut to 32 bits, `%p` is `%#llx` or `(nil)`, `%s` of a null
pointer is `(null)`). What reads the program's values is passed in, so this stays text.
"""

from __future__ import annotations

import enum
import math
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from aliceserver.errors import ProtocolError


class ArgClass(enum.Enum):
    INT = "int"
    LONG = "long"
    LONG_LONG = "long long"
    SIZE_T = "size_t"
    PTR = "pointer"
    STRING = "string"
    DOUBLE = "double"
    LONG_DOUBLE = "long double"
    WIDE_CHAR = "wide char"  # %lc: printed as %s of its UTF-8
    WIDE_STRING = "wide string"  # %ls: as %s of the wchar_t string's UTF-8
    DECIMAL32 = "_Decimal32"  # %H
    DECIMAL64 = "_Decimal64"  # %D
    DECIMAL128 = "_Decimal128"  # %DD


INTEGER_CLASSES = frozenset((ArgClass.INT, ArgClass.LONG, ArgClass.LONG_LONG, ArgClass.SIZE_T))
FLOAT_CLASSES = frozenset((ArgClass.DOUBLE, ArgClass.LONG_DOUBLE))
DECIMAL_CLASSES = {"H": ArgClass.DECIMAL32, "D": ArgClass.DECIMAL64, "DD": ArgClass.DECIMAL128}


@dataclass(frozen=True, slots=True)
class Piece:
    text: str  # literal text, or one conversion (`%-5ld`)
    arg: ArgClass | None = None  # None: literal


_ESCAPES = {"\\": "\\", "a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
            "v": "\v", '"': '"'}


def split_command(text: str) -> tuple[str, list[str]]:
    """`"FORMAT", ARG, ...` as printf takes it: the format with its escapes read, and the
    argument expressions (split at the commas outside brackets and quotes)."""
    text = text.strip()
    if not text:
        raise ProtocolError("Argument required (format-control string and values to print).")
    if not text.startswith('"'):
        raise ProtocolError("Bad format string, missing '\"'.")
    out: list[str] = []
    index = 1
    while True:
        if index >= len(text):
            raise ProtocolError("Bad format string, non-terminated '\"'.")
        char = text[index]
        if char == '"':
            break
        if char == "\\":
            index += 1
            escaped = text[index] if index < len(text) else ""
            if escaped not in _ESCAPES:
                raise ProtocolError(f"Unrecognized escape character \\{escaped} in format string.")
            out.append(_ESCAPES[escaped])
        else:
            out.append(char)
        index += 1
    rest = text[index + 1 :].lstrip()
    if rest and not rest.startswith(","):
        raise ProtocolError("Invalid argument syntax")
    return "".join(out), split_arguments(rest[1:]) if rest else []


def split_arguments(text: str) -> list[str]:
    """Expressions separated by top-level commas."""
    args: list[str] = []
    depth, quote, start = 0, "", 0
    for index, char in enumerate(text):
        if quote:
            if char == quote and text[index - 1] != "\\":
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            args.append(text[start:index].strip())
            start = index + 1
    if text.strip():
        args.append(text[start:].strip())
    return args


def parse_format(fmt: str) -> list[Piece]:
    """The pieces of a format, with gdb's errors for what printf does not take."""
    pieces: list[Piece] = []
    literal: list[str] = []
    index = 0
    while index < len(fmt):
        char = fmt[index]
        if char != "%":
            literal.append(char)
            index += 1
            continue
        if fmt[index + 1 : index + 2] == "%":
            literal.append("%%")
            index += 2
            continue
        if literal:
            pieces.append(Piece("".join(literal)))
            literal = []
        end, arg = _conversion(fmt, index + 1)
        pieces.append(Piece(fmt[index:end], arg))
        index = end
    if literal:
        pieces.append(Piece("".join(literal)))
    return pieces


def _conversion(fmt: str, start: int) -> tuple[int, ArgClass]:
    """One conversion after its `%`: where it ends and the argument it takes."""
    index = start
    flags = ""
    while index < len(fmt) and fmt[index] in "0-+ #":
        flags += fmt[index]
        index += 1
    while index < len(fmt) and (fmt[index].isdigit() or fmt[index] == "*"):
        if fmt[index] == "*":
            raise ProtocolError("`*' not supported for precision or width in printf")
        index += 1
    precision = index < len(fmt) and fmt[index] == "."
    if precision:
        index += 1
        while index < len(fmt) and (fmt[index].isdigit() or fmt[index] == "*"):
            if fmt[index] == "*":
                raise ProtocolError("`*' not supported for precision or width in printf")
            index += 1
    length = ""
    if fmt[index : index + 2] == "ll":
        length = "ll"
    elif fmt[index : index + 2] == "DD":
        length = "DD"
    elif index < len(fmt) and fmt[index] in "hlLHDz":
        length = fmt[index]
    index += len(length)
    if index >= len(fmt):
        raise ProtocolError("Incomplete format specifier at end of format string")
    conv = fmt[index]
    lcount = length.count("l")
    bad = False
    arg: ArgClass
    if conv in "uoxXdi":
        bad = (conv == "u" and "#" in flags) or (conv in "oxX" and (" " in flags or "+" in flags))
        bad = bad or (conv in "di" and "#" in flags) or length in ("L", "H", "D", "DD")
        arg = (ArgClass.SIZE_T if length == "z" else ArgClass.INT if lcount == 0
               else ArgClass.LONG if lcount == 1 else ArgClass.LONG_LONG)
    elif conv == "c":
        arg = ArgClass.INT if lcount == 0 else ArgClass.WIDE_CHAR
        bad = lcount > 1 or length in ("h", "L", "z") or precision or any(f in flags for f in "0 +")
    elif conv == "p":
        arg = ArgClass.PTR
        bad = bool(length) or precision or any(f in flags for f in "#0 +")
    elif conv == "s":
        arg = ArgClass.STRING if lcount == 0 else ArgClass.WIDE_STRING
        bad = lcount > 1 or length in ("h", "L", "z") or any(f in flags for f in "0 +")
    elif conv in "efgEG":
        arg = (DECIMAL_CLASSES[length] if length in DECIMAL_CLASSES else ArgClass.LONG_DOUBLE if length == "L"
               else ArgClass.DOUBLE)
        bad = lcount > 0 or length in ("h", "z")
    elif conv == "n":
        raise ProtocolError("Format specifier `n' not supported in printf")
    else:
        raise ProtocolError(f"Unrecognized format specifier '{conv}' in printf")
    if bad:
        raise ProtocolError(f"Inappropriate modifiers to format specifier '{conv}' in printf")
    return index + 1, arg


@dataclass(frozen=True, slots=True)
class StringArg:
    """A `%s` argument: a pointer to read the string at, or a literal's own bytes."""

    address: int = 0
    literal: bytes | None = None


@dataclass(frozen=True, slots=True)
class DecimalArg:
    """A decimal float conversion's argument: its value's text, which gdb prints whatever
    the conversion's flags, width and precision (target-float.c has no decimal printf)."""

    text: str


ArgValue = int | float | StringArg | DecimalArg


def _host_spec(piece: Piece) -> str:
    """The conversion without its length modifier (Python's % has none)."""
    text = piece.text
    body = text[1:-1].rstrip("hlLzDH")
    return "%" + body + text[-1]


def _integer(piece: Piece, value: int) -> int:
    bits = 32 if piece.arg is ArgClass.INT else 64
    if "h" in piece.text[1:-1]:
        bits = 16
    value &= (1 << bits) - 1
    signed = piece.text[-1] in "di"
    if signed and value >> (bits - 1):
        value -= 1 << bits
    return value


def _floating(spec: str, value: float) -> bytes:
    text = (spec % value).encode()
    if math.isnan(value) and math.copysign(1.0, value) < 0:
        text = text.replace(b"nan", b"-nan", 1)
    return text


def render(pieces: list[Piece], values: list[ArgValue], read_string: Callable[[int], bytes]) -> Iterator[bytes]:
    """The output piece by piece (gdb writes what came before an error that reading a
    string raises)."""
    args = iter(values)
    for piece in pieces:
        if piece.arg is None:
            yield piece.text.replace("%%", "%").encode()
            continue
        value = next(args)
        spec = _host_spec(piece)
        number, real = (value, float(value)) if isinstance(value, int) else (0, value if isinstance(value, float) else 0.0)
        if piece.arg is ArgClass.WIDE_CHAR:  # gdb converts it to the host's charset, then %s
            yield (spec[:-1] + "s").encode() % wide_text([number])
            continue
        if isinstance(value, DecimalArg):
            yield value.text.encode()
            continue
        if piece.arg in (ArgClass.STRING, ArgClass.WIDE_STRING):  # a wide one comes read, as UTF-8
            assert isinstance(value, StringArg)
            if value.literal is not None:
                yield spec.encode() % value.literal
            elif value.address == 0:
                yield spec.encode() % b"(null)"
            else:
                yield spec.encode() % read_string(value.address)
        elif piece.arg is ArgClass.PTR:
            number &= (1 << 64) - 1
            width = spec[1:-1]
            yield (f"%{width}s" % "(nil)").encode() if number == 0 else (f"%#{width}x" % number).encode()
        elif piece.arg in FLOAT_CLASSES:
            yield _floating(spec, real)
        elif spec[-1] == "c":
            yield spec.encode() % (number & 0xFF)
        else:
            number = _integer(piece, number)
            if spec[-1] == "o" and "#" in spec and number:  # C's alternate octal: a leading 0
                yield ((spec.replace("#", "")[:-1] + "s") % ("0" + format(number, "o"))).encode()
            elif spec[-1] in "xX" and not number:  # C's %#x of 0 is 0, without 0x
                yield spec.replace("#", "").encode() % number
            else:
                yield (spec.replace("#", "") if spec[-1] == "o" else spec).replace("u", "d").encode() % number


def wide_text(codes: list[int]) -> bytes:
    """wchar_t code points as UTF-8 (what is no character: U+FFFD)."""
    return "".join(chr(code) if 0 <= code < 0x110000 else "\ufffd" for code in codes).encode("utf-8", "replace")


def float_from_bits(raw: int, size: int) -> float:
    """gdb's printf of an integer with a float conversion: the integer's bytes read as a
    float of its size."""
    if size == 4:
        return float(struct.unpack("<f", (raw & 0xFFFFFFFF).to_bytes(4, "little"))[0])
    return float(struct.unpack("<d", (raw & (1 << 64) - 1).to_bytes(8, "little"))[0])
