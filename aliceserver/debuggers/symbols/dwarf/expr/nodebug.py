"""Variables known only by their ELF symbol, as gdb's eval.c treats its minimal symbols of
data (type <data variable, no debug info>, TYPE_CODE_ERROR): reading one fails with
"'NAME' has unknown type; cast it to its declared type", except as the whole expression
of whatis and ptype; `&var` is a pointer to that type; `(T) var` reads the variable's
bytes as a T (a value, not an lvalue); sizeof fails as a read does."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.expr.evalsymbols import EvalSymbols
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import NodebugDataType, Type
from aliceserver.debuggers.symbols.dwarf.values import Value


def minimal_data(symbols: EvalSymbols, name: str) -> Value | None:
    """A variable without debug info by its ELF symbol, for symbol tables that know them
    (the live engine's `data`); asked after every other place a name may be."""
    find: Callable[[str], int | None] | None = getattr(symbols, "data", None)
    address = find(name) if find is not None else None
    if address is None:
        return None
    return Value(NodebugDataType(symbol=name), MemoryLoc(address), symbols.frame)


def is_nodebug(value: Value) -> bool:
    return isinstance(value.type, NodebugDataType)


def checked(value: Value, *, whole_type_only: bool) -> Value:
    """A name's value read as an operand: gdb's error for a variable of unknown type, but
    where whatis or ptype asks for the type of the name alone (`whole_type_only`)."""
    if isinstance(value.type, NodebugDataType) and not whole_type_only:
        raise EvaluationError(f"'{value.type.symbol}' has unknown type; cast it to its declared type")
    return value


def read_as(value: Value, target: Type) -> Value:
    """`(T) var`: the variable's bytes as a T (gdb's value_at_lazy, then not an lvalue)."""
    return Value.of_bytes(target, value.with_type(target).data(), value.ctx)
