"""gdb.Value over the DWARF Value (values.py): arithmetic and casts through the
expression evaluator, members, elements, strings and lazy strings."""

from __future__ import annotations

from typing import Any

from aliceserver.debuggers.printers import context
from aliceserver.debuggers.printers.gdbtype import Field, Type, gdb_error
from aliceserver.debuggers.symbols.dwarf.expr.convert import Builtins, cast, make, to_number
from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    EnumType,
    Member,
    PointerType,
    ReferenceType,
    StructType,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.types import (
    Type as DwarfType,
)
from aliceserver.debuggers.symbols.dwarf.values import (
    FrameContext,
    MemoryError_,
    OptimizedOutError,
)
from aliceserver.debuggers.symbols.dwarf.values import (
    Value as DwarfValue,
)

MAX_STRING = 1 << 20  # Value.string() without a length: bounded, garbage has no NUL


class _NoFrame:
    """A context for values made without a stopped program (constants)."""

    pc = 0
    load_bias = 0
    fs_base = None

    def read_memory(self, address: int, size: int) -> bytes:
        raise EvaluationError(f"Cannot access memory at address {address:#x}")

    def register(self, regno: int) -> int | None:
        return None

    def cfa(self) -> int | None:
        return None

    def write_memory(self, address: int, data: bytes) -> None:
        raise EvaluationError("no program")

    def write_register(self, regno: int, value: int) -> None:
        raise EvaluationError("no program")


def _frame() -> FrameContext:
    call = context.current_or_none()
    if call is not None and call.target is not None:
        return call.target.frame
    return _NoFrame()


def _builtins() -> Builtins:
    call = context.current_or_none()
    return call.session.builtins if call is not None else Builtins()


class _Symbols:
    """The evaluator's view for operators (names are not needed)."""

    cplus = True

    def __init__(self, frame: FrameContext) -> None:
        self.frame = frame

    def lookup(self, name: str) -> DwarfValue | None:
        return None

    def lookup_type(self, name: str) -> DwarfType | None:
        return None


def _evaluator(frame: FrameContext) -> Evaluator:
    ev = Evaluator(_Symbols(frame))
    ev.builtins = _builtins()
    return ev


def translate(exc: Exception) -> Exception:
    """Our evaluation errors as gdb's exception types."""
    from aliceserver.debuggers.printers import gdb

    if isinstance(exc, MemoryError_):
        return gdb.MemoryError(str(exc))
    return gdb.error(str(exc))


def make_value(t: DwarfType, number: int | float) -> Value:
    return Value(make(t, number, _frame()))


def from_python(obj: Any) -> DwarfValue:
    """gdb's convert_value_from_python."""
    if isinstance(obj, Value):
        return obj.dwarf
    b = _builtins()
    frame = _frame()
    if isinstance(obj, bool):
        return DwarfValue.of_int(b.of("bool"), int(obj), frame)
    if isinstance(obj, int):  # gdb's builtin_type_pylong and _upylong: long long
        if -(1 << 63) <= obj < 1 << 63:
            return DwarfValue.of_int(b.of("long long"), obj, frame)
        if 0 <= obj < 1 << 64:
            return DwarfValue.of_int(b.of("unsigned long long"), obj, frame)
        raise gdb_error("Cannot convert value to long.")
    if isinstance(obj, float):
        return DwarfValue.of_float(b.of("double"), obj, frame)
    if isinstance(obj, str):
        data = obj.encode() + b"\0"
        return DwarfValue.of_bytes(ArrayType(b.of("char"), len(data)), data, frame)
    raise TypeError(f"Could not convert Python object: {obj!r}.")


def _coerce_ref(v: DwarfValue) -> DwarfValue:
    return v.pointer_target() if isinstance(strip(v.type), ReferenceType) else v


