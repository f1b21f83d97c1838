"""C++ casts along a class hierarchy: C casts of class objects, pointers and references,
dynamic_cast and reinterpret_cast, as gdb's valops.c does them where it is right.

A base class subobject may start at a non-zero offset (multiple inheritance) or at one
read from the vtable (a virtual base), so a cast between a class and its base moves the
address: an upcast to the base subobject, a downcast back to the object containing it
(through the object's dynamic type when it has one, the only way past a virtual base).
Casts between unrelated classes stay reinterpretations, as in C.

Where gdb 13 is wrong we are not (tests/integration/test_cpp_casts.py lists each case):
a downcast to a class that is not the most derived one kept the address, dynamic_cast to
the most derived class or to `void *` read the vtable pointer as the result, and
reinterpret_cast adjusted pointers as a C cast does.
"""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.dynamic import Rtti, rtti_type
from aliceserver.debuggers.symbols.dwarf.expr.convert import Builtins, cast, decay, make
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import MASK64, Value

_MAX_DEPTH = 16  # base class nesting followed (a malformed DWARF cycle stops here)
_INTEGER = (Encoding.SIGNED, Encoding.UNSIGNED, Encoding.SIGNED_CHAR, Encoding.UNSIGNED_CHAR)
_NOT_IN_MEMORY = "Attempt to take address of value not located in memory."


# --- the hierarchy -----------------------------------------------------------------------
def _class(t: Type) -> StructType | None:
    s = strip(t)
    return s if isinstance(s, StructType) and s.cplus and s.keyword != "union" else None


def same_class(a: Type, b: Type) -> bool:
    """The same class, as gdb compares them: by name (each unit has its own copy)."""
    sa, sb = strip(a), strip(b)
    return sa is sb or (isinstance(sa, StructType) and isinstance(sb, StructType)
                        and sa.tag is not None and sa.tag == sb.tag)  # fmt: skip


def is_base_of(base: Type, derived: Type, depth: int = 0) -> bool:
    """`base` is a (direct or indirect) base class of `derived`."""
    d = _class(derived)
    if d is None or depth > _MAX_DEPTH:
        return False
    for member in d.members:
        if member.is_base and (same_class(member.type, base) or is_base_of(base, member.type, depth + 1)):
            return True
    return False


def subobjects(obj: Value, cls: Type, depth: int = 0) -> list[Value]:
    """Every base class subobject of class `cls` inside `obj` (not obj itself), in
    declaration order, depth first; a virtual base once."""
    found: list[Value] = []
    t = _class(obj.type)
    if t is None or depth > _MAX_DEPTH:
        return found
    for member in t.members:
        if not member.is_base:
            continue
        try:
            base = obj.member_value(member)
        except EvaluationError:
            continue  # a virtual base whose vtable cannot be read
        if same_class(base.type, cls):
            found.append(base)
        found += subobjects(base, cls, depth + 1)
    unique: dict[int | None, Value] = {}
    for sub in found:
        unique.setdefault(sub.address, sub)
    return list(unique.values())


def _static_offset(derived: Type, base: Type, depth: int = 0) -> int | None:
    """Where `base` starts in `derived` along non-virtual inheritance; None if it is not
    reached that way."""
    d = _class(derived)
    if d is None or depth > _MAX_DEPTH:
        return None
    for member in d.members:
        if not member.is_base or member.offset is None:
            continue
        if same_class(member.type, base):
            return member.offset
        inner = _static_offset(member.type, base, depth + 1)
        if inner is not None:
            return member.offset + inner
    return None


def upcast(obj: Value, base: Type) -> Value:
    """The `base` subobject of `obj` (its class derives from base)."""
    found = subobjects(obj, base)
    if len(found) > 1:
        raise EvaluationError(f"base class '{type_name(strip(base))}' is ambiguous in type "
                              f"'{type_name(strip(obj.type))}'")  # fmt: skip
    if not found:
        raise EvaluationError("Invalid cast.")
    return found[0]


