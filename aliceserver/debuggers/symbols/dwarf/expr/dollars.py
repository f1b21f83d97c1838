"""gdb's `$` values (value.c): the value history (`$1`, `$`, `$$2`) and convenience
variables (`$i`, `$_`, `$_exitcode`), kept once per debugging session for every front end,
and the artificial array `base@count` (value_repeat).

History values are snapshots: their bytes are read when recorded, and they keep the address
they were read from (`&$1`, `$1 + 1` as gdb). Convenience variables live in no memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.builtin_vars import (
    GDB_VERSION,
    READ_ONLY,
    STARTUP,
    computed,
)
from aliceserver.debuggers.symbols.dwarf.locexpr import (
    EvaluationError,
    ImplicitLoc,
    MemoryLoc,
    OptimizedOut,
)
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    PointerType,
    Type,
    VoidType,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, OptimizedOutError, Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.builtin_vars import ProbeAt
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator

MAX_VALUE_SIZE = 65536  # gdb's max-value-size: a bigger value is not fetched into the history
_VOID = VoidType()


@dataclass(frozen=True, slots=True)
class Examined:
    """What gdb's `x` leaves in `$_` and `$__`: the last unit's address, its size in bytes
    (its type is gdb's intN_t) and its bytes when they were read (None: `$__` is void)."""

    address: int
    size: int
    contents: bytes | None


@dataclass
class SessionValues:
    """One session's history and convenience variables. `thread_number` is gdb's number
    of the thread an expression is evaluated in (`$_thread`; 0 with no program)."""

    history: list[Value] = field(default_factory=list)
    variables: dict[str, Value | None] = field(default_factory=dict)  # None: void; creation order
    thread_number: int = 0
    siginfo: Callable[[FrameContext], Value | None] | None = None  # `$_siginfo` of the thread
    thread_count: int = 0  # the live process's threads (`$_inferior_thread_count`)
    probe_at: ProbeAt | None = None

    # --- the history ---------------------------------------------------------------------
    def record(self, value: Value) -> int:
        """Add a snapshot of `value` (its bytes read now) and return its number; an
        EvaluationError when the bytes cannot be read (gdb records nothing then)."""
        if not isinstance(strip(value.type), VoidType) and value.byte_size > MAX_VALUE_SIZE:
            raise EvaluationError(
                f"value requires {value.byte_size} bytes, which is more than max-value-size")
        self.history.append(_snapshot(value, keep_address=True))
        return len(self.history)

    def access(self, number: int, ctx: FrameContext) -> Value:
        """gdb's access_value_history: `number` <= 0 counts back from the last value."""
        absolute = number + len(self.history) if number <= 0 else number
        if absolute <= 0:
            if number == 0:
                raise EvaluationError("The history is empty.")
            raise EvaluationError(f"History does not go back to $${-number}.")
        if absolute > len(self.history):
            raise EvaluationError(f"History has not yet reached ${absolute}.")
        kept = self.history[absolute - 1]
        return HistoryValue(kept.type, kept.location, ctx, kept.bit_offset, kept.bit_size,
                            _data=kept._data, _holes=kept._holes)

    # --- convenience variables ------------------------------------------------------------
    def variable(self, name: str, ctx: FrameContext) -> Value:
        """`$name`'s value; looking at an unset one creates it, void (gdb's lookup_internalvar)."""
        if name in ("_thread", "_gthread"):
            return _int(self.thread_number, ctx)
        if name == "_inferior":
            return _int(1, ctx)
        if name == "_siginfo":  # void with no thread, as gdb's
            if self.thread_number and self.siginfo is None:
                raise EvaluationError("Unable to read siginfo")
            found = self.siginfo(ctx) if self.siginfo is not None else None
            return _named(found, name) if found is not None else void(ctx)
        made = computed(name, ctx, has_frame=self.thread_number != 0, thread_count=self.thread_count,
                        probe_at=self.probe_at)
        if made is not None:
            return made if name in READ_ONLY or name == "_sdata" else _named(made, name)
        if name in GDB_VERSION and name not in self.variables:
            self.variables[name] = _int(GDB_VERSION[name], NoFrame())
        kept = self.variables.setdefault(name, None) or void(ctx)
        return ConvenienceValue(kept.type, kept.location, ctx, _data=kept._data, name=name)

    def set_variable(self, name: str, value: Value) -> Value:
        """`$name = value`: the variable takes value's type and a copy of its bytes."""
        if name == "_siginfo" and self.thread_number:  # gdb's siginfo_value_funcs' write
            raise EvaluationError("Invalid cast.")
        if name in READ_ONLY or name == "_siginfo":
            raise EvaluationError("Left operand of assignment is not an lvalue.")
        stored = _snapshot(value, keep_address=False)
        self.variables[name] = stored  # where it was made: gdb lists them by creation, newest first
        return stored

    def set_integer(self, name: str, number: int) -> None:
        """`$name` an int (gdb's set_internalvar_integer: $bpnum, $_hit_bpnum...)."""
        self.set_variable(name, _int(number, NoFrame()))

    def clear(self, name: str) -> None:
        self.variables[name] = None

    def examined(self, found: Examined) -> None:
        """After `x`: `$_` the last unit's address, `$__` its contents (gdb's x_command)."""
        ctx = NoFrame()
        unit = BaseType(f"int{8 * found.size}_t", found.size, Encoding.SIGNED)
        self.set_variable("_", Value.of_int(PointerType(unit), found.address, ctx))
        if found.contents is None:
            self.clear("__")
        else:
            self.set_variable("__", Value.of_bytes(unit, found.contents, ctx))

    def exited(self, code: int | None, signal: int | None = None) -> None:
        """gdb's clear_exit_convenience_vars (making both, in its order), then the one set;
        neither known (a kill, a lost link): both as they were."""
        if code is None and signal is None:
            return
        self.clear("_exitsignal")
        self.clear("_exitcode")
        if signal is not None:
            self.set_variable("_exitsignal", _int(signal, NoFrame()))
        elif code is not None:
            self.set_variable("_exitcode", _int(code, NoFrame()))

    def names(self) -> list[str]:
        """The variables, newest first (gdb's show convenience), then gdb's built-in ones."""
        return [*(name for name in reversed(self.variables) if name not in STARTUP), *STARTUP]


class NoFrame:
    """The frame of a value set outside any evaluation (`$_` after x, `$_exitcode` at the
    exit): its bytes are its own; it is read in the frame of the evaluation using it."""

    pc = 0
    load_bias = 0
    fs_base = None

    def read_memory(self, address: int, size: int) -> bytes:
        raise EvaluationError("No frame selected.")

    def register(self, regno: int) -> int | None:
        return None

    def cfa(self) -> int | None:
        return None

    def write_memory(self, address: int, data: bytes) -> None:
        raise EvaluationError("No frame selected.")

    def write_register(self, regno: int, value: int) -> None:
        raise EvaluationError("No frame selected.")


def _named(value: Value, name: str) -> Value:
    """A computed built-in as `$name` in an expression (an internal function refuses a store)."""
    return ConvenienceValue(value.type, value.location, value.ctx, _data=value._data, name=name)


def void(ctx: FrameContext) -> Value:
    return Value(_VOID, ImplicitLoc(b""), ctx, _data=b"")


def _int(number: int, ctx: FrameContext) -> Value:
    return Value.of_int(BaseType("int", 4, Encoding.SIGNED), number, ctx)


def _snapshot(value: Value, *, keep_address: bool) -> Value:
    """`value` with its bytes read now. A value wholly or partly optimized out is kept so
    (gdb records `$1 = <optimized out>` too); memory that cannot be read is an error."""
    if isinstance(value.location, OptimizedOut):
        if value.location.error:  # no value at all (gdb's read_var_value failed)
            raise EvaluationError(value.location.reason)
        return Value(value.type, value.location, value.ctx, value.bit_offset, value.bit_size)
    try:
        data = value.data() if not isinstance(strip(value.type), VoidType) else b""
    except OptimizedOutError:
        return _partly_optimized_out(value)
    location = value.location if keep_address and isinstance(value.location, MemoryLoc) else ImplicitLoc(data)
    return Value(value.type, location, value.ctx, value.bit_offset, value.bit_size, _data=data)


def _partly_optimized_out(value: Value) -> Value:
    """A snapshot keeping the holes of a value some of whose pieces are gone."""
    try:
        data, holes = value._fetch()
    except OptimizedOutError:  # a register with no value in this frame: all of it is gone
        return Value(value.type, OptimizedOut(), value.ctx, value.bit_offset, value.bit_size)
    return Value(value.type, ImplicitLoc(data), value.ctx, value.bit_offset, value.bit_size,
                 _data=data, _holes=holes)


def session_values(evaluator: Evaluator) -> SessionValues:
    """The session's store the evaluation was given; without one (conditions, tests) an
    empty one for this evaluation, so `$i` is void as in a fresh gdb."""
    if evaluator.dollars is None:
        evaluator.dollars = SessionValues()
    return evaluator.dollars


# --- evaluation -------------------------------------------------------------------------------
@dataclass(eq=False)
class ConvenienceValue(Value):
    """`$name`'s value in an expression: assigning to it sets the variable."""

    name: str = ""


@dataclass(eq=False)
class HistoryValue(Value):
    """A history value in an expression: gdb's value history is not modifiable."""


def store(evaluator: Evaluator, target: Value, op: str, value: Value) -> Value | None:
    """`$i = 3`, `$i += 2`, `++$i`: the variable takes the new value and its type. None
    when target is no convenience variable (an ordinary store)."""
    if isinstance(target, HistoryValue):
        raise EvaluationError("Left operand of assignment is not a modifiable lvalue.")
    if not isinstance(target, ConvenienceValue):
        return None
    from aliceserver.debuggers.symbols.dwarf.expr.functions import NAMES  # it imports this module

    if target.name in NAMES:
        raise EvaluationError(f"Cannot overwrite convenience function {target.name}")
    if op != "=":
        value = evaluator.arith(op[:-1], target, value)
    if evaluator.type_only:
        return value
    stored = session_values(evaluator).set_variable(target.name, value)
    return ConvenienceValue(stored.type, stored.location, evaluator.ctx, _data=stored._data, name=target.name)


def repeat(evaluator: Evaluator, node: ast.Repeat) -> Value:
    """gdb's BINOP_REPEAT: `count` objects of base's type from base's address."""
    base, count_value = evaluator.eval(node.base), evaluator.eval(node.count)
    if not _integral(strip(count_value.type)):
        raise EvaluationError('Non-integral right operand for "@" operator.')
    count = count_value.as_int()
    array = ArrayType(base.type, count)
    if evaluator.type_only:
        return evaluator.zero(array)
    if not isinstance(base.location, MemoryLoc) or base.bit_size:
        raise EvaluationError("Only values in memory can be extended with '@'.")
    if count < 1:
        raise EvaluationError(f"Invalid number {count} of repetitions.")
    return Value(array, MemoryLoc(base.location.address), evaluator.ctx)


def _integral(t: Type) -> bool:
    """gdb's TYPE_CODE_INT (C's chars too) or TYPE_CODE_ENUM; not bool, floats, char16_t."""
    if isinstance(t, EnumType):
        return True
    return isinstance(t, BaseType) and t.encoding in (
        Encoding.SIGNED, Encoding.UNSIGNED, Encoding.SIGNED_CHAR, Encoding.UNSIGNED_CHAR)