class LazyString:
    """gdb.LazyString: an address, a length (-1: to the NUL) and the string's type."""

    def __init__(self, address: int, length: int, encoding: str | None, type: DwarfType) -> None:
        self.address = address
        self.length = length
        self.encoding = encoding
        self._type = type

    @property
    def type(self) -> Type:
        return Type(self._type)

    @property
    def element(self) -> DwarfType:
        t = strip(self._type)
        return t.target if isinstance(t, PointerType) else t.element if isinstance(t, ArrayType) else t

    def value(self) -> Value:
        if not self.address:
            raise gdb.MemoryError("Cannot create a value from NULL.")
        return Value(DwarfValue(self._type, MemoryLoc(self.address), _frame()))


class Value:
    """gdb.Value: a value of the program (or one the printer computed)."""

    __slots__ = ("_v",)

    def __init__(self, val: Any, type: Type | None = None) -> None:
        if isinstance(val, DwarfValue):
            self._v = val
        elif type is not None:  # gdb.Value(bytes, type)
            self._v = DwarfValue.of_bytes(type.dwarf, bytes(val), _frame())
        else:
            self._v = from_python(val)

    @property
    def dwarf(self) -> DwarfValue:
        return self._v

    # --- attributes ---------------------------------------------------------------------
    @property
    def type(self) -> Type:
        return Type(self._v.type, _active_variant(self._v))

    @property
    def dynamic_type(self) -> Type:
        return self.type  # the static type: dynamic types come with `set print object`

    @property
    def address(self) -> Value | None:
        v = self._v
        if v.address is None or v.bit_size:
            return None
        return Value(DwarfValue.of_int(PointerType(v.type), v.address, v.ctx))

    @property
    def is_optimized_out(self) -> bool:
        return self._v.optimized_out

    @property
    def is_lazy(self) -> bool:
        return self._v._data is None

    def fetch_lazy(self) -> None:
        self._guard(self._v.data)

    def _guard(self, fn: Any, *args: Any) -> Any:
        call = context.current_or_none()
        if call is not None:
            call.check_time()
        try:
            return fn(*args)
        except (EvaluationError, ArithmeticError) as exc:
            if isinstance(exc, ArithmeticError):
                raise gdb_error("Division by zero") from None
            raise translate(exc) from None

    # --- navigation ---------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Value:
        return Value(self._guard(self._item, key))

    def _item(self, key: Any) -> DwarfValue:
        v = _coerce_ref(self._v)
        if isinstance(key, Field):
            if key.is_base_class and key.type is not None:
                return _cast(v, key.type.dwarf)
            variant = _variant_field(v, key)
            if variant is not None:
                return variant
            if key.name is None:
                raise gdb_error("Invalid field: no name.")
            key = key.name
        if isinstance(key, str):
            while isinstance(strip(v.type), PointerType):  # gdb: `p['x']` is `p->x`
                v = v.pointer_target()
            t = strip(v.type)
            if not isinstance(t, StructType):
                raise gdb_error("Attempt to extract a component of a value that is not a structure.")
            found = v.find_member(key)
            active = _active_variant(v)
            if found is None and active is not None and active.name == key:
                found = v.member_value(active)
            if found is None:
                raise gdb_error(f"There is no member named {key}.")
            return found
        index = int(key)
        return _evaluator(v.ctx).index(v, DwarfValue.of_int(_builtins().of("long"), index, v.ctx))

    def dereference(self) -> Value:
        return Value(self._guard(lambda: _evaluator(self._v.ctx).deref(_coerce_ref(self._v))))

    def referenced_value(self) -> Value:
        t = strip(self._v.type)
        if not isinstance(t, (PointerType, ReferenceType)):
            raise gdb_error("Trying to get the referenced value from a value which is neither a pointer nor a reference.")
        return Value(self._guard(self._v.pointer_target))

    def reference_value(self) -> Value:
        v = self._v
        if v.address is None:
            raise gdb_error("Attempt to take address of value not located in memory.")
        return Value(DwarfValue.of_int(ReferenceType(v.type), v.address, v.ctx))

    def const_value(self) -> Value:
        return self.cast(self.type.const())

    def cast(self, type: Type) -> Value:
        return Value(self._guard(_cast, self._v, type.dwarf))

    dynamic_cast = cast

    def reinterpret_cast(self, type: Type) -> Value:
        target = type.dwarf
        v = self._v
        if isinstance(strip(target), (PointerType, BaseType, EnumType)) and isinstance(
            strip(v.type), (PointerType, BaseType, EnumType)
        ):
            return Value(self._guard(lambda: DwarfValue.of_int(target, v.as_int(), v.ctx)))
        return Value(v.with_type(target))

    # --- numbers ------------------------------------------------------------------------
    def _number(self) -> int | float:
        v = _coerce_ref(self._v) if isinstance(strip(self._v.type), ReferenceType) else self._v
        return self._guard(lambda: to_number(_evaluator(v.ctx).rvalue(v)))  # type: ignore[no-any-return]

    def __int__(self) -> int:
        n = self._number()
        return int(n)

    def __index__(self) -> int:
        return int(self)

    def __float__(self) -> float:
        return float(self._number())

    def __bool__(self) -> bool:
        t = strip(self._v.type)
        if not isinstance(t, (BaseType, EnumType, PointerType)):
            return True  # gdb: every other value is true
        return self._number() != 0

    def __len__(self) -> int:
        t = strip(self._v.type)
        if isinstance(t, ArrayType):
            return t.count or 0
        raise gdb_error("Cannot take the length of a value of this type")

    def _binary(self, op: str, other: Any, reverse: bool = False) -> Value:
        a, b = self._v, from_python(other)
        if reverse:
            a, b = b, a
        return Value(self._guard(lambda: _evaluator(self._v.ctx).arith(op, a, b)))

    def __add__(self, o: Any) -> Value: return self._binary("+", o)
    def __radd__(self, o: Any) -> Value: return self._binary("+", o, True)
    def __sub__(self, o: Any) -> Value: return self._binary("-", o)
    def __rsub__(self, o: Any) -> Value: return self._binary("-", o, True)
    def __mul__(self, o: Any) -> Value: return self._binary("*", o)
    def __rmul__(self, o: Any) -> Value: return self._binary("*", o, True)
    def __truediv__(self, o: Any) -> Value: return self._binary("/", o)
    def __rtruediv__(self, o: Any) -> Value: return self._binary("/", o, True)
    def __floordiv__(self, o: Any) -> Value: return self._binary("/", o)
    def __mod__(self, o: Any) -> Value: return self._binary("%", o)
    def __rmod__(self, o: Any) -> Value: return self._binary("%", o, True)
    def __lshift__(self, o: Any) -> Value: return self._binary("<<", o)
    def __rlshift__(self, o: Any) -> Value: return self._binary("<<", o, True)
    def __rshift__(self, o: Any) -> Value: return self._binary(">>", o)
    def __rrshift__(self, o: Any) -> Value: return self._binary(">>", o, True)
    def __and__(self, o: Any) -> Value: return self._binary("&", o)
    def __rand__(self, o: Any) -> Value: return self._binary("&", o, True)
    def __or__(self, o: Any) -> Value: return self._binary("|", o)
    def __ror__(self, o: Any) -> Value: return self._binary("|", o, True)
    def __xor__(self, o: Any) -> Value: return self._binary("^", o)
    def __rxor__(self, o: Any) -> Value: return self._binary("^", o, True)
    def __pow__(self, o: Any) -> Value: return Value(from_python(self._number() ** float(o)))

    def __neg__(self) -> Value: return self._binary("*", -1)
    def __pos__(self) -> Value: return self
    def __abs__(self) -> Value: return self if self._number() >= 0 else -self
    def __invert__(self) -> Value: return self._binary("^", -1)

    def _compare(self, op: str, other: Any) -> bool:
        if other is None:
            return op == "!="
        return bool(int(self._binary(op, other)))

    def __eq__(self, o: object) -> bool: return self._compare("==", o)
    def __ne__(self, o: object) -> bool: return self._compare("!=", o)
    def __lt__(self, o: Any) -> bool: return self._compare("<", o)
    def __le__(self, o: Any) -> bool: return self._compare("<=", o)
    def __gt__(self, o: Any) -> bool: return self._compare(">", o)
    def __ge__(self, o: Any) -> bool: return self._compare(">=", o)

    def __hash__(self) -> int:
        return id(self)

    # --- text ---------------------------------------------------------------------------
    def string(self, encoding: str | None = None, errors: str | None = None, length: Any = -1) -> str:
        length = int(length)
        v = _coerce_ref(self._v)
        t = strip(v.type)
        if isinstance(t, PointerType):
            address, element = self._guard(v.as_int), strip(t.target)
        elif isinstance(t, ArrayType) and v.address is not None:
            address, element = v.address, strip(t.element)
            if length < 0:
                length = t.count if t.count is not None else -1
        elif isinstance(t, ArrayType):  # not in memory: its own bytes, up to the NUL
            data: bytes = self._guard(v.data)
            size = max(strip(t.element).size, 1)
            data = data[: length * size] if length >= 0 else data
            end = next((i for i in range(0, len(data), size) if not any(data[i : i + size])), -1)
            data = data[:end] if end >= 0 and length < 0 else data
            return data.decode(encoding or _encoding(size), errors or "strict")
        else:
            raise gdb_error("Trying to read string with inappropriate type `%s'." % v.type)
        size = max(element.size, 1)
        if length >= 0:
            data = self._guard(_read, v.ctx, address, length * size)
            if isinstance(t, ArrayType):  # an array's string ends at its first NUL
                end = next((i for i in range(0, len(data), size) if not any(data[i : i + size])), -1)
                data = data[:end] if end >= 0 else data
        else:
            data = self._guard(_read_to_nul, v.ctx, address, size)
        return data.decode(encoding or _encoding(size), errors or "strict")

    def lazy_string(self, encoding: str | None = None, length: Any = -1) -> LazyString:
        length = int(length)
        if not -(1 << 63) <= length < 1 << 63:  # gdb parses it as a long long (a string's garbage length)
            raise OverflowError("int too big to convert")
        v = _coerce_ref(self._v)
        t = strip(v.type)
        if isinstance(t, PointerType):
            address = self._guard(v.as_int)
        elif isinstance(t, ArrayType):
            if v.address is None:
                raise gdb_error("Cannot make a lazy string from a value not in memory.")
            address = v.address
            if length == -1:
                length = t.count or -1
        else:
            raise gdb_error("Cannot make lazy string from this value")
        if length < -1:
            raise ValueError("Invalid length.")
        return LazyString(address, length, encoding, v.type)

    def format_string(self, *args: Any, **kwargs: Any) -> str:
        from aliceserver.debuggers.printers.render import format_string

        return format_string(self, kwargs)

    def __str__(self) -> str:
        return self.format_string()

    def __repr__(self) -> str:
        return f"<gdb.Value {self._v.type}>"