def _containing(whole: Value, cls: Type, part: Value) -> Value | None:
    """The `cls` object inside `whole` (or whole itself) that has `part` as a subobject."""
    candidates = [whole] if same_class(whole.type, cls) else subobjects(whole, cls)
    for candidate in candidates:
        if any(sub.address == part.address for sub in subobjects(candidate, part.type)):
            return candidate
    return None


def downcast(obj: Value, derived: Type, rtti: Rtti | None) -> Value | None:
    """The `derived` object containing `obj` (a base subobject): found in the full object
    when obj has a dynamic type, else by the static base offset; None when neither works
    (a virtual base of an object without RTTI)."""
    if rtti is not None and obj.address is not None:
        found = rtti_type(obj, rtti)
        if found is not None:
            real, address = found
            container = _containing(Value(real, MemoryLoc(address), obj.ctx), derived, obj)
            if container is not None:
                return container
    offset = _static_offset(derived, obj.type)
    if offset is None or obj.address is None:
        return None
    cls = _class(derived)
    assert cls is not None
    return Value(cls, MemoryLoc((obj.address - offset) & MASK64), obj.ctx)


def class_cast(obj: Value, target: Type, rtti: Rtti | None) -> Value | None:
    """`(target) obj` between classes of one hierarchy; None when they are unrelated."""
    if _class(obj.type) is None or _class(target) is None:
        return None
    if same_class(obj.type, target):
        return obj.with_type(target)
    if is_base_of(target, obj.type):
        return upcast(obj, target)
    if is_base_of(obj.type, target):
        return downcast(obj, target, rtti)
    return None


# --- C casts -------------------------------------------------------------------------------
def referent(value: Value) -> Value:
    """A reference's object; any other value as it is."""
    return value.pointer_target() if isinstance(strip(value.type), ReferenceType) else value


def _pointer_cast(value: Value, target: Type, rtti: Rtti | None) -> Value | None:
    ts, ss = strip(target), strip(value.type)
    assert isinstance(ts, PointerType) and isinstance(ss, PointerType)
    if _class(ts.target) is None or _class(ss.target) is None:
        return None
    address = value.as_int() & MASK64
    if address == 0:
        return None  # a null pointer stays null
    moved = class_cast(Value(ss.target, MemoryLoc(address), value.ctx), ts.target, rtti)
    if moved is None or moved.address is None:
        return None
    return Value.of_int(target, moved.address, value.ctx)


def c_cast(value: Value, target: Type, builtins: Builtins, rtti: Rtti | None) -> Value:
    """`(target) value` in C and C++: conversions, class hierarchy moves, references, and
    otherwise a reinterpretation of the bytes in place, as gdb's value_cast."""
    ts = strip(target)
    if isinstance(ts, ReferenceType):
        return _reference_cast(value, ts, builtins, rtti)
    value = referent(value)
    ss = strip(value.type)
    moved: Value | None = None
    if isinstance(ts, StructType) and isinstance(ss, StructType):
        moved = class_cast(value, target, rtti)
    elif isinstance(ts, PointerType) and isinstance(ss, PointerType):
        moved = _pointer_cast(value, target, rtti)
    if moved is not None:
        return moved
    try:
        return cast(value, target, builtins)
    except EvaluationError:
        # gdb reads a class object or an array (or reads into one) in place when it is in
        # memory, or takes its bytes when the sizes agree: `(Holder) *s`, `(int) holder`.
        classes = isinstance(ts, StructType) or isinstance(ss, StructType)
        if not classes and not isinstance(ts, ArrayType):
            raise
        if (value.address is None or value.bit_size) and (not classes or ts.size != ss.size):
            raise
        return value.with_type(target)


def _reference_cast(value: Value, ts: ReferenceType, builtins: Builtins, rtti: Rtti | None) -> Value:
    """`(T &) v`: a reference to `(T) v`, which must be in memory (gdb's value_ref)."""
    obj = referent(value)
    # The very type: v itself (gdb compares the types; a converted scalar is no lvalue).
    result = obj if type_name(obj.type) == type_name(ts.target) else c_cast(obj, ts.target, builtins, rtti)
    if result.address is None or result.bit_size:
        raise EvaluationError(_NOT_IN_MEMORY)
    return Value.of_int(ReferenceType(result.type, ts.rvalue), result.address, value.ctx)


