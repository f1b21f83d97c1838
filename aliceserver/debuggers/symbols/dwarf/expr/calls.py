"""Calls into the program in expressions (`f(1, 2)`, `fp(3)`, `(int)getpid()`), the way gdb
evaluates them (infcall.c, valarith.c's value_arg_coerce): the function and its type from
the expression, each argument converted to its parameter's type (or promoted, past a
prototype's end and without one), string literals copied into the program's memory, and
the call itself run by the backend (a `FunctionCaller`, the evaluator's symbols' `calls`).
Without a live process there is nothing to call: gdb's "You can't do that without a
process to debug."
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Protocol

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.convert import (
    cast,
    decay,
    is_floating,
    promote,
    to_number,
)
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.member_functions import pass_by_reference
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    EnumType,
    FunctionType,
    NodebugFunctionType,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    TypedefType,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator

NO_PROCESS = "You can't do that without a process to debug."


class FunctionCaller(Protocol):
    def call(self, name: str, address: int, arguments: list[tuple[Type, bytes]], returns: Type) -> bytes:
        """Run the function at `address` with each argument's bytes as its type holds them;
        the return value's bytes (empty for void). Raises with gdb's words when the call
        stops before it returns."""
        ...

    def allocate(self, data: bytes) -> int:
        """Copy `data` into fresh memory of the program (gdb calls its malloc); its address."""
        ...

    def name_of(self, address: int) -> str:
        """How gdb names the function at `address` in its messages."""
        ...

    def address_of(self, symbol: str) -> int | None:
        """The runtime address of a function's symbol (a C++ method's linkage name)."""
        ...


def caller_of(symbols: object) -> FunctionCaller | None:
    found = getattr(symbols, "calls", None)
    return found if found is not None and hasattr(found, "call") else None


def _unknown_return(t: FunctionType) -> bool:
    """A function returning a DW_TAG_unspecified_type (gas's) says nothing of what it
    returns: gdb asks for a cast, as for a function without debug info. One without
    DW_AT_type returns void, prototyped or not (C's `void f ()`); one known only by its
    ELF symbol (a PLT stub, a library without debug info) returns what a cast says."""
    return t.unknown_return or isinstance(t, NodebugFunctionType)


def call_function(ev: Evaluator, node: ast.Call, cast_to: Type | None = None) -> Value:
    """`node` evaluated by calling into the program; `cast_to`: the type of a cast around
    the call, which stands for the return type a function without debug info lacks."""
    from aliceserver.debuggers.symbols.dwarf.expr.functions import (
        call_internal,
        is_internal_function,
    )

    if is_internal_function(ev, node.function):  # $_streq(...): gdb's own, nothing runs in the program
        return call_internal(ev, node)
    values: list[Value] | None = None
    chosen: Value | None = None
    if isinstance(node.function, ast.Name) and ev.symbols.cplus:  # overloads: by the arguments
        from aliceserver.debuggers.symbols.dwarf.expr.cxxcalls import (
            call_static,
            choose_function,
            scoped_class,
        )

        values = [ev.eval(arg) for arg in node.args]
        static = scoped_class(ev, node.function)
        if static is not None:  # Cls::f(x)
            return call_static(ev, static[0], static[1], values)
        chosen = choose_function(ev, node.function.name.lstrip(":"), values)
    function = chosen if chosen is not None else ev.eval(node.function)
    ft = strip(function.type)
    if isinstance(ft, ReferenceType):
        function = function.pointer_target()
        ft = strip(function.type)
    ftype: FunctionType | None = None
    if isinstance(ft, FunctionType):
        ftype = ft
        if not isinstance(function.location, MemoryLoc):
            raise EvaluationError("Attempt to take address of value not located in memory.")
        address = function.location.address
    elif isinstance(ft, PointerType) and isinstance(strip(ft.target), FunctionType):
        target = strip(ft.target)
        assert isinstance(target, FunctionType)
        ftype, address = target, int(to_number(function))
    elif isinstance(ft, (PointerType, BaseType, EnumType)) and not is_floating(ft):
        address = int(to_number(decay(function, ev.builtins))) & ((1 << 64) - 1)  # an address, as gdb
    else:
        raise EvaluationError("Invalid data type for function to be called.")
    caller = caller_of(ev.symbols)
    returns: Type | None = None
    if ftype is not None and not _unknown_return(ftype):
        returns = ftype.return_type
    if returns is None and cast_to is not None:
        returns = cast_to
    if returns is None and caller is None and not ev.type_only:
        raise EvaluationError(NO_PROCESS)  # gdb's call_function_by_hand asks for a process first
    if returns is None:
        name = _name(node, caller, address, ftype)
        raise EvaluationError(f"'{name}' has unknown return type; cast the call to its declared return type")
    if ftype is not None and ftype.prototyped and len(node.args) < len(ftype.params):
        raise EvaluationError("Too few arguments in function call.")
    if values is None:
        values = [ev.eval(arg) for arg in node.args]
    if ev.type_only:  # whatis, ptype, sizeof: the type alone, nothing runs (gdb's too)
        return ev.zero(returns, in_memory=False)
    if caller is None:
        raise EvaluationError(NO_PROCESS)
    name = _name(node, caller, address, ftype)
    signature = ftype if ftype is not None and ftype.prototyped else FunctionType(returns, prototyped=False)
    called = replace(signature, return_type=returns)
    called.rust = signature.rust  # (not a field: replace drops it)
    return run_call(ev, caller, name, address, called, values, [])


def run_call(
    ev: Evaluator, caller: FunctionCaller, name: str, address: int, ftype: FunctionType, values: list[Value],
    leading: list[tuple[Type, bytes]],
) -> Value:
    """Call the function at `address` of type `ftype` with `values` (after `leading`
    arguments already converted: a method's `this`); its return value."""
    if ftype.rust and not leading:  # rustc's own ABI, not C's
        from aliceserver.debuggers.symbols.dwarf.expr import rust_calls

        return rust_calls.call(ev, caller, name, address, ftype, values)
    params = ftype.params if ftype.prototyped else []
    if len(values) < len(params):
        raise EvaluationError("Too few arguments in function call.")
    cleanups: list[Callable[[], None]] = []  # destructors of copies passed by reference
    arguments = leading + [_argument(ev, caller, v, params[i] if i < len(params) else None, cleanups)
                           for i, v in enumerate(values)]  # fmt: skip
    returns = ftype.return_type
    data = caller.call(name, address, arguments, returns)
    for cleanup in cleanups:
        cleanup()
    while isinstance(returns, TypedefType):  # gdb's call_function_by_hand: check_typedef of
        returns = returns.target  # the value's type (`(pair_t *)`, `(Item &)`; whatis keeps the name)
    if isinstance(strip(returns), VoidType):
        return Value.of_bytes(returns, b"", ev.ctx)
    return Value.of_bytes(returns, data, ev.ctx)


def _name(node: ast.Call, caller: FunctionCaller | None, address: int, ftype: FunctionType | None) -> str:
    """The called function as gdb's messages name it (infcall.c's get_function_name): its
    symbol at the address (a C++ one with its parameters, `ns::flush(int)`), else the name
    called (a library's function the symbols do not place: `strlen`, an ifunc)."""
    found = caller.name_of(address) if caller is not None else None
    if found is not None and not found.startswith("at 0x"):
        return found
    if isinstance(node.function, ast.Name) and ftype is not None:
        return node.function.name.lstrip(":")
    return found or f"at 0x{address:#x}"  # gdb's own words, its doubled 0x included


def _in_memory(ev: Evaluator, caller: FunctionCaller, value: Value) -> Value:
    """An array (a string literal) not in the program's memory, copied there."""
    if isinstance(strip(value.type), ArrayType) and not isinstance(value.location, MemoryLoc):
        address = caller.allocate(value.data())
        return Value(value.type, MemoryLoc(address), ev.ctx)
    return value


def argument_for(ev: Evaluator, caller: FunctionCaller, value: Value, param: Type) -> tuple[Type, bytes]:
    """One argument of a scalar parameter as the callee takes it: (its type, its bytes)."""
    return _argument(ev, caller, value, param, [])


def _argument(
    ev: Evaluator, caller: FunctionCaller, value: Value, param: Type | None, cleanups: list[Callable[[], None]]
) -> tuple[Type, bytes]:
    """One argument as the callee takes it: (its type, its bytes)."""
    value = _in_memory(ev, caller, value)
    if param is None:  # no prototype for it: the default promotions
        value = decay(value, ev.builtins)
        t = strip(value.type)
        if isinstance(t, BaseType) and is_floating(t) and t.size < 8:
            return _converted(ev, value, ev.builtins.of("double"))
        if isinstance(t, (BaseType, EnumType)) and not is_floating(t):
            return _converted(ev, value, promote(value.type, ev.builtins))
        return value.type, value.data()
    p = strip(param)
    if isinstance(p, ReferenceType):  # passed by address: the object itself, in memory
        if isinstance(strip(p.target), StructType):
            _same_class(value.type, p.target)
        if value.address is None:
            value = Value(value.type, MemoryLoc(caller.allocate(value.data())), ev.ctx)
        assert value.address is not None
        return param, value.address.to_bytes(8, "little")
    if isinstance(p, StructType):
        _same_class(value.type, param)
        if pass_by_reference(p):  # Itanium C++ ABI: a copy made for the call, passed by address
            from aliceserver.debuggers.symbols.dwarf.expr.cxxcalls import copy_for_call

            return PointerType(param), copy_for_call(ev, caller, value, p, cleanups).to_bytes(8, "little")
        return param, value.data()
    return _converted(ev, value, param)


def _same_class(given: Type, wanted: Type) -> None:
    g, w = strip(given), strip(wanted)
    if isinstance(g, ReferenceType):
        g = strip(g.target)
    if g is w:
        return
    if not (isinstance(g, StructType) and isinstance(w, StructType) and g.size == w.size
            and type_name(g) == type_name(w)):  # fmt: skip
        raise EvaluationError("Invalid cast.")


def _converted(ev: Evaluator, value: Value, t: Type) -> tuple[Type, bytes]:
    converted = cast(value, t, ev.builtins)
    return t, converted.data()
