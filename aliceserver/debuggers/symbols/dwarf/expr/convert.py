"""C's built-in types and conversions: promotions, usual arithmetic conversions, casts."""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    PointerType,
    ReferenceType,
    StructType,
    Type,
    VoidType,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

_BUILTIN_SPECS: dict[str, tuple[int, Encoding]] = {
    "char": (1, Encoding.SIGNED_CHAR),
    "signed char": (1, Encoding.SIGNED_CHAR),
    "unsigned char": (1, Encoding.UNSIGNED_CHAR),
    "short": (2, Encoding.SIGNED),
    "unsigned short": (2, Encoding.UNSIGNED),
    "int": (4, Encoding.SIGNED),
    "unsigned int": (4, Encoding.UNSIGNED),
    "long": (8, Encoding.SIGNED),
    "unsigned long": (8, Encoding.UNSIGNED),
    "long long": (8, Encoding.SIGNED),
    "unsigned long long": (8, Encoding.UNSIGNED),
    "float": (4, Encoding.FLOAT),
    "double": (8, Encoding.FLOAT),
    "long double": (16, Encoding.FLOAT),
    "_Bool": (1, Encoding.BOOL),
    "bool": (1, Encoding.BOOL),
    "wchar_t": (4, Encoding.SIGNED),
    "char16_t": (2, Encoding.UTF),
    "char32_t": (4, Encoding.UTF),
    "_Decimal32": (4, Encoding.DECIMAL_FLOAT),
    "_Decimal64": (8, Encoding.DECIMAL_FLOAT),
    "_Decimal128": (16, Encoding.DECIMAL_FLOAT),
}


class Builtins:
    """One instance of each C base type per evaluator (types compare by identity)."""

    def __init__(self) -> None:
        self._types: dict[str, Type] = {}
        self.void = VoidType()

    def get(self, name: str) -> Type | None:
        if name == "void":
            return self.void
        spec = _BUILTIN_SPECS.get(name)
        if spec is None:
            return None
        t = self._types.get(name)
        if t is None:
            t = self._types[name] = BaseType(name, spec[0], spec[1])
        return t

    def of(self, name: str) -> Type:
        t = self.get(name)
        assert t is not None, name
        return t


def decay(value: Value, builtins: Builtins) -> Value:
    """Arrays become pointers to their first element; functions, pointers to themselves;
    references, their referent."""
    t = strip(value.type)
    if isinstance(t, ReferenceType):
        return decay(value.pointer_target(), builtins)
    if isinstance(t, ArrayType):
        if not isinstance(value.location, MemoryLoc):
            raise EvaluationError("Attempt to take address of value not located in memory.")
        return Value.of_int(PointerType(t.element), value.location.address, value.ctx)
    if isinstance(t, FunctionType):
        if not isinstance(value.location, MemoryLoc):
            raise EvaluationError("Attempt to take address of value not located in memory.")
        return Value.of_int(PointerType(value.type), value.location.address, value.ctx)
    return value


def is_arith(t: Type) -> bool:
    t = strip(t)
    return isinstance(t, (BaseType, EnumType))


def is_floating(t: Type) -> bool:
    t = strip(t)
    return isinstance(t, BaseType) and t.encoding == Encoding.FLOAT


def is_unsigned(t: Type) -> bool:
    t = strip(t)
    if isinstance(t, BaseType):
        return t.encoding in (
            Encoding.UNSIGNED,
            Encoding.UNSIGNED_CHAR,
            Encoding.BOOL,
            Encoding.UTF,
        )
    if isinstance(t, EnumType):
        return not t.signed
    return isinstance(t, PointerType)


def promote(t: Type, builtins: Builtins) -> Type:
    """Integer promotion: anything narrower than int becomes int."""
    s = strip(t)
    if isinstance(s, EnumType):  # as gdb's binop_promote: by the enum's length
        if s.size > 4:
            return builtins.of("long" if s.signed else "unsigned long")
        return builtins.of("unsigned int" if not s.signed and s.size == 4 else "int")
    if isinstance(s, BaseType) and s.encoding not in (Encoding.FLOAT, Encoding.DECIMAL_FLOAT):
        if s.size < 4:
            return builtins.of("int")
        if s.size == 4:
            return builtins.of("unsigned int" if is_unsigned(s) else "int")
        return s
    return s


