"""Calls recorded by trace trampolines, formatted as the trap path formats them.

A record (trace_rings.py) holds the registers and stack qwords the trampoline copied at the
call or at the return; `RecordedFunction.arguments` / `return_value` rebuild the registers
from them and format through calltrace's own hit (the same formatters, so a value reads the
same whether a trap or a patch saw it). What cannot be formatted from copied registers
alone, because the formatter would read the program's memory (a char* string, a reference,
a struct returned in memory, an x87 long double, a pointer the fast formatters do not
print as a plain address), makes `memory_needed` say why: such functions keep the traps.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from aliceserver.debuggers.model import FunctionSymbol, VectorRegisters
from aliceserver.debuggers.ptrace.binding import UserRegs
from aliceserver.debuggers.ptrace.callabi import ArgumentSlot, fast_scalar, returns_in_memory
from aliceserver.debuggers.ptrace.calltrace import _Hit, _Trace
from aliceserver.debuggers.ptrace.patches.trace_trampoline import Source
from aliceserver.debuggers.ptrace.recorded_sql import SqlShape, sql_shape
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    EnumType,
    PointerType,
    StructType,
    Type,
    is_float,
    strip,
)
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.calltrace import CallTracer

STACK_QWORDS = 8  # arguments passed in memory: at most this many qwords copied
CACHED = 4096  # formatted values kept per recorded function and kind (call, return)
RETURN_SOURCES: tuple[Source, ...] = (("int", "rax"), ("int", "rdx"), ("sse", 0), ("sse", 1))
Record = tuple[int, ...]  # header, rdtsc, CFA, values...


class Unpatchable(AliceError):
    """The function's calls cannot be recorded by patches; the message says why.
    `transient`: not now, but once the program has run (no thread can run system calls yet)."""

    def __init__(self, reason: str, transient: bool = False) -> None:
        super().__init__(reason)
        self.transient = transient


@dataclass(frozen=True, slots=True)
class Refused:
    reason: str
    transient: bool


@dataclass
class RecordedFunction:
    id: int
    function: FunctionSymbol
    trace: _Trace  # what calltrace's formatting reads (slots, return type, options, bias)
    sources: tuple[Source, ...]  # the CALL record's values
    patched: list[tuple[int, int, int]] = field(default_factory=list)  # (site, trampoline, size)
    trapped_returns: list[str] = field(default_factory=list)  # "0x...: why"
    traps: list[LogicalBreakpoint] = field(default_factory=list)
    _fast: list[tuple[str, Callable[[int], str], int]] | None = None
    _fast_return: Callable[[int], str] | None = None
    _template: str | None = None
    # The drain's per-record calls, made for this function's types (see __post_init__).
    arguments_json: Callable[[Record], str] = field(init=False)
    return_value: Callable[[Record], str | None] = field(init=False)
    sql: SqlShape | None = field(init=False)  # the same in SQL, for bulk inserts (or None)

    def __post_init__(self) -> None:
        slots = self.trace.slots
        if all(s.fast is not None for s in slots):
            self._fast = [
                (s.name, cast("Callable[[int], str]", s.fast), 3 + i) for i, s in enumerate(slots)
            ]
            # What the fast formatters write (digits, "-", "0x", hex) needs no JSON escaping.
            pairs = ", ".join(f'[{json.dumps(s.name).replace("%", "%%")}, "%s"]' for s in slots)
            self._template = f"[{pairs}]"
        self._fast_return = fast_scalar(self.trace.returns)
        self.arguments_json = self._json_of()
        self.return_value = self._return_of()
        self.sql = sql_shape(slots, self.trace.returns)

    def _json_of(self) -> Callable[[Record], str]:
        """`json.dumps(self.arguments(record))`; for scalars, without the encoder's cost."""
        template, fast = self._template, self._fast
        if template is None or fast is None:
            return lambda record: json.dumps(self.arguments(record))
        if len(fast) == 1:
            ((_, first, at),) = fast
            return _cached(lambda raw: template % first(raw), at)
        return lambda record: template % tuple(f(record[at]) for _, f, at in fast)

    def arguments(self, record: Record) -> list[tuple[str, str]]:
        if self._fast is not None:
            return [(name, fast(record[at])) for name, fast, at in self._fast]
        return _RecordedHit(self, record, self.sources).arguments()

    def _return_of(self) -> Callable[[Record], str | None]:
        if self.trace.returns is None:
            return lambda record: None
        fast = self._fast_return
        if fast is not None:
            return _cached(fast, 3)
        return lambda record: _RecordedHit(self, record, RETURN_SOURCES).return_value()


