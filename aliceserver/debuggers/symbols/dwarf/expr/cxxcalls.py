"""C++ calls into the program that no xmethod covers, as gdb's find_overload_match and
call_function_by_hand: `obj.area()`, `p->name()` (`this` passed by address, rdi), static
members, overloaded functions and methods picked by their arguments' types, virtual
methods called through the object's vtable, and classes passed or returned by value.

Overload resolution ranks each argument against its parameter with a simple form of gdb's
rank_one_type: an exact match, a promotion (integral promotion, float to double), a
conversion (between arithmetic types, derived to base, array or 0 to pointer), or no match.
The candidate with the smallest total wins; a tie goes to the one found first (the most
derived class's, then declaration order).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.symbols.dwarf.expr.calls import FunctionCaller, caller_of, run_call
from aliceserver.debuggers.symbols.dwarf.expr.classcast import is_base_of, same_class, upcast
from aliceserver.debuggers.symbols.dwarf.expr.convert import is_floating
from aliceserver.debuggers.symbols.dwarf.expr.evalsymbols import minimal_function
from aliceserver.debuggers.symbols.dwarf.expr.methods import class_of
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, ImplicitLoc, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.member_functions import copies
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    MemberFunction,
    PointerType,
    QualifiedType,
    ReferenceType,
    StructType,
    Type,
    TypedefType,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import Value, is_char_type

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator

EXACT, PROMOTION, CONVERSION = 0, 1, 2
_NO_CODE = "Cannot evaluate function -- may be inlined"  # gdb's: a function never emitted
_MAX_BASES = 64


@dataclass(frozen=True, slots=True)
class Candidate:
    type: FunctionType
    owner: StructType | None  # the class declaring a method (None: a free function)
    method: MemberFunction | None = None
    function: Value | None = None  # a free function's value (its address)


# --- ranking ----------------------------------------------------------------------------
def _integral(t: Type) -> bool:
    return (isinstance(t, BaseType) and not is_floating(t)) or isinstance(t, EnumType)


def rank(arg: Value, param: Type, strict: bool = True) -> int | None:
    """How well `arg` converts to `param`: EXACT, PROMOTION, CONVERSION, or None. Not
    `strict` (gdb's `set check type off`): a nonzero integer converts to a pointer too."""
    p, a = strip(param), strip(arg.type)
    if isinstance(a, ReferenceType):
        a = strip(a.target)
    if isinstance(p, ReferenceType):
        p = strip(p.target)
    if isinstance(p, StructType) or isinstance(a, StructType):
        if isinstance(p, StructType) and isinstance(a, StructType):
            if same_class(a, p):
                return EXACT
            return CONVERSION if is_base_of(p, a) else None
        return None
    if isinstance(p, PointerType):
        return _rank_pointer(arg, a, p, strict)
    if isinstance(a, (PointerType, ArrayType)):
        return None  # a pointer to a number: not without a cast
    if not isinstance(p, (BaseType, EnumType)) or not isinstance(a, (BaseType, EnumType)):
        return None
    if type_name(a) == type_name(p) and a.size == p.size:
        return EXACT
    if isinstance(p, EnumType):
        return None  # nothing converts to an enum implicitly
    if is_floating(p) and is_floating(a):
        return PROMOTION if a.size < p.size and p.size == 8 else CONVERSION
    if _integral(p) and _integral(a) and type_name(p) == "int" and a.size < 4:
        return PROMOTION  # bool, char, short to int
    if isinstance(a, BaseType) and a.encoding is Encoding.BOOL and type_name(p) == "int":
        return PROMOTION
    return CONVERSION


def _rank_pointer(arg: Value, a: Type, p: PointerType, strict: bool) -> int | None:
    target = strip(p.target)
    if isinstance(a, ArrayType):  # a string literal or an array: to a pointer to its element
        element = strip(a.element)
        if type_name(element) == type_name(target) or (is_char_type(element) and is_char_type(target)):
            return EXACT
        return None
    if isinstance(a, PointerType):
        at = strip(a.target)
        if at is target or type_name(at) == type_name(target):
            return EXACT
        if isinstance(target, StructType) and is_base_of(target, at):
            return CONVERSION
        if type_name(target) == "void":
            return CONVERSION
        return None
    if _integral(a) and not arg.data().strip(b"\0"):
        return CONVERSION  # a null pointer constant
    if _integral(a) and not strict:
        return CONVERSION + 1  # gdb's NS_INTEGER_POINTER_CONVERSION_BADNESS: after any other
    return None


def choose(candidates: list[Candidate], args: list[Value], what: str, strict: bool = True,
           const_object: bool = False) -> Candidate:  # fmt: skip
    """The best candidate for `args`; gdb's error when none takes them (`strict`: rank).
    A method whose constness differs from the object's (`const_object`) ranks after one
    whose does not, as gdb's CV conversion of `this` (`*opt` on a non-const optional is
    its `operator*() &`, not the `const&` one declared first)."""
    best: tuple[int, Candidate] | None = None
    for candidate in candidates:
        params = candidate.type.params
        if len(args) > len(params) and not candidate.type.varargs:
            continue
        ranks = [rank(arg, param, strict) for arg, param in zip(args, params, strict=False)]  # missing: "Too few"
        if any(r is None for r in ranks):
            continue
        total = sum(r for r in ranks if r is not None) + _this_rank(candidate, const_object)
        if best is None or total < best[0]:
            best = (total, candidate)
    if best is None:
        raise EvaluationError(f"Cannot resolve {what} to any overloaded instance")
    if len(args) < len(best[1].type.params):
        raise EvaluationError("Too few arguments in function call.")
    return best[1]


def _this_rank(candidate: Candidate, const_object: bool) -> int:
    method = candidate.method
    return PROMOTION if method is not None and not method.static and method.const != const_object else EXACT


def gdb_rvalue_choice(candidates: list[Candidate], args: list[Value], const_object: bool = False) -> Candidate | None:
    """The candidate gdb's rank_one_type picks where `choose` finds none: gdb binds an
    rvalue (a literal, a call's value) to any `T&&` or `const T&` parameter without
    looking at T (`m["key"]` to std::map<std::string, V>'s operator[](key_type&&)), so it
    goes on to the call and says what stops it there."""
    best: tuple[tuple[int, int], Candidate] | None = None
    for candidate in candidates:
        params = candidate.type.params
        if len(args) != len(params):
            continue
        total = (_this_rank(candidate, const_object), 0)
        for arg, param in zip(args, params, strict=True):
            one = _gdb_rank(arg, param)
            if one is None:
                break
            total = (total[0] + one[0], total[1] + one[1])
        else:
            if best is None or total < best[0]:
                best = (total, candidate)
    return best[1] if best is not None else None


def _gdb_rank(arg: Value, param: Type) -> tuple[int, int] | None:
    p = strip(param)
    if isinstance(p, ReferenceType) and isinstance(arg.location, ImplicitLoc):  # gdb's not_lval
        if p.rvalue:
            return (CONVERSION, 1)  # REFERENCE_CONVERSION_BADNESS, ..._RVALUE
        return (CONVERSION, 2) if _is_const(p.target) else None  # ..._CONST_LVALUE
    if isinstance(p, ReferenceType) and p.rvalue:
        return None  # an lvalue to an rvalue reference
    one = rank(arg, param)
    return None if one is None else (one, 0)


def _casts_to_another_class(candidate: Candidate, args: list[Value]) -> bool:
    """Whether an argument goes to a reference to a class it is not of (nor derived from)."""
    for arg, param in zip(args, candidate.type.params, strict=False):
        p = strip(param)
        target = strip(p.target) if isinstance(p, ReferenceType) else None
        if isinstance(target, StructType):
            a = strip(arg.type)
            if not (isinstance(a, StructType) and (same_class(a, target) or is_base_of(target, a))):
                return True
    return False


def is_const_object(obj: Value) -> bool:
    """Is `obj` (or what the reference `obj` refers to) a const object?"""
    return _is_const(obj.type, through_references=True)


def _is_const(t: Type, through_references: bool = False) -> bool:
    """A const-qualified type, through typedefs (and references, if asked)."""
    walked = (ReferenceType, QualifiedType, TypedefType) if through_references else (QualifiedType, TypedefType)
    for _ in range(64):
        if isinstance(t, QualifiedType) and t.const:
            return True
        if not isinstance(t, walked):
            return False
        t = t.target
    return False


# --- methods ----------------------------------------------------------------------------
def _hierarchy(cls: StructType) -> list[StructType]:
    """The class, then its bases depth first (gdb's find_method_list)."""
    out: list[StructType] = []
    stack = [cls]
    while stack and len(out) < _MAX_BASES:
        t = stack.pop(0)
        out.append(t)
        stack[:0] = [b for m in t.members if m.is_base and isinstance(b := strip(m.type), StructType)]
    return out


def method_candidates(cls: StructType, name: str) -> list[Candidate]:
    found: list[Candidate] = []
    for owner in _hierarchy(cls):
        functions = owner.member_functions() if owner.member_functions is not None else []
        found.extend(Candidate(fn.type, owner, fn) for fn in functions if fn.name == name)
    return found


def call_method(ev: Evaluator, obj: Value, name: str, args: list[Value], operator: bool = False) -> Value:
    """`obj.name(args)` run in the program (obj a class object or a reference to one);
    `operator`: for `obj[i]`, `*obj`, `obj->` (gdb's value_x_binop and value_x_unop)."""
    cls = class_of(obj)
    if cls is None:
        raise EvaluationError("Function calls are not supported in expressions.")
    candidates = method_candidates(cls, name)
    if not candidates:
        raise EvaluationError(f"Couldn't find method {_declared_class_name(obj)}::{name}")
    const_object = is_const_object(obj)
    try:
        chosen = choose(candidates, args, f"method {type_name(cls)}::{name}", strict_types(ev), const_object)
    except EvaluationError:
        gdbs = gdb_rvalue_choice(candidates, args, const_object)
        if gdbs is not None and gdbs.method is not None and not _has_code(ev, gdbs.method):
            # where gdb stops too, in its words
            raise EvaluationError(f"Could not find {name}." if operator else _NO_CODE) from None
        if gdbs is not None and _casts_to_another_class(gdbs, args):
            # gdb goes on to the call and casts the argument to the class its reference
            # names (value_arg_coerce): a string literal is no std::string
            raise EvaluationError("Invalid cast.") from None
        raise
    assert chosen.method is not None and chosen.owner is not None
    if operator and not _has_code(ev, chosen.method):  # gdb's value_x_binop: no method value
        raise EvaluationError(f"Could not find {name}.")
    if ev.type_only:  # whatis, ptype, sizeof: nothing runs, but gdb finds the method
        if not _has_code(ev, chosen.method):
            raise EvaluationError(_NO_CODE)
        # an operator's value is where its object is (value_x_binop's value_zero)
        return ev.zero(chosen.type.return_type, in_memory=operator and isinstance(obj.location, MemoryLoc))
    method, owner = chosen.method, chosen.owner
    qualified = f"{type_name(owner)}::{name}"
    if method.static:
        address = _code_address(ev, method)
        return run_call(ev, _caller(ev), qualified, address, chosen.type, args, [])
    this = obj.pointer_target() if isinstance(strip(obj.type), ReferenceType) else obj
    if not isinstance(this.location, MemoryLoc) and isinstance(strip(this.type), StructType):
        # a temporary (`items.begin()`'s iterator): copied into the program's memory, as
        # gdb's value_coerce_to_target does (its malloc)
        this = Value(this.type, MemoryLoc(_caller(ev).allocate(this.data())), ev.ctx)
    if strip(this.type) is not owner:
        this = upcast(this, owner)
    if not isinstance(this.location, MemoryLoc):
        raise EvaluationError("Attempt to take address of value not located in memory.")
    this_address = this.location.address
    if method.virtual_slot is not None and method.virtual_slot >= 0:
        vtable = int.from_bytes(ev.ctx.read_memory(this_address, 8), "little")  # the dynamic type's
        address = int.from_bytes(ev.ctx.read_memory(vtable + 8 * method.virtual_slot, 8), "little")
    else:
        address = _code_address(ev, method)
    this_arg = (PointerType(owner), this_address.to_bytes(8, "little"))
    return run_call(ev, _caller(ev), qualified, address, chosen.type, args, [this_arg])


def _declared_class_name(obj: Value) -> str:
    """The object's class as its declaration names it: a typedef's name stays
    (`std::cout.good()`: "Couldn't find method std::ostream::good", as gdb)."""
    t = obj.type
    for _ in range(16):
        if isinstance(t, QualifiedType | ReferenceType):
            t = t.target
        else:
            break
    return type_name(t)


def strict_types(ev: Evaluator) -> bool:
    """gdb's `check type`, where the engine's symbols carry it (on by default)."""
    strict: bool = getattr(ev.symbols, "strict_types", True)
    return strict


def _caller(ev: Evaluator) -> FunctionCaller:
    caller = caller_of(ev.symbols)
    if caller is None:
        raise EvaluationError("You can't do that without a process to debug.")
    return caller


def _code_address(ev: Evaluator, method: MemberFunction) -> int:
    """The method's code, looked for before a process is asked for (gdb's value_fn_field
    before call_function_by_hand): a method never emitted is refused so on a core too."""
    caller = caller_of(ev.symbols)
    address = None
    if method.linkage and caller is not None:
        address = caller.address_of(method.linkage)
    elif method.linkage:  # no process: the ELF symbol the call would go to
        found = minimal_function(ev.symbols, method.linkage)
        address = found.location.address if found is not None and isinstance(found.location, MemoryLoc) else None
    if address is None:
        raise EvaluationError(_NO_CODE)
    return address


def _has_code(ev: Evaluator, method: MemberFunction) -> bool:
    if method.virtual_slot is not None and method.virtual_slot >= 0:
        return True  # called through the object's vtable
    try:
        _code_address(ev, method)
    except EvaluationError:
        return False
    return True


# --- overloaded free functions ----------------------------------------------------------
def choose_function(ev: Evaluator, name: str, args: list[Value]) -> Value | None:
    """Among the program's functions called `name` (more than one: overloads), the one
    that takes `args` best; None when there is only one (the usual lookup serves)."""
    if not ev.symbols.cplus:
        return None
    # FrameSymbols answers for its module; a process's symbols keep the frame's (the
    # functions of the frame's module: other modules' overloads are not looked at).
    frame = getattr(ev.symbols, "frame_symbols", ev.symbols)
    find = getattr(frame, "functions", None)
    if find is None:
        return None
    found: list[Value] = find(name)
    if len(found) < 2:
        return None
    candidates = [Candidate(t, None, function=f) for f in found if isinstance(t := strip(f.type), FunctionType)]
    chosen = choose(candidates, args, f"function {name}", strict_types(ev))
    return chosen.function


# --- operators ------------------------------------------------------------------------
def call_binary_operator(ev: Evaluator, op: str, left: Value, right: Value) -> Value | None:
    """gdb's value_x_binop: `left op right` (`+=` too) where `left` is a class, by the best
    of its class's `operator op` methods (an xmethod's first) and the functions `operator op
    (left, right)`, called in the program; None when `left` is no class (gdb looks no
    further). gdb's errors when none is named so or none takes the operands."""
    from aliceserver.debuggers.symbols.dwarf.expr.methods import method_call  # it imports us

    cls = class_of(left)
    if cls is None:
        return None
    name = f"operator{op}"
    methods = method_candidates(cls, name)
    frame = getattr(ev.symbols, "frame_symbols", ev.symbols)
    find = getattr(frame, "functions", None)
    functions = [Candidate(t, None, function=f) for f in (find(name) if find is not None else [])
                 if isinstance(t := strip(f.type), FunctionType)]  # fmt: skip
    if not methods and not functions:
        raise EvaluationError(f'No symbol "{name}" in current context.')
    strict = strict_types(ev)
    ranked = [(total, 0, c) for c in methods if (total := _total(c, [right], strict)) is not None]
    ranked += [(total, 1, c) for c in functions if (total := _total(c, [left, right], strict)) is not None]
    if not ranked:
        raise EvaluationError(f"Cannot resolve function {name} to any overloaded instance")
    _total_rank, _kind, best = min(ranked, key=lambda found: found[:2])
    if best.function is None:
        return method_call(ev, left, name, [right], operator=True)
    if ev.type_only:
        return ev.zero(best.type.return_type, in_memory=False)
    if not isinstance(best.function.location, MemoryLoc):
        raise EvaluationError("Attempt to take address of value not located in memory.")
    return run_call(ev, _caller(ev), name, best.function.location.address, best.type, [left, right], [])


def _total(candidate: Candidate, args: list[Value], strict: bool) -> int | None:
    """How well a candidate takes exactly `args` (smaller is better); None: it does not."""
    params = candidate.type.params
    if len(args) != len(params):
        return None
    ranks = [rank(arg, param, strict) for arg, param in zip(args, params, strict=True)]
    return None if any(r is None for r in ranks) else sum(r for r in ranks if r is not None)


# --- classes passed by value ------------------------------------------------------------
def copy_for_call(
    ev: Evaluator, caller: FunctionCaller, value: Value, cls: StructType, cleanups: list[Callable[[], None]]
) -> int:
    """The address of a copy of `value` made for a call that takes a class non-trivial for
    calls by value (gdb's infcall: its copy constructor when user-provided, else its bytes);
    its destructor, when it has one, runs after the call (added to `cleanups`)."""
    address = caller.allocate(value.data())  # a bitwise copy first: trivially copyable parts
    functions = cls.member_functions() if cls.member_functions is not None else []
    short = _short_name(cls)
    copier = next((fn for fn in functions if fn.name == short and copies(fn, cls) and not fn.artificial
                   and not fn.defaulted), None)  # fmt: skip
    if copier is not None:
        if not isinstance(value.location, MemoryLoc):
            value = Value(value.type, MemoryLoc(caller.allocate(value.data())), ev.ctx)
        assert isinstance(value.location, MemoryLoc)
        ctor = _structor_address(caller, copier, cls)
        this = (PointerType(cls), address.to_bytes(8, "little"))
        source = (copier.type.params[0], value.location.address.to_bytes(8, "little"))
        caller.call(f"{type_name(cls)}::{short}", ctor, [this, source], VoidType())
    destructor = next((fn for fn in functions if fn.name == f"~{short}" and not fn.artificial), None)
    if destructor is not None:
        dtor = _structor_address(caller, destructor, cls)
        this_arg = (PointerType(cls), address.to_bytes(8, "little"))

        def destroy() -> None:
            caller.call(f"{type_name(cls)}::~{short}", dtor, [this_arg], VoidType())

        cleanups.append(destroy)
    return address


def _short_name(cls: StructType) -> str:
    return (cls.tag or "").rsplit("::", 1)[-1].split("<")[0]


def _structor_address(caller: FunctionCaller, fn: MemberFunction, cls: StructType) -> int:
    """A constructor's or destructor's code: g++ declares the unified C4/D4 symbol in the
    class and emits the complete-object C1/D1 one (the variant gdb calls too)."""
    linkage = fn.linkage or ""
    for unified, complete in (("C4E", "C1E"), ("D4E", "D1E")):
        linkage = linkage.replace(unified, complete, 1)
    address = caller.address_of(linkage) if linkage else None
    if address is None:
        raise EvaluationError(
            f"expression cannot be evaluated because a copy constructor for the type '{type_name(cls)}' "
            "could not be found (maybe inlined?)"
        )
    return address


# --- static members: Cls::f(x) ----------------------------------------------------------
def scoped_class(ev: Evaluator, function: object) -> tuple[StructType, str] | None:
    """(the class, the member's name) of a call `Cls::name(...)`, None for other callees."""
    from aliceserver.debuggers.symbols.dwarf.expr import ast

    if not isinstance(function, ast.Name) or "::" not in function.name.lstrip(":") or not ev.symbols.cplus:
        return None
    scope, _, member = function.name.lstrip(":").rpartition("::")
    cls = ev.symbols.lookup_type(scope)
    cls = strip(cls) if cls is not None else None
    return (cls, member) if isinstance(cls, StructType) else None


def call_static(ev: Evaluator, cls: StructType, name: str, args: list[Value]) -> Value:
    """`Cls::name(args)`: its static member functions (a method needs an object: gdb finds
    none that takes the arguments)."""
    candidates = method_candidates(cls, name)
    if not candidates:
        raise EvaluationError(f"Couldn't find method {type_name(cls)}::{name}")
    statics = [c for c in candidates if c.method is not None and c.method.static]
    chosen = choose(statics, args, f"method {type_name(cls)}::{name}", strict_types(ev))
    assert chosen.method is not None and chosen.owner is not None
    if ev.type_only:
        return ev.zero(chosen.type.return_type, in_memory=False)
    address = _code_address(ev, chosen.method)
    return run_call(ev, _caller(ev), f"{type_name(chosen.owner)}::{name}", address, chosen.type, args, [])