def unary_promote(t: Type, builtins: Builtins) -> Type:
    """gdb's unop_promote for unary -, + and ~: an integer narrower than int becomes int;
    anything else keeps its type (an enum stays the enum)."""
    s = strip(t)
    if isinstance(s, EnumType) and s.size >= 4:
        return s
    return promote(t, builtins)


def common_type(a: Type, b: Type, builtins: Builtins) -> Type:
    """C's usual arithmetic conversions."""
    if is_floating(a) or is_floating(b):
        sizes = [strip(t).size for t in (a, b) if is_floating(t)]
        size = max(sizes)
        return builtins.of({4: "float", 8: "double"}.get(size, "long double"))
    pa, pb = promote(a, builtins), promote(b, builtins)
    if pa.size != pb.size:
        return pa if pa.size > pb.size else pb
    if is_unsigned(pa):
        return pa
    if is_unsigned(pb):
        return pb
    return pa


def to_number(value: Value) -> int | float:
    t = strip(value.type)
    if isinstance(t, BaseType) and t.encoding == Encoding.FLOAT:
        return value.as_float()
    if isinstance(t, (BaseType, EnumType, PointerType)):
        return value.as_int()
    raise EvaluationError("Argument to arithmetic operation not a number or boolean.")


def make(t: Type, number: int | float, ctx: FrameContext) -> Value:
    """A value of type `t` holding `number`, converted the C way (wrap, truncate)."""
    s = strip(t)
    if isinstance(s, BaseType) and s.encoding == Encoding.FLOAT:
        return Value.of_float(t, float(number), ctx)
    if isinstance(number, float):
        number = _float_to_longest(number)
    if isinstance(s, BaseType) and s.encoding == Encoding.BOOL:
        number = int(number != 0)
    return Value.of_int(t, number, ctx)


def _float_to_longest(number: float) -> int:
    """gdb's float to integer (target-float.c): truncated when in LONGEST's range; below it
    LONGEST's minimum, above it (and NaN) its maximum; the target type keeps the low bits,
    so (int)1e300 is -1."""
    if -(2.0**63) <= number < 2.0**63:
        return int(number)
    return -(2**63) if number < 0 else 2**63 - 1


def cast(value: Value, target: Type, builtins: Builtins) -> Value:
    """`(target) value` with C semantics."""
    ts = strip(target)
    if isinstance(ts, VoidType):
        return Value.of_bytes(target, b"", value.ctx)
    if isinstance(ts, ArrayType) and ts.count is None and ts.element.size:
        # gdb's (T []) x: the array of as many T as x's bytes hold (x's bytes, left as they are)
        return value.with_type(ArrayType(ts.element, strip(value.type).size // ts.element.size))
    if isinstance(ts, (StructType, ArrayType)):
        if strip(value.type) is ts:
            return value.with_type(target)
        raise EvaluationError("Invalid cast.")
    src = decay(value, builtins)
    ss = strip(src.type)
    if isinstance(ts, (BaseType, EnumType)) and isinstance(ss, (BaseType, EnumType)) and any(
            isinstance(s, BaseType) and s.encoding == Encoding.DECIMAL_FLOAT for s in (ts, ss)):
        from aliceserver.debuggers.symbols.dwarf.expr import decimal_ops  # it builds on this module

        return decimal_ops.cast(src, target)
    if isinstance(ts, ReferenceType):
        return cast(value, PointerType(ts.target), builtins)
    if isinstance(ts, (PointerType, BaseType, EnumType)):
        if not isinstance(ss, (PointerType, BaseType, EnumType)):
            raise EvaluationError("Invalid cast.")
        if isinstance(ts, PointerType) and is_floating(ss):
            raise EvaluationError("Invalid cast.")
        return make(target, to_number(src), value.ctx)
    raise EvaluationError("Invalid cast.")