def _cached(format_raw: Callable[[int], str], at: int) -> Callable[[Record], str]:
    """`format_raw(record[at])`, each distinct value formatted once (a hot function is often
    called with, or returns, few distinct values); the cache is emptied past CACHED values."""
    cache: dict[int, str] = {}

    def formatted(record: Record) -> str:
        raw = record[at]
        text = cache.get(raw)
        if text is None:
            if len(cache) >= CACHED:
                cache.clear()
            text = cache[raw] = format_raw(raw)
        return text

    return formatted


class _Memory:
    """What a recorded hit may read: the stack qwords its record copied, nothing else."""

    def __init__(self, start: int, data: bytes) -> None:
        self.start, self.data = start, data

    def read_visible(self, address: int, size: int) -> bytes:
        offset = address - self.start
        if offset < 0 or offset + size > len(self.data):
            raise TargetError(f"Cannot access memory at address {address:#x} (not recorded)")
        return self.data[offset : offset + size]


class _RecordedHit(_Hit):
    """calltrace's hit over registers rebuilt from a record: the same formatting."""

    __slots__ = ("_xmm",)

    def __init__(
        self, recorded: RecordedFunction, record: Record, sources: tuple[Source, ...]
    ) -> None:
        regs = UserRegs()
        regs.rsp = record[2] - 8
        xmm = [bytes(16)] * 16
        stack = bytearray()
        for (kind, where), value in zip(sources, record[3:], strict=False):
            if kind == "int":
                setattr(regs, str(where), value)
            elif kind == "sse":
                xmm[int(where)] = value.to_bytes(8, "little") + bytes(8)
            else:
                stack += value.to_bytes(8, "little")
        memory = _Memory(record[2], bytes(stack))
        super().__init__(cast("CallTracer", memory), recorded.trace, 0, regs)
        self._xmm = tuple(xmm)

    def _vector(self) -> VectorRegisters:
        return VectorRegisters({}, (), self._xmm, ())


def _memory_free(t: Type, depth: int) -> bool:
    """Whether the formatter shows a value of `t` from its bytes alone."""
    s = strip(t)
    if isinstance(s, EnumType):
        return True
    if isinstance(s, BaseType):
        return not (is_float(s) and s.size > 8)  # long double: x87, not copied
    if isinstance(s, PointerType):
        return fast_scalar(s) is not None  # a plain address (strings and functions are not)
    if isinstance(s, ArrayType):
        return not s.vector and s.count is not None and _memory_free(s.element, depth)
    if isinstance(s, StructType):
        return not s.cplus and all(_memory_free(m.type, depth) for m in s.members)
    return False


def memory_needed(slots: list[ArgumentSlot], returns: Type | None) -> str | None:
    """None when the records hold all the values need, else why not."""
    stack = 0
    for slot in slots:
        if not _memory_free(slot.type, 1):
            return f"argument {slot.name} needs the program's memory at the call to be shown"
        if slot.stack_offset is not None:
            stack = max(stack, slot.stack_offset + strip(slot.type).size)
    if stack > 8 + 8 * STACK_QWORDS:
        return f"its arguments passed in memory take more than {8 * STACK_QWORDS} bytes"
    if returns is not None and (returns_in_memory(returns) or not _memory_free(returns, 1)):
        return "its return value needs the program's memory to be shown"
    return None


def entry_sources(slots: list[ArgumentSlot]) -> tuple[Source, ...]:
    """The CALL record's values: the argument registers, then the stack qwords."""
    sources: list[Source] = []
    stack_end = 8
    for slot in slots:
        sources += slot.pieces
        if slot.stack_offset is not None:
            stack_end = max(stack_end, slot.stack_offset + -(-strip(slot.type).size // 8) * 8)
    sources += [("stack", offset) for offset in range(8, stack_end, 8)]
    return tuple(sources)
