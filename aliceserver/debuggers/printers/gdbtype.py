"""gdb.Type and gdb.Field over the DWARF type model (types.py), and gdb.lookup_type."""

from __future__ import annotations

import logging
from typing import Any

from aliceserver.debuggers.printers import context
from aliceserver.debuggers.symbols.dwarf.expr.convert import Builtins
from aliceserver.debuggers.symbols.dwarf.names import split_top_level
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    Member,
    MemberPointerType,
    PointerType,
    QualifiedType,
    ReferenceType,
    StaticMember,
    StructType,
    TypedefType,
    VoidType,
    strip,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.types import (
    Type as DwarfType,
)

log = logging.getLogger(__name__)

# gdb's type codes, numbered as in its gdbtypes.h (printers only compare them).
TYPE_CODES = {
    "TYPE_CODE_BITSTRING": -1, "TYPE_CODE_PTR": 1, "TYPE_CODE_ARRAY": 2, "TYPE_CODE_STRUCT": 3,
    "TYPE_CODE_UNION": 4, "TYPE_CODE_ENUM": 5, "TYPE_CODE_FLAGS": 6, "TYPE_CODE_FUNC": 7,
    "TYPE_CODE_INT": 8, "TYPE_CODE_FLT": 9, "TYPE_CODE_VOID": 10, "TYPE_CODE_SET": 11,
    "TYPE_CODE_RANGE": 12, "TYPE_CODE_STRING": 13, "TYPE_CODE_ERROR": 14, "TYPE_CODE_METHOD": 15,
    "TYPE_CODE_METHODPTR": 16, "TYPE_CODE_MEMBERPTR": 17, "TYPE_CODE_REF": 18,
    "TYPE_CODE_RVALUE_REF": 19, "TYPE_CODE_CHAR": 20, "TYPE_CODE_BOOL": 21,
    "TYPE_CODE_COMPLEX": 22, "TYPE_CODE_TYPEDEF": 23, "TYPE_CODE_NAMESPACE": 24,
    "TYPE_CODE_DECFLOAT": 25, "TYPE_CODE_MODULE": 26, "TYPE_CODE_INTERNAL_FUNCTION": 27,
    "TYPE_CODE_XMETHOD": 28, "TYPE_CODE_FIXED_POINT": 29, "TYPE_CODE_NAMELIST": 30,
}  # fmt: skip
C = TYPE_CODES


def gdb_error(message: str) -> Exception:
    from aliceserver.debuggers.printers.gdb import error

    return error(message)


def type_code(t: DwarfType) -> int:
    while isinstance(t, QualifiedType):
        t = t.target
    if isinstance(t, TypedefType):
        return C["TYPE_CODE_TYPEDEF"]
    if isinstance(t, PointerType):
        return C["TYPE_CODE_PTR"]
    if isinstance(t, MemberPointerType):
        return C["TYPE_CODE_METHODPTR" if t.is_method else "TYPE_CODE_MEMBERPTR"]
    if isinstance(t, ReferenceType):
        return C["TYPE_CODE_RVALUE_REF" if t.rvalue else "TYPE_CODE_REF"]
    if isinstance(t, StructType):
        return C["TYPE_CODE_UNION" if t.keyword == "union" else "TYPE_CODE_STRUCT"]
    if isinstance(t, ArrayType):
        return C["TYPE_CODE_ARRAY"]
    if isinstance(t, EnumType):
        return C["TYPE_CODE_ENUM"]
    if isinstance(t, FunctionType):
        return C["TYPE_CODE_FUNC"]
    if isinstance(t, VoidType):
        return C["TYPE_CODE_VOID"]
    if isinstance(t, BaseType):
        return {
            Encoding.FLOAT: C["TYPE_CODE_FLT"], Encoding.BOOL: C["TYPE_CODE_BOOL"],
            Encoding.COMPLEX: C["TYPE_CODE_COMPLEX"], Encoding.UTF: C["TYPE_CODE_CHAR"],
        }.get(t.encoding, C["TYPE_CODE_INT"])  # fmt: skip
    return C["TYPE_CODE_ERROR"]