def _encoding(size: int) -> str:
    return {1: "utf-8", 2: "utf-16-le", 4: "utf-32-le"}.get(size, "utf-8")


def _read(frame: FrameContext, address: int, size: int) -> bytes:
    from aliceserver.debuggers.symbols.dwarf.values import read

    if size > MAX_STRING:
        raise EvaluationError(f"string of {size} bytes is too long to read")
    return read(frame, address, size)


def _read_to_nul(frame: FrameContext, address: int, size: int) -> bytes:
    from aliceserver.debuggers.symbols.dwarf.values import read

    out = bytearray()
    chunk = 256
    while len(out) < MAX_STRING:
        try:
            part = read(frame, address + len(out), chunk)
        except EvaluationError:
            if chunk == size:
                if not out:
                    raise
                break
            chunk = size
            continue
        for i in range(0, len(part), size):
            if part[i : i + size] == b"\0" * size:
                return bytes(out + part[:i])
        out += part
    return bytes(out)


def _cast(v: DwarfValue, target: DwarfType) -> DwarfValue:
    """gdb's value_cast: C casts, and between a class and its bases (either way)."""
    v = _coerce_ref(v) if not isinstance(strip(target), ReferenceType) else v
    src, dst = strip(v.type), strip(target)
    if isinstance(dst, ReferenceType):
        inner = _cast(_coerce_ref(v), dst.target)
        if inner.address is None:
            raise EvaluationError("Attempt to take address of value not located in memory.")
        return DwarfValue.of_int(target, inner.address, v.ctx)
    if isinstance(src, StructType) and isinstance(dst, StructType):
        if src is dst or str(src) == str(dst):
            return v.with_type(target)
        path = _base_offset(src, dst, 0)
        if path is not None:
            return v.sub_value(target, path)
        down = _base_offset(dst, src, 0)
        if down is not None and v.address is not None:
            return DwarfValue(target, MemoryLoc(v.address - down), v.ctx)
        if isinstance(v.location, MemoryLoc):  # gdb's value_cast: an lvalue in memory is
            return DwarfValue(target, MemoryLoc(v.location.address), v.ctx)  # reread as `target`
        raise EvaluationError("Invalid cast.")
    if isinstance(src, (StructType, ArrayType)) and dst.size == src.size:
        return v.with_type(target)
    if isinstance(src, PointerType) and isinstance(dst, PointerType):
        _read_downcast_object(v, src, dst)
    return cast(v, target, _builtins())


