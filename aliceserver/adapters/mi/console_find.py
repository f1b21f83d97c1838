"""gdb's `find [/SIZE-CHAR] [/MAX-COUNT] START, +LENGTH|END, EXPR1 [, EXPR2 ...]`: search
memory for a byte pattern made of the values, print each match as gdb's print_address does
(`0x555555558050 <buf+16>`), then the count or `Pattern not found.`, and set `$numfound`
and `$_` (a `void *` to the last match). gdb's findcmd.c parse_find_args and find_command,
with its errors; memory read as its simple_search_memory reads it (16000-byte chunks, a
warning and the search halted where memory cannot be read)."""

from __future__ import annotations

import re
import struct

from aliceserver.adapters.gdbcommands.examine import address_label, address_of
from aliceserver.adapters.gdbcommands.selection import Selection
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.debuggers.base import IDebugger
from aliceserver.errors import AliceError

_CHUNK = 16000  # gdb's SEARCH_CHUNK_SIZE
_SIZES = {"b": 1, "h": 2, "w": 4, "g": 8}
_FLOATS = {4: "<f", 8: "<d"}
_CLOSING = {"(": ")", "[": "]", "{": "}"}


def split_at_comma(text: str) -> tuple[str, str]:
    """The expression up to the first comma outside brackets and quotes, and what follows
    that comma (gdb's parse_to_comma_and_eval)."""
    depth: list[str] = []
    quote = ""
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in _CLOSING:
            depth.append(_CLOSING[ch])
        elif depth and ch == depth[-1]:
            depth.pop()
        elif ch == "," and not depth:
            return _required(text[:i].strip(), text[i:]), text[i + 1:]
        i += 1
    return text.strip(), ""


def _required(expression: str, rest: str) -> str:
    """gdb's parser meeting the comma where an expression should start."""
    if not expression:
        raise MiError(f"A syntax error in expression, near `{rest}'.")
    return expression


def _flags(text: str) -> tuple[str, int, str]:
    """The size letter ("" for the values' own sizes), the most matches shown and the rest."""
    size, count = "", -1
    if not text.startswith("/"):
        return size, count, text
    i = 1
    while i < len(text) and text[i] != "/" and not text[i].isspace():
        digits = re.match(r"\d+", text[i:])
        if digits:
            count = int(digits.group())
            i += len(digits.group())
            continue
        if text[i] not in _SIZES:
            raise MiError("Invalid size granularity.")
        size = text[i]
        i += 1
    return size, count, text[i:].lstrip()


class MemoryValues:
    """Expressions as gdb's memory commands read them: addresses, integers, a value's bytes."""

    def __init__(self, ctx: Context) -> None:
        session = ctx.session
        inferior = session.inferior
        stopped = inferior.process is not None and not inferior.running and inferior.selected_tid is not None
        self.where = Selection(*session.selected_frame()) if stopped else Selection(None)
        if inferior.process is None:
            session.ensure_symbols()  # before `run`, the program's image, as gdb reads it
        self.debugger: IDebugger = session.debugger

    def evaluate(self, expression: str, fmt: str | None = None) -> str:
        if not expression:
            raise MiError("Argument required (expression to compute).")
        info = self.debugger.evaluate(expression, self.where.thread_id, self.where.level, fmt,
                                      calls=self.where.thread_id is not None)  # fmt: skip
        if info.error:
            raise MiError(info.value)
        return info.value

    def address(self, expression: str) -> int:
        if not expression:
            raise MiError("Argument required (expression to compute).")
        return address_of(self.debugger, self.where, expression)

    def integer(self, expression: str) -> int:
        """gdb's value_as_long: the value converted to an integer."""
        value = self.evaluate(expression)
        plain = re.match(r"\s*-?(?:0x[0-9a-fA-F]+|\d+)", value)
        return int(plain.group(), 0) if plain else _number(self.evaluate(f"(long long)({expression})"))

    def contents(self, expression: str) -> bytes:
        """The value's own bytes, as many as its type has (a string literal with its NUL)."""
        return self.located(expression)[0]

    def located(self, expression: str) -> tuple[bytes, int | None]:
        """The value's bytes and its address (None: not in memory, gdb's not an lval)."""
        size = _number(self.evaluate(f"sizeof({expression})"))
        info = self.debugger.evaluate(expression, self.where.thread_id, self.where.level,
                                      calls=self.where.thread_id is not None)  # fmt: skip
        if info.error:
            raise MiError(info.value)
        if info.address is not None:
            return self.read(info.address, size), info.address
        return self._computed(expression, info.type, info.value, size), None

    def _computed(self, expression: str, type_name: str, text: str, size: int) -> bytes:
        info_type = type_name
        if info_type in ("float", "double") and size in _FLOATS:
            return struct.pack(_FLOATS[size], float(text))
        if text.startswith('"') and info_type.startswith("char ["):
            raw = self.evaluate(expression, "x")  # {0x68, 0x65, ...}
            return bytes(int(item, 16) & 0xFF for item in re.findall(r"0x[0-9a-f]+", raw))[:size]
        return (self.integer(expression) % (1 << (8 * size))).to_bytes(size, "little")

    def read(self, address: int, size: int) -> bytes:
        try:
            return self.debugger.read_memory(address, size)
        except AliceError:
            raise MiError(f"Cannot access memory at address {address:#x}") from None


