"""GDB/MI output syntax: c-strings, values (tuples, lists), and records.

A value is a `str` (a c-string constant), a `dict` (a tuple `{k=v,...}`), a `list` of values
(`[v,...]`), or `Results`: key=value pairs that may repeat a key, written as a tuple or a
list (`stack=[frame={..},frame={..}]`, `thread-ids={thread-id="1",thread-id="2"}`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence, Union

# gdb's escapes; every other control byte and every byte >= 0x7f is written in octal.
# ESC is written as \033, not gdb's \e: Emacs's reader does not know \e (CLIENTS.md).
_ESCAPES = {
    0x22: '\\"', 0x5C: "\\\\", 0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r",
    0x07: "\\a", 0x08: "\\b", 0x0C: "\\f", 0x0B: "\\v",
}  # fmt: skip
_TABLE = [
    _ESCAPES.get(b, chr(b) if 0x20 <= b < 0x7F else f"\\{b:03o}") for b in range(256)
]
_ASCII = {b: _TABLE[b] for b in range(0x80)}  # str.translate's table for ASCII text
_READ_ESCAPES = {
    "n": 0x0A, "t": 0x09, "r": 0x0D, "a": 0x07, "b": 0x08, "f": 0x0C, "v": 0x0B,
    "e": 0x1B, '"': 0x22, "\\": 0x5C, "'": 0x27, "?": 0x3F,
}  # fmt: skip


class CStringError(ValueError):
    """Text that is not a well-formed c-string."""


def _plain(text: str) -> bool:
    """Whether `text` is written as it is between the quotes."""
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


def c_string(text: str | bytes) -> str:
    """`text` as an MI c-string, quotes included; str is encoded as UTF-8 first."""
    # Most fields are plain text, written as they are (25,000 in a -thread-info of 1,000 threads)
    if isinstance(text, str) and _plain(text):
        return f'"{text}"'
    if isinstance(text, str) and text.isascii():  # a console line (rbreak: 20,000 of them)
        return '"' + text.translate(_ASCII) + '"'
    data = text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text
    return '"' + "".join([_TABLE[b] for b in data]) + '"'


def read_c_string(text: str, start: int = 0) -> tuple[bytes, int]:
    """Decode the c-string starting at `text[start]` (a quote): (bytes, index after it).

    Accepts what gdb's parse_escape accepts: the escapes above, `\\e` and 1-3 octal digits.
    """
    if start >= len(text) or text[start] != '"':
        raise CStringError("a c-string must start with a double quote")
    out = bytearray()
    i = start + 1
    while i < len(text):
        ch = text[i]
        if ch == '"':
            return bytes(out), i + 1
        if ch == "\\":
            i += 1
            if i >= len(text):
                break
            esc = text[i]
            if esc in _READ_ESCAPES:
                out.append(_READ_ESCAPES[esc])
                i += 1
            elif esc in "01234567":
                end = i
                while end < len(text) and end - i < 3 and text[end] in "01234567":
                    end += 1
                out.append(int(text[i:end], 8) & 0xFF)
                i = end
            else:
                raise CStringError(f"unknown escape \\{esc}")
            continue
        out += ch.encode("utf-8", "surrogateescape")
        i += 1
    raise CStringError("unterminated c-string")


@dataclass(frozen=True)
class Results:
    """key=value pairs in order, duplicate keys allowed; `as_list` writes `[...]`. A pair
    with no key is its bare value, as a gdb field without a name."""

    items: Sequence[tuple[str, "Value"]] = field(default_factory=tuple)
    as_list: bool = False
    # gdb's MI 2 form of a breakpoint's locations: tuples after its own, outside it
    trailing: Sequence["Value"] = ()


class Written(str):
    """A value already in MI's text, written as it is: a frame's tuple written once for the
    threads that show the same one (1,000 threads parked alike in -thread-info)."""

    __slots__ = ()


Value = Union[str, Mapping[str, "Value"], Sequence["Value"], Results]


def value(item: Value) -> str:
    if isinstance(item, str):
        return item if type(item) is Written else c_string(item)
    if isinstance(item, dict):  # the usual tuple, before Mapping's slower abstract check
        # A list joined, and plain text quoted here, not in two more calls: a frame's tuple
        # in half the time (1,000 threads' frames are 10,000 of them).
        fields = [
            f'{key}="{v}"' if type(v) is str and _plain(v) else f"{key}={value(v)}"
            for key, v in item.items()
        ]
        return "{" + ",".join(fields) + "}"
    if isinstance(item, Results):
        body = ",".join([f"{key}={value(v)}" if key else value(v) for key, v in item.items])
        text = f"[{body}]" if item.as_list else f"{{{body}}}"
        return "".join([text, *("," + value(v) for v in item.trailing)])
    if isinstance(item, Mapping):
        return "{" + ",".join(f"{key}={value(v)}" for key, v in item.items()) + "}"
    return "[" + ",".join(value(v) for v in item) + "]"


def results(pairs: Iterable[tuple[str, Value]]) -> str:
    return ",".join(f"{key}={value(v)}" for key, v in pairs)


def record(prefix: str, cls: str, pairs: Iterable[tuple[str, Value]] = (), token: str = "") -> str:
    """`[token]PREFIXclass[,results]` for result (^), exec (*), notify (=) records."""
    body = results(pairs)
    return f"{token}{prefix}{cls}" + (f",{body}" if body else "")


def stream(prefix: str, text: str) -> str:
    """A console (~), target (@) or log (&) stream record."""
    return prefix + c_string(text)


def pairs_of(mapping: Mapping[str, Value]) -> list[tuple[str, Value]]:
    return list(mapping.items())