class Field:
    """gdb.Field: one member, base class, enumerator or parameter of a type."""

    def __init__(self, name: str | None, type: Type | None, parent_type: Type, **extra: Any) -> None:
        self.name = name
        self.type = type
        self.parent_type = parent_type
        self.bitpos: int = extra.get("bitpos", 0)
        self.bitsize: int = extra.get("bitsize", 0)
        self.artificial: bool = extra.get("artificial", False)
        self.is_base_class: bool = extra.get("is_base_class", False)
        if "enumval" in extra:
            self.enumval: int = extra["enumval"]

    def __repr__(self) -> str:
        return f"<gdb.Field {self.name!r}>"


class Type:
    """gdb.Type wrapping a DWARF type; equal when they name the same type."""

    __slots__ = ("_t", "_variant")

    def __init__(self, t: DwarfType, variant: Member | None = None) -> None:
        self._t = t
        # A Rust enum's type as a value has it: gdb resolves the variant part to the
        # variant the discriminant names, so fields() lists only that one.
        self._variant = variant

    @property
    def dwarf(self) -> DwarfType:
        return self._t

    # --- attributes ---------------------------------------------------------------------
    @property
    def code(self) -> int:
        return type_code(self._t)

    @property
    def name(self) -> str | None:
        t = _unqualified(self._t)
        if isinstance(t, (BaseType, TypedefType)):
            return t.name
        if isinstance(t, (StructType, EnumType)):
            return t.tag
        if isinstance(t, VoidType):
            return "void"
        return None

    @property
    def tag(self) -> str | None:
        t = _unqualified(self._t)
        return t.tag if isinstance(t, (StructType, EnumType)) else None

    @property
    def sizeof(self) -> int:
        return strip(self._t).size

    @property
    def alignof(self) -> int:
        return min(max(self.sizeof, 1), 16)

    @property
    def dynamic(self) -> bool:
        return False

    @property
    def objfile(self) -> None:
        return None

    def __str__(self) -> str:
        return type_name(self._t)

    def __repr__(self) -> str:
        return f"<gdb.Type code={self.code} name={str(self)}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Type):
            return NotImplemented
        return self._t is other._t or (self.code == other.code and str(self) == str(other))

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self) -> int:
        return hash(str(self))

    def __bool__(self) -> bool:
        return True

    # --- derived types ------------------------------------------------------------------
    def strip_typedefs(self) -> Type:
        t, const, volatile = self._t, False, False
        for _ in range(64):
            if isinstance(t, QualifiedType):
                const, volatile = const or t.const, volatile or t.volatile
                t = t.target
            elif isinstance(t, TypedefType):
                t = t.target
            else:
                break
        return Type(QualifiedType(t, const, volatile) if const or volatile else t)

    def unqualified(self) -> Type:
        return Type(_unqualified(self._t))

    def target(self) -> Type:
        t = _unqualified(self._t)
        if isinstance(t, (PointerType, ReferenceType, TypedefType)):
            return Type(t.target)
        if isinstance(t, ArrayType):
            return Type(t.element)
        if isinstance(t, FunctionType):
            return Type(t.return_type)
        raise RuntimeError("Type does not have a target.")

    def pointer(self) -> Type:
        return Type(PointerType(self._t))

    def reference(self) -> Type:
        return Type(ReferenceType(self._t))

    def const(self) -> Type:
        return Type(QualifiedType(self._t, const=True))

    def volatile(self) -> Type:
        return Type(QualifiedType(self._t, volatile=True))

    def array(self, n1: int, n2: int | None = None) -> Type:
        low, high = (0, n1) if n2 is None else (n1, n2)
        if high < low - 1:
            raise ValueError("Array length must not be negative")
        return Type(ArrayType(self._t, high - low + 1))

    def vector(self, n1: int, n2: int | None = None) -> Type:
        return self.array(n1, n2)

    def range(self) -> tuple[int, int]:
        t = strip(self._t)
        if isinstance(t, ArrayType):
            return (0, (t.count or 0) - 1)
        raise RuntimeError("This type does not have a range.")

    # --- members ------------------------------------------------------------------------
    def fields(self) -> list[Field]:
        t = strip(self._t)
        if isinstance(t, StructType):
            out = self._variant_fields(t)
            for m in t.fields_in_order():  # statics among the others, as gdb has them
                if isinstance(m, StaticMember):
                    out.append(Field(m.name, Type(m.type), self))
                    continue
                out.append(Field(
                    m.name, Type(m.type), self, bitpos=(m.offset or 0) * 8 + m.bit_offset,
                    bitsize=m.bit_size, artificial=m.artificial, is_base_class=m.is_base,
                ))  # fmt: skip
            return out
        if isinstance(t, EnumType):
            return [Field(name, None, self, enumval=value) for name, value in t.enumerators]
        if isinstance(t, FunctionType):
            return [Field(None, Type(p), self) for p in t.params]
        if isinstance(t, ArrayType):
            return [Field(None, None, self)]
        raise TypeError("Type is not a structure, union, enum, or function type.")

    def _variant_fields(self, t: StructType) -> list[Field]:
        """gdb's fields of a Rust enum: the discriminant (unnamed, artificial), then each
        variant (only the active one in a value's type), all at their DWARF offsets."""
        part = t.variants
        if part is None:
            return []
        out = []
        if part.discriminant is not None:
            d = part.discriminant
            out.append(Field(None, Type(d.type), self, bitpos=(d.offset or 0) * 8, artificial=True))
        for _, m in part.variants:
            if self._variant is None or m is self._variant:
                out.append(Field(m.name, Type(m.type), self, bitpos=(m.offset or 0) * 8))
        return out

    def keys(self) -> list[str | None]:
        return [f.name for f in self.fields()]

    def values(self) -> list[Field]:
        return self.fields()

    def items(self) -> list[tuple[str | None, Field]]:
        return [(f.name, f) for f in self.fields()]

    def iterkeys(self) -> Any:
        return iter(self.keys())

    def itervalues(self) -> Any:
        return iter(self.values())

    def iteritems(self) -> Any:
        return iter(self.items())

    def __iter__(self) -> Any:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.fields())

    def __contains__(self, name: object) -> bool:
        return name in self.keys()

    def __getitem__(self, name: str) -> Field:
        for f in self.fields():
            if f.name == name:
                return f
        raise KeyError(name)

    def get(self, name: str, default: Any = None) -> Any:
        try:
            return self[name]
        except KeyError:
            return default

    def has_key(self, name: str) -> bool:
        return name in self

    def template_argument(self, n: int, block: object = None) -> Any:
        t = strip(self._t)
        params = t.template_params() if isinstance(t, StructType) and t.template_params else []
        if params:
            if not 0 <= n < len(params):
                raise RuntimeError(f"Template argument number {n} out of range.")
            param = params[n]
            if param.value is None:
                return Type(param.type)
            from aliceserver.debuggers.printers.gdbvalue import make_value

            return make_value(param.type, param.value)
        return _argument_from_name(str(Type(t)), n)