def _number(text: str) -> int:
    match = re.match(r"\s*(-?(?:0x[0-9a-fA-F]+|\d+))", text)
    if match is None:
        raise MiError("Invalid number \"" + text + "\".")
    return int(match.group(1), 0)


def _parse(finder: MemoryValues, text: str) -> tuple[int, int, bytes, int]:
    """gdb's parse_find_args: (start, length, pattern, most matches)."""
    if not text:
        raise MiError("Missing search parameters.")
    size, count, text = _flags(text)
    first, text = split_at_comma(text)
    start = finder.address(first)
    text = text.lstrip()
    if text.startswith("+"):
        expression, text = split_at_comma(text[1:])
        if not expression:
            raise MiError("Argument required (expression to compute).")
        length = finder.integer(expression)
        if length == 0:
            return start, 0, b"", count
        if length < 0:
            raise MiError("Invalid length.")
        if start + length - 1 >= 1 << 64:
            raise MiError("Search space too large.")
    else:
        expression, text = split_at_comma(text)
        end = finder.address(expression)
        if start > end:
            raise MiError("Invalid search space, end precedes start.")
        length = end - start + 1
    pattern = bytearray()
    while text.strip():
        expression, text = split_at_comma(text.lstrip())
        if size:
            width = _SIZES[size]
            pattern += (finder.integer(expression) % (1 << (8 * width))).to_bytes(width, "little")
        else:
            pattern += finder.contents(expression)
    if not pattern:
        raise MiError("Missing search pattern.")
    if length < len(pattern):
        raise MiError("Search space too small to contain pattern.")
    return start, length, bytes(pattern), count


def _search(ctx: Context, debugger: IDebugger, start: int, length: int, pattern: bytes) -> int | None:
    """gdb's simple_search_memory: the first match's address, None when there is none or
    memory ran out (with gdb's warning)."""
    size = min(length, _CHUNK + len(pattern) - 1)
    try:
        buffer = debugger.read_memory(start, size)
    except AliceError:
        ctx.log(f"warning: Unable to access {size} bytes of target memory at {start:#x}, halting search.\n")
        return None
    base, left = start, length - size
    while True:
        at = buffer.find(pattern)
        if at >= 0:
            return base + at
        if left <= 0:
            return None
        keep = len(pattern) - 1
        base += len(buffer) - keep
        buffer = buffer[len(buffer) - keep:] if keep else b""
        more = min(left, _CHUNK)
        read_at = base + len(buffer)
        try:
            buffer += debugger.read_memory(read_at, more)
        except AliceError:
            ctx.log(f"warning: Unable to access {more} bytes of target memory at {read_at:#x}, halting search.\n")
            return None
        left -= more


def find(ctx: Context, text: str) -> Reply:
    finder = MemoryValues(ctx)
    start, length, pattern, most = _parse(finder, text.strip())
    if length == 0:  # gdb says so, then finds nothing in it
        ctx.console("Empty search range.\n")
    found, last = 0, 0
    while length and length >= len(pattern) and found != most:
        address = _search(ctx, finder.debugger, start, length, pattern)
        if address is None:
            break
        ctx.console(f"{address:#x}{address_label(finder.debugger, address)}\n")
        found, last = found + 1, address
        step = address - start + 1
        start, length = start + step, length - step
    finder.evaluate(f"$numfound = {found}")
    if found:
        finder.evaluate(f"$_ = (void *) {last:#x}")
    ctx.console("Pattern not found.\n" if not found else f"{found} pattern{'s' if found > 1 else ''} found.\n")
    return None


def register(registry: CliRegistry) -> None:
    registry.add("find", find)
