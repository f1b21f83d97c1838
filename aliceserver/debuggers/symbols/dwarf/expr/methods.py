"""C++ methods and operators of a class in expressions (`v.size()`, `v[1]`, `*up`, `up->x`),
the way gdb evaluates them: a method given by an xmethod (Python, beside the library's
printers) runs without running the program; any other is called in the program
(cxxcalls.py). The evaluator asks an `EvalSymbols` that has a `methods` attribute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, ImplicitLoc
from aliceserver.debuggers.symbols.dwarf.types import ReferenceType, StructType, strip
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator


class Methods(Protocol):
    def call(self, obj: Value, name: str, args: list[Value], *, operator: bool) -> Value | None:
        """`obj.name(args)` (an operator: `operator[]`, `operator*`, `operator->`), or None
        when the class has no method of that name and no xmethod takes it (gdb's
        NOT_FOUND_ERROR). Raises EvaluationError with gdb's text otherwise."""
        ...


def methods_of(symbols: object) -> Methods | None:
    found = getattr(symbols, "methods", None)
    return found if found is not None and hasattr(found, "call") else None


def class_of(value: Value) -> StructType | None:
    """The C++ class of a value (through a reference), or None."""
    t = strip(value.type)
    if isinstance(t, ReferenceType):
        t = strip(t.target)
    return t if isinstance(t, StructType) and t.cplus else None


def operator(ev: Evaluator, obj: Value, name: str, args: list[Value]) -> Value | None:
    """A class's operator (`operator[]`, `operator*`, `operator->`) on `obj`: an xmethod's,
    else the class's own, called in the program; None when `obj` is no class (or, for
    `->`, its class has none); gdb's error when none is found."""
    cls = class_of(obj)
    if cls is None:
        return None
    _check_addressable(ev, obj)
    methods = methods_of(ev.symbols)
    found = methods.call(obj, name, args, operator=True) if methods is not None else None
    if found is not None:
        return found
    from aliceserver.debuggers.symbols.dwarf.expr.cxxcalls import (  # it imports this module
        call_method,
        method_candidates,
    )

    if method_candidates(cls, name):
        return call_method(ev, obj, name, args, operator=True)
    if methods is None or name == "operator->":  # `->` falls back to the class's members
        return None
    raise EvaluationError(f'No symbol "{name}" in current context.')


def method_call(ev: Evaluator, obj: Value, name: str, args: list[Value], operator: bool = False) -> Value:
    """`obj.name(args)`: an xmethod first (a library's, run in Python), else the program's
    method, called in the program (cxxcalls.py); `operator`: for `a + b`, gdb's words."""
    _check_addressable(ev, obj)
    methods = methods_of(ev.symbols)
    if methods is not None and class_of(obj) is not None:
        found = methods.call(obj, name, args, operator=False)
        if found is not None:
            return found
    from aliceserver.debuggers.symbols.dwarf.expr.cxxcalls import (
        call_method,  # it imports this module
    )

    return call_method(ev, obj, name, args, operator)


def _check_addressable(ev: Evaluator, obj: Value) -> None:
    """whatis, ptype and sizeof: a method or operator on another call's made-up value
    (gdb's value_zero, not_lval: `*v.begin()`) fails as gdb's value_addr of it does."""
    if ev.type_only and isinstance(obj.location, ImplicitLoc):
        raise EvaluationError("Attempt to take address of value not located in memory.")
