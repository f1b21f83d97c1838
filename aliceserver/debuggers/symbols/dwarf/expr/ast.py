"""The expression tree: frozen nodes, built by the parser, walked by the evaluator."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class IntLit:
    value: int
    type_name: str  # int, unsigned int, long, unsigned long, long long, unsigned long long


@dataclass(frozen=True, slots=True)
class FloatLit:
    value: float
    type_name: str  # float, double, long double


@dataclass(frozen=True, slots=True)
class DecimalFloatLit:
    digits: str  # as written: `1.2E10`
    type_name: str  # _Decimal32, _Decimal64, _Decimal128


@dataclass(frozen=True, slots=True)
class CharLit:
    value: int
    type_name: str = "char"  # wchar_t, char16_t, char32_t: L'a', u'a', U'a'


@dataclass(frozen=True, slots=True)
class StringLit:
    value: bytes  # the elements' bytes, without the NUL that ends them
    char_type: str = "char"  # wchar_t, char16_t, char32_t: L"a", u"a", U"a"


@dataclass(frozen=True, slots=True)
class Name:
    name: str  # may be scoped: `ns::var`; a leading `::` means the global scope


@dataclass(frozen=True, slots=True)
class EntryValue:
    """gdb's `x@entry`: parameter x's value when its function was entered."""

    name: str


@dataclass(frozen=True, slots=True)
class Register:
    name: str  # without the `$`: a register (`pc`), else a convenience variable (`i`)


@dataclass(frozen=True, slots=True)
class History:
    """gdb's value history: `$3` (number 3), `$` (0: the last), `$$2` (-2: before it)."""

    number: int


@dataclass(frozen=True, slots=True)
class Repeat:
    """gdb's artificial array `base@count`: count objects in memory from base's address."""

    base: Expr
    count: Expr


@dataclass(frozen=True, slots=True)
class TypeName:
    base: str  # `int`, `unsigned char`, `struct point`, `myint`
    pointers: int = 0  # `*` declarators
    array: tuple[int | None, ...] = ()  # `[3]` declarators; None: `[]`, gdb's (T[]) x cast
    const: bool = False  # `const T`, `T const` (the base type's qualifier)
    reference: str = ""  # a C++ `&` or `&&` declarator, outermost
    # An abstract function declarator `(*)(params)`: the type above is what it returns,
    # this many `*` point to it; params None for `()` (unprototyped, as gdb's C parser).
    function_pointers: int = 0
    params: tuple[TypeName, ...] | None = None
    varargs: bool = False
    array_pointers: int = 0  # `(*)[3]`: this many `*` point to the array above (int (*)[3])


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # - + ! ~ * & sizeof ++ -- (prefix), post++ post-- (postfix)
    operand: Expr


@dataclass(frozen=True, slots=True)
class SizeofType:
    type: TypeName


@dataclass(frozen=True, slots=True)
class AlignofType:
    """C11's `_Alignof (type)` (gdb's UNOP_ALIGNOF: a type only, an int)."""

    type: TypeName


@dataclass(frozen=True, slots=True)
class TypeExpr:
    """A type alone where a value would be (gdb's OP_TYPE): `ptype struct s`, `whatis int *`."""

    type: TypeName


@dataclass(frozen=True, slots=True)
class Cast:
    type: TypeName
    operand: Expr


@dataclass(frozen=True, slots=True)
class NamedCast:
    """C++'s dynamic_cast<T>(v) and reinterpret_cast<T>(v) (static_cast and const_cast
    parse as a C cast, as in gdb)."""

    kind: str  # dynamic_cast | reinterpret_cast
    type: TypeName
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # || && | ^ & == != < > <= >= << >> + - * / %
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Ternary:
    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True, slots=True)
class Assign:
    op: str  # = += -= *= /= %= <<= >>= &= ^= |=
    target: Expr
    value: Expr


@dataclass(frozen=True, slots=True)
class Comma:
    """C's `first, then`: both evaluated, the value is then's."""

    first: Expr
    then: Expr


@dataclass(frozen=True, slots=True)
class MemoryAt:
    """gdb's `{type} address`: the value of that type at the address (UNOP_MEMVAL)."""

    type: TypeName
    address: Expr


@dataclass(frozen=True, slots=True)
class ArrayRepeat:
    """Rust's `[value; count]`."""

    value: Expr
    count: int


@dataclass(frozen=True, slots=True)
class Range:
    """Rust's `a..b`, `a..=b`, `a..`, `..b`, `..`."""

    low: Expr | None
    high: Expr | None
    inclusive: bool = False


@dataclass(frozen=True, slots=True)
class StructLit:
    """Rust's `Point { x: 1, y: 2 }`, `Point { x: 1, ..p }` (gdb's rust_aggregate_operation)."""

    path: str
    fields: tuple[tuple[str, Expr], ...]
    base: Expr | None = None


@dataclass(frozen=True, slots=True)
class ArrayLit:
    """gdb's `{1, 2, 3}`: an array of the elements, which live in no memory (OP_ARRAY)."""

    elements: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Index:
    base: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class Member:
    base: Expr
    name: str
    arrow: bool


@dataclass(frozen=True, slots=True)
class TupleField:
    """Rust's `t.0`: a tuple, tuple struct or tuple variant's field by position."""

    base: Expr
    index: int


@dataclass(frozen=True, slots=True)
class Call:
    function: Expr
    args: tuple[Expr, ...]


Expr = (
    IntLit
    | FloatLit
    | DecimalFloatLit
    | CharLit
    | StringLit
    | Name
    | EntryValue
    | Register
    | History
    | Repeat
    | Unary
    | SizeofType
    | AlignofType
    | TypeExpr
    | Cast
    | NamedCast
    | Binary
    | Ternary
    | Assign
    | Comma
    | MemoryAt
    | ArrayLit
    | ArrayRepeat
    | Range
    | StructLit
    | Index
    | Member
    | TupleField
    | Call
)