def _unqualified(t: DwarfType) -> DwarfType:
    while isinstance(t, QualifiedType):
        t = t.target
    return t


def template_arguments(name: str) -> list[str]:
    """The top-level arguments of the last `<...>` of a type name: `a<b, c<d, e> >` -> b, c<d, e>."""
    end = name.rfind(">")
    if end < 0:
        return []
    depth, start = 0, -1
    for i in range(end, -1, -1):
        depth += {">": 1, "<": -1}.get(name[i], 0)
        if depth == 0:
            start = i
            break
    if start < 0:
        return []
    return [arg for arg in split_top_level(name[start + 1 : end]) if arg]


def _argument_from_name(name: str, n: int) -> Any:
    """gdb's fallback without DW_TAG_template_*_param: the argument parsed from the name."""
    args = template_arguments(name)
    if not 0 <= n < len(args):
        if not args:
            raise RuntimeError("This is not a template type.")
        raise RuntimeError(f"Template argument number {n} out of range.")
    text = args[n]
    from aliceserver.debuggers.printers.gdbvalue import make_value

    if text in ("true", "false"):
        return make_value(_builtin("bool"), int(text == "true"))
    number = text.rstrip("uUlL")
    if number.lstrip("-").isdigit() or number.startswith(("0x", "-0x")):
        return make_value(_builtin("long"), int(number, 0))
    return lookup_type(text)


