"""C++ methods in expressions through the xmethods scripts registered (libstdc++'s
`v[1]`, `v.size()`, `*up`, `sp->x`), as gdb's find_overload_match and call_xmethod: the
matchers of every objfile, then the progspace's, then gdb's own, asked for the class and
each of its bases; a matching worker whose parameters take the arguments runs in Python
over gdb.Values. A method that only the program has (no xmethod) is left to the call into
the program (expr/cxxcalls.py); an operator of the program's is still refused.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from aliceserver.debuggers.printers import context
from aliceserver.debuggers.symbols.dwarf.expr.methods import class_of
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import (
    PointerType,
    ReferenceType,
    StructType,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

if TYPE_CHECKING:
    from aliceserver.debuggers.printers.host import PrinterHost

log = logging.getLogger(__name__)

_MAX_BASES = 64  # a class hierarchy read from bad DWARF still ends


class XMethods:
    """The evaluator's `methods` (expr/methods.py) at one frame."""

    def __init__(self, host: PrinterHost, frame: FrameContext) -> None:
        self._host = host
        self._frame = frame

    def call(self, obj: Value, name: str, args: list[Value], *, operator: bool) -> Value | None:
        cls = class_of(obj)
        if cls is None:
            return None
        call = self._host.prepared_call(self._frame)
        with context.entered(call):
            workers = list(_workers(call, cls, name))
            chosen = next(((c, w) for c, w, params in workers if len(args) <= params), None)
            if chosen is not None:
                return _invoke(chosen[1], obj, chosen[0], args)
        declared = [found for base in _hierarchy(cls) if base.methods is not None
                    for found in base.methods(name)]  # fmt: skip
        source = [linkage for linkage, params in declared if len(args) <= params]
        if not source and workers and not declared:  # xmethods of that name, none taking these
            raise EvaluationError(f"Cannot resolve method {type_name(cls)}::{name} to any overloaded instance")
        if not operator:  # the program's own methods (expr/cxxcalls.py) decide
            return None
        if not source and declared:
            raise EvaluationError(f"Cannot resolve method {type_name(cls)}::{name} to any overloaded instance")
        if not source:
            return None
        target = call.target
        if any(linkage and target is not None and target.has_code(linkage) for linkage in source):
            return None  # the program's own operator: called in the program (expr/cxxcalls.py)
        raise EvaluationError(f"Could not find {name}.")  # declared, never emitted: nothing to call


def subscript_worker(call: context.Call, obj: Value) -> Callable[[Value], Value] | None:
    """`obj[n]` through the one-argument operator[] xmethod of its class, if one matches
    (a container's own indexing, for paging its printer's children by index)."""
    cls = class_of(obj)
    if cls is None:
        return None
    found = next(((c, w) for c, w, params in _workers(call, cls, "operator[]") if params == 1), None)
    if found is None:
        return None
    base, worker = found
    return lambda index: _invoke(worker, obj, base, [index])


def _hierarchy(cls: StructType) -> Iterator[StructType]:
    """The class, then its bases depth first (gdb's find_method_list)."""
    stack, seen = [cls], 0
    while stack and seen < _MAX_BASES:
        t = stack.pop(0)
        seen += 1
        yield t
        bases = [strip(m.type) for m in t.members if m.is_base]
        stack[:0] = [b for b in bases if isinstance(b, StructType)]


def _matchers(call: context.Call) -> Iterator[Any]:
    session = call.session
    for objfile in session.objfiles.values():
        yield from objfile.xmethods
    yield from session.progspace.xmethods
    yield from session.xmethods


def _workers(call: context.Call, cls: StructType, name: str) -> Iterator[tuple[StructType, Any, int]]:
    """(the class matched, a worker, how many parameters it takes) for `cls` and its bases."""
    from aliceserver.debuggers.printers.gdbtype import Type

    matchers = [m for m in _matchers(call) if getattr(m, "enabled", True)]
    if not matchers:
        return
    for base in _hierarchy(cls):
        for matcher in matchers:
            try:
                found = matcher.match(Type(base), name)
            except Exception as exc:
                _log_python(exc)
                raise EvaluationError("Error while looking for matching xmethod workers defined in Python.") from None
            if found is None:
                continue
            for worker in found if isinstance(found, (list, tuple)) else (found,):
                if worker is not None and getattr(worker, "enabled", True):
                    yield base, worker, _param_count(worker)


def _param_count(worker: Any) -> int:
    try:
        types = worker.get_arg_types()
    except Exception as exc:
        _log_python(exc)
        raise EvaluationError("Error while looking for arg types of a xmethod worker defined in Python.") from None
    if types is None:
        return 0
    if isinstance(types, (list, tuple)):
        return len(types)
    return 1


def _invoke(worker: Any, obj: Value, cls: StructType, args: list[Value]) -> Value:
    """gdb's python_xmethod_worker::invoke: `obj` as the matched class, the result converted
    as a Python value is (None: void)."""
    from aliceserver.debuggers.printers.gdbvalue import Value as GdbValue
    from aliceserver.debuggers.printers.gdbvalue import _cast, from_python

    try:
        this = obj.pointer_target() if isinstance(strip(obj.type), ReferenceType) else obj
        if strip(this.type) is not cls:  # a base class's xmethod: the object as that base
            this = _cast(this, cls)
        if this.address is None or this.bit_size:
            raise EvaluationError("Attempt to take address of value not located in memory.")
        # gdb passes `this`: a pointer to the object (value_addr in value_x_binop).
        pointer = Value.of_int(PointerType(this.type), this.address, this.ctx)
        result = worker(GdbValue(pointer), *(GdbValue(a) for a in args))
        if result is None:
            return Value.of_bytes(VoidType(), b"", obj.ctx)
        return from_python(result)
    except EvaluationError:
        raise
    except Exception as exc:  # the script's error: gdb prints it and says this
        _log_python(exc)
        raise EvaluationError("Error while executing Python code.") from None


def _log_python(exc: Exception) -> None:
    log.info("Python Exception %s: %s", type(exc), exc, exc_info=exc)