# --- C++'s named casts ---------------------------------------------------------------------
def _is_integer(t: Type) -> bool:
    s = strip(t)
    return isinstance(s, BaseType) and s.encoding in _INTEGER


def reinterpret_cast(value: Value, target: Type, builtins: Builtins) -> Value:
    """Between pointers, and pointers and integers, the bits unchanged (gdb 13 moves a
    pointer along the class hierarchy as a C cast does; C++ never does)."""
    ts = strip(target)
    if isinstance(ts, ReferenceType):
        obj = referent(value)
        if obj.address is None or obj.bit_size:
            raise EvaluationError(_NOT_IN_MEMORY)
        return Value.of_int(target, obj.address, value.ctx)
    src = decay(value, builtins)
    ss = strip(src.type)
    pointer_s, pointer_t = isinstance(ss, PointerType), isinstance(ts, PointerType)
    if not ((pointer_s and (pointer_t or _is_integer(ts))) or (pointer_t and _is_integer(ss))):
        raise EvaluationError("Invalid reinterpret_cast")
    return make(target, src.as_int(), value.ctx)


def dynamic_cast(value: Value, target: Type, rtti: Rtti | None) -> Value:
    """C++'s dynamic_cast with gdb's checks and words: a null pointer (or, for a
    reference, an error) when the object is not a `target`."""
    ts = strip(target)
    if not isinstance(ts, (PointerType, ReferenceType)):
        raise EvaluationError("Argument to dynamic_cast must be a pointer or reference type")
    want = strip(ts.target)
    if not isinstance(want, VoidType) and _class(want) is None:
        raise EvaluationError("Argument to dynamic_cast must be pointer to class or `void *'")
    if isinstance(ts, PointerType):
        src = referent(value)
        ss = strip(src.type)
        if isinstance(ss, PointerType):
            if _class(ss.target) is None:
                raise EvaluationError("Argument to dynamic_cast does not have pointer to class type")
        elif not (_is_integer(ss) and src.as_int() == 0):
            raise EvaluationError("Argument to dynamic_cast does not have pointer type")
        if src.as_int() == 0:
            return Value.of_int(target, 0, value.ctx)
        obj = src.pointer_target()
    else:
        obj = referent(value)
        if _class(obj.type) is None:
            raise EvaluationError("Argument to dynamic_cast does not have class type")
    found = _dynamic_target(obj, want, rtti)
    if found is not None:
        return Value.of_int(target, found, value.ctx)
    if isinstance(ts, PointerType):
        return Value.of_int(target, 0, value.ctx)
    raise EvaluationError("dynamic_cast failed")


def _dynamic_target(obj: Value, want: Type, rtti: Rtti | None) -> int | None:
    """The address dynamic_cast gives for `obj` as a `want` (None: it is not one)."""
    if not isinstance(want, VoidType):
        if same_class(want, obj.type):
            return obj.address
        if is_base_of(want, obj.type):  # an upcast needs no dynamic type
            found = subobjects(obj, want)
            if len(found) > 1:
                raise EvaluationError("Ambiguous dynamic_cast")
            return found[0].address if found else None
    real = rtti_type(obj, rtti) if rtti is not None else None
    if real is None:
        raise EvaluationError("Couldn't determine value's most derived type for dynamic_cast")
    real_type, address = real
    if isinstance(want, VoidType):
        return address  # the most derived object
    whole = Value(real_type, MemoryLoc(address), obj.ctx)
    # The `want` object that obj is part of (a downcast), else the one `want` subobject of
    # the full object (a cross cast); several are ambiguous: no result.
    if is_base_of(obj.type, want):
        container = _containing(whole, want, obj)
        if container is not None:
            return container.address
    if same_class(real_type, want):
        return address
    candidates = subobjects(whole, want)
    return candidates[0].address if len(candidates) == 1 else None
