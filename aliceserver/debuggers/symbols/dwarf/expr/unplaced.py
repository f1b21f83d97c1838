"""Values that live in no memory of the program, as gdb evaluates them: an array literal
(`{1, 2, 3}`, value_array), one copied into the program where it is used by address
(value_coerce_to_target), and `{type} address` (UNOP_MEMVAL)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.calls import caller_of
from aliceserver.debuggers.symbols.dwarf.expr.classcast import c_cast
from aliceserver.debuggers.symbols.dwarf.expr.convert import decay
from aliceserver.debuggers.symbols.dwarf.expr.noprogram import NEEDS_TARGET, coerce_to_target
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import ArrayType, PointerType, ReferenceType, strip
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator


def in_target(ev: Evaluator, value: Value) -> Value:
    """gdb's value_coerce_to_target: an array that lives in no memory (a string or array
    literal, a convenience variable's) copied into the program (its malloc) where it is
    used by address; gdb's error without a thread to run that in."""
    coerce_to_target(ev.symbols, value)
    if not isinstance(strip(value.type), ArrayType) or isinstance(value.location, MemoryLoc):
        return value
    caller = caller_of(ev.symbols)
    if caller is None:
        raise EvaluationError(NEEDS_TARGET)
    if ev.type_only:  # nothing runs for whatis and ptype: somewhere, as gdb's value_zero
        return Value(value.type, MemoryLoc(0), ev.ctx, _data=value.data())
    return Value(value.type, MemoryLoc(caller.allocate(value.data())), ev.ctx)


def memory_at(ev: Evaluator, node: ast.MemoryAt) -> Value:
    """`{type} address` (gdb's value_at_lazy of value_as_address): an array or function
    operand stands for its address, a pointer or integer is one."""
    target = ev.resolve_type(node.type)
    operand = decay(ev.rvalue(ev.eval(node.address)), ev.builtins)
    address = c_cast(operand, ev.builtins.of("unsigned long"), ev.builtins, ev.classes).as_int()
    return ev.deref(Value.of_int(PointerType(target), address, ev.ctx))


def array_literal(ev: Evaluator, elements: list[Value]) -> Value:
    """`{a, b, c}` (gdb's value_array): the elements' bytes side by side, as an array of
    the first one's type; every element must be as big."""
    if not elements:
        raise EvaluationError("bad array bounds (0, -1)")
    elements = [ev.target(e) if isinstance(strip(e.type), ReferenceType) else e for e in elements]
    first = elements[0].type
    if any(element.type.size != first.size for element in elements):
        raise EvaluationError("array elements must all be the same size")
    data = b"".join(element.data() for element in elements)
    return Value.of_bytes(ArrayType(first, len(elements)), data, ev.ctx)
