"""What the evaluator asks of the symbols it evaluates against and of their frames: the
names and types in scope, and what some of them know besides (entry values, constants,
the thread's innermost frame, the machine's vector registers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

from aliceserver.debuggers.symbols.dwarf.types import Type
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value


def minimal_function(symbols: object, name: str) -> Value | None:
    """A function without debug info by its ELF symbol (gdb's minimal symbols), for
    symbol tables that know them (the live engine's); the last place a name is looked for."""
    find: Callable[[str], Value | None] | None = getattr(symbols, "minimal_function", None)
    return find(name) if find is not None else None


class EvalSymbols(Protocol):
    """Names and types visible where the expression is evaluated."""

    @property
    def frame(self) -> FrameContext: ...

    @property
    def cplus(self) -> bool: ...

    def lookup(self, name: str) -> Value | None: ...

    def lookup_type(self, name: str) -> Type | None: ...


@runtime_checkable
class EntryValues(Protocol):
    """Symbols that read parameters' values at their function's entry (gdb's NAME@entry);
    both raise gdb's error for a name that is not such a parameter."""

    def entry_type(self, name: str) -> Type: ...

    def entry_value(self, name: str) -> Value: ...


@runtime_checkable
class KnowsConstants(Protocol):
    """Symbols that tell a constant (DW_AT_const_value, an enumerator: gdb's LOC_CONST)."""

    def is_constant(self, name: str) -> bool: ...


@runtime_checkable
class ThreadRegisters(Protocol):
    """A frame that knows its thread's innermost frame: gdb reads a register an outer
    frame did not save there (x86-64's unspecified rule, "same value")."""

    def innermost(self) -> FrameContext: ...

    def not_saved(self, regno: int) -> bool: ...


@runtime_checkable
class VectorExtensions(Protocol):
    """A frame that knows whether the machine has AVX-512 ($zmm0, $k0 and xmm16-31)."""

    @property
    def has_avx512(self) -> bool: ...


def has_avx512(ctx: FrameContext) -> bool:
    return isinstance(ctx, VectorExtensions) and ctx.has_avx512


def has_pkru(ctx: FrameContext) -> bool:
    """The machine has PKU's pkru (its XSAVE area holds the component)."""
    return bool(getattr(ctx, "has_pkru", False))
