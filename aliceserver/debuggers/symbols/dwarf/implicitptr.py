"""Where the object a DW_OP_implicit_pointer points to is (gdb's indirect_synthetic_pointer):
the pointer has no value of its own (`<synthetic pointer>`), `*p` reads the object its DIE
names in the same frame, from `offset` bytes in."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import die_name
from aliceserver.debuggers.symbols.dwarf.locexpr import (
    IMPLICIT_POINTER,
    EvaluationError,
    ImplicitLoc,
    Location,
    MemoryLoc,
    OptimizedOut,
)
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value
from aliceserver.debuggers.symbols.dwarf.variable import Variable, VarKind

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols


def pointee(symbols: ModuleSymbols, ctx: FrameContext, function: DIE | None, ref: int, offset: int) -> Location:
    """The location of the object at .debug_info offset `ref`, `offset` bytes in, in the
    frame of `function` (whose frame base its location may use)."""
    if function is None:
        raise EvaluationError("value has been optimized out")
    die = function.dwarfinfo.get_DIE_from_refaddr(ref)
    var = Variable(die_name(die) or "", VarKind.LOCAL, die, symbols.types.of_die_attr(die), frame_function=function)
    location = symbols.location(var, ctx)
    if not isinstance(location, MemoryLoc):  # its bytes, however it is made up
        location = ImplicitLoc(Value(var.type, location, ctx).data())
    return _moved(lambda: location, offset)


def is_synthetic(value: Value) -> bool:
    location = value.location
    return isinstance(location, OptimizedOut) and location.pointee is not None


def moved(pointer: Value, delta: int) -> Value:
    """A synthetic pointer `delta` bytes on, within the object it points to (`p + 1`)."""
    location = pointer.location
    assert isinstance(location, OptimizedOut) and location.pointee is not None
    at = OptimizedOut(IMPLICIT_POINTER, pointee=partial(_moved, location.pointee, delta))
    return Value(pointer.type, at, pointer.ctx)


def _moved(pointee: Callable[[], Location], delta: int) -> Location:
    location = pointee()
    if isinstance(location, MemoryLoc):
        return MemoryLoc(location.address + delta)
    if isinstance(location, ImplicitLoc) and 0 <= delta <= len(location.data):
        return ImplicitLoc(location.data[delta:])
    raise EvaluationError("value has been optimized out")