def _builtin(name: str) -> DwarfType:
    call = context.current_or_none()
    builtins = call.session.builtins if call is not None else Builtins()
    return builtins.of(name)


def lookup_type(name: str, block: object = None) -> Type:
    """gdb.lookup_type: base types, structs, typedefs, enums and types declared in classes,
    by the name gdb would print (`std::pair<const int, int>` finds `pair<int const, int>`)."""
    found = find_type(name.strip())
    if found is None:
        log.debug("gdb.lookup_type: no type %s", name)
        raise gdb_error(f"No type named {name}.")
    return Type(found)


def find_type(name: str) -> DwarfType | None:
    call = context.current()
    cache = call.session.type_cache
    if name in cache:
        return cache[name]
    found = _find_type(call, name, 0)
    cache[name] = found
    return found


def _find_type(call: context.Call, name: str, depth: int) -> DwarfType | None:
    if depth > 4:
        return None
    if name.endswith("*") or name.endswith("&"):
        inner = _find_type(call, name[:-1].rstrip(), depth + 1)
        if inner is None:
            return None
        return PointerType(inner) if name.endswith("*") else ReferenceType(inner)
    for prefix in ("const ", "volatile "):
        if name.startswith(prefix):
            inner = _find_type(call, name[len(prefix):], depth + 1)
            return None if inner is None else QualifiedType(inner, const=prefix == "const ",
                                                            volatile=prefix == "volatile ")
    builtin = call.session.builtins.get(_BASE_SPELLINGS.get(name, name))  # the fallback
    target = call.target
    for spelling in _spellings(name):
        if target is not None:
            found = target.lookup_type(spelling)
            if found is not None:
                return found
        nested = _nested(call, spelling, depth)
        if nested is not None:
            return nested
    return builtin


def _nested(call: context.Call, name: str, depth: int) -> DwarfType | None:
    """`outer::inner` where `outer` is a class: a type declared inside it."""
    split = _last_scope(name)
    if split is None:
        return None
    outer_name, inner = split
    outer = _find_type(call, outer_name, depth + 1)
    outer = strip(outer) if outer is not None else None
    stack = [outer] if isinstance(outer, StructType) else []
    for _ in range(32):  # the class, then its bases (gdb's cp_lookup_nested_symbol)
        if not stack:
            break
        cls = stack.pop(0)
        found = cls.nested_type(inner) if cls.nested_type is not None else None
        if found is not None:
            return found
        stack.extend(b for b in (strip(m.type) for m in cls.members if m.is_base) if isinstance(b, StructType))
    return None


def _last_scope(name: str) -> tuple[str, str] | None:
    depth = 0
    for i in range(len(name) - 1, 0, -1):
        ch = name[i]
        depth += {">": 1, "<": -1, ")": 1, "(": -1}.get(ch, 0)
        if depth == 0 and name[i - 1 : i + 1] == "::":
            return name[: i - 1], name[i + 1 :]
    return None


_BASE_SPELLINGS = {"long int": "long", "unsigned long int": "unsigned long",
                   "long unsigned int": "unsigned long", "short int": "short"}  # fmt: skip


def _spellings(name: str) -> list[str]:
    """The ways a compiler may have written `name` in DWARF: as given, with `> >` between
    closing brackets, and with `const T` arguments as `T const` (older g++)."""
    return list(dict.fromkeys((name, dwarf_spelling(name, False), dwarf_spelling(name, True))))


def dwarf_spelling(name: str, const_after: bool) -> str:
    args = template_arguments(name)
    if not args:
        return name
    start = _args_start(name)
    fixed = []
    for arg in args:
        arg = dwarf_spelling(arg, const_after)
        if const_after and arg.startswith("const ") and not arg.endswith(("*", "&")):
            arg = arg[len("const ") :] + " const"
        fixed.append(arg)
    inner = ", ".join(fixed)
    close = " >" if inner.endswith(">") else ">"
    return name[:start] + "<" + inner + close + name[name.rfind(">") + 1 :]


def _args_start(name: str) -> int:
    end = name.rfind(">")
    depth = 0
    for i in range(end, -1, -1):
        depth += {">": 1, "<": -1}.get(name[i], 0)
        if depth == 0:
            return i
    return -1