def _read_downcast_object(v: DwarfValue, src: PointerType, dst: PointerType) -> None:
    """gdb's value_cast_structs reads the object a pointer cast down to a derived class
    points to (value_at, not lazy): a list's or hash table's garbage node pointer fails at
    the printer's cast, as in gdb, not later as a child is printed. A null pointer is not read."""
    base, derived = strip(src.target), strip(dst.target)
    if not isinstance(base, StructType) or not isinstance(derived, StructType) or str(base) == str(derived):
        return
    offset = _base_offset(derived, base, 0)
    if offset is None:
        return
    address = v.as_int()
    if address:
        DwarfValue(dst.target, MemoryLoc(address - offset), v.ctx).data()


def _active_variant(v: DwarfValue) -> Member | None:
    """The variant a Rust enum's discriminant names (None: not an enum, or unreadable)."""
    t = strip(v.type)
    part = t.variants if isinstance(t, StructType) else None
    if part is None:
        return None
    try:
        discr = None if part.discriminant is None else v.member_value(part.discriminant).as_int()
    except EvaluationError:
        return None
    return part.active(discr)


def _variant_field(v: DwarfValue, key: Field) -> DwarfValue | None:
    """`value[field]` for a field of a Rust enum's type: the discriminant or a variant
    (any variant, as gdb reads a field of the unresolved type where it lies)."""
    t = strip(v.type)
    part = t.variants if isinstance(t, StructType) else None
    if part is None:
        return None
    members = [part.discriminant] if key.name is None else [m for _, m in part.variants if m.name == key.name]
    for m in members:
        if m is not None and (m.offset or 0) * 8 == key.bitpos:
            return v.member_value(m)
    return None


def _base_offset(derived: StructType, base: StructType, depth: int) -> int | None:
    if depth > 16:
        return None
    for m in derived.members:
        if not m.is_base or m.offset is None:
            continue
        mt = strip(m.type)
        if mt is base or str(mt) == str(base):
            return m.offset
        if isinstance(mt, StructType):
            inner = _base_offset(mt, base, depth + 1)
            if inner is not None:
                return m.offset + inner
    return None


from aliceserver.debuggers.printers import gdb  # noqa: E402  (gdb imports this module)

__all__ = ["LazyString", "OptimizedOutError", "Value", "from_python", "make_value"]
