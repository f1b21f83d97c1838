"""A typed model of C, C++ and Rust types, named the way gdb prints them (built from DIEs
by type_builder.py).

Types are plain objects that may form cycles (`struct node { struct node *next; }`): they are
cached by DIE offset before their parts are resolved, and compare by identity.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.class_decls import ClassDeclarations

log = logging.getLogger(__name__)

POINTER_SIZE = 8


class Encoding(enum.Enum):
    SIGNED = "signed"
    UNSIGNED = "unsigned"
    SIGNED_CHAR = "signed char"
    UNSIGNED_CHAR = "unsigned char"
    BOOL = "bool"
    FLOAT = "float"
    UTF = "utf"  # char8_t / char16_t / char32_t
    COMPLEX = "complex"  # _Complex float/double: two floats
    DECIMAL_FLOAT = "decimal float"  # _Decimal32/64/128, BID-encoded (decfloat.py)


ATE_ENCODINGS = {  # DW_ATE_* -> Encoding
    0x1: Encoding.UNSIGNED,  # address
    0x2: Encoding.BOOL,
    0x3: Encoding.COMPLEX,
    0x4: Encoding.FLOAT,
    0x5: Encoding.SIGNED,
    0x6: Encoding.SIGNED_CHAR,
    0x7: Encoding.UNSIGNED,
    0x8: Encoding.UNSIGNED_CHAR,
    0xF: Encoding.DECIMAL_FLOAT,
    0x10: Encoding.UTF,
}


class Type:
    """Base of every type; `size` in bytes (0 when unknown or void)."""

    size: int
    rust = False  # built from a Rust unit: named in Rust's syntax (rust_types.py)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {type_name(self)!r}>"

    def __str__(self) -> str:
        return type_name(self)


@dataclass(eq=False, repr=False)
class VoidType(Type):
    size: int = 0


@dataclass(eq=False, repr=False)
class InternalFunctionType(Type):
    """gdb's TYPE_CODE_INTERNAL_FUNCTION: the type of `$_strlen` and its kin as values."""

    function: str = ""
    size: int = 0


@dataclass(eq=False, repr=False)
class BaseType(Type):
    name: str
    size: int
    encoding: Encoding

    @property
    def signed(self) -> bool:
        return self.encoding in (Encoding.SIGNED, Encoding.SIGNED_CHAR)

    @property
    def is_char(self) -> bool:
        return self.size == 1 and self.encoding in (Encoding.SIGNED_CHAR, Encoding.UNSIGNED_CHAR)


@dataclass(eq=False, repr=False)
class PointerType(Type):
    target: Type
    size: int = POINTER_SIZE


@dataclass(eq=False, repr=False)
class MemberPointerType(Type):
    """A C++ pointer to member (`int Plain::*`, `int (Plain::*)(int)`): for a data member
    the member's offset (-1: null); for a method the Itanium ABI's {ptr, adj} pair, where
    an odd ptr is a vtable offset + 1 (a virtual method)."""

    target: Type
    owner: Type  # the class (DW_AT_containing_type)

    @property
    def size(self) -> int:  # type: ignore[override]
        return 2 * POINTER_SIZE if self.is_method else POINTER_SIZE

    @property
    def is_method(self) -> bool:
        return isinstance(strip(self.target), FunctionType)


@dataclass(eq=False, repr=False)
class ReferenceType(Type):
    target: Type
    rvalue: bool = False
    size: int = POINTER_SIZE


@dataclass(eq=False, repr=False)
class Member:
    name: str | None
    type: Type
    offset: int | None  # bytes from the start of the object; None: not constant (virtual base)
    bit_size: int = 0  # bitfields: width in bits
    bit_offset: int = 0  # bitfields: bits from the least significant bit at `offset`
    is_base: bool = False
    artificial: bool = False  # _vptr and the like
    access: str = "public"  # C++: public, private or protected (DW_AT_accessibility)
    # A virtual base's DW_AT_data_member_location: run over the object's address (it reads
    # the vtable), since where the base lives depends on the most derived class.
    location: bytes | None = None


@dataclass(eq=False, repr=False)
class StaticMember:
    """A C++ static data member: not in the object's bytes, shown as `static x = 3`."""

    name: str
    type: Type
    link_address: Callable[[], int | None]  # the definition's link-time address, if any
    const_value: int | bytes | None = None  # an in-class constant (DW_AT_const_value: a block's bytes)
    position: int = 0  # how many (non-static) members are declared before it
    access: str = "public"


@dataclass(eq=False, repr=False)
class StructType(Type):
    """`members`, `statics` and `variants` are read from DWARF by `fill` when first asked
    for: most structs met at a stop are behind pointers and never opened (a CPython
    `PyObject *` argument reaches 140 types when built whole)."""

    keyword: str  # struct | class | union
    tag: str | None
    size: int
    cplus: bool = False
    declaration: bool = False
    fill: Callable[[StructType], None] | None = None
    _members: list[Member] = field(default_factory=list)
    _statics: list[StaticMember] = field(default_factory=list)
    _variants: VariantPart | None = None  # Rust enums (DW_TAG_variant_part)
    # For gdb's Python API (pretty printers): template arguments and types declared inside.
    template_params: Callable[[], list[TemplateParam]] | None = None
    nested_type: Callable[[str], Type | None] | None = None
    # The highest vtable slot of the class's own virtual functions (-1: none): `info vtbl`.
    virtual_slots: Callable[[], int] | None = None
    # Member functions by name (C++ methods and operators): each one's linkage name (or
    # None) and how many parameters it declares besides `this`.
    methods: Callable[[str], list[tuple[str | None, int]]] | None = None
    # The demangled name of the virtual method in a vtable slot (`geo::Plain::g()`), this
    # class's or a base's: a pointer to a virtual member function holds only the slot.
    virtual_method: Callable[[int], str | None] | None = None
    # Every member function the class declares, typed (calls into the program: expr/cxxcalls.py).
    member_functions: Callable[[], list[MemberFunction]] | None = None
    # Its methods and typedefs as ptype writes them out (class_decls.py).
    declarations: Callable[[], ClassDeclarations] | None = None
    # A declaration's definition elsewhere in the image (gdb's check_typedef: a class
    # with virtual methods is defined only in the unit of its first one), looked up by
    # strip() when the type is first used; None once looked up, or when it has none.
    definition: Callable[[], StructType | None] | None = None

    def complete(self) -> StructType:
        """This declaration made its definition (the same object: whatever holds it sees
        the members), when the image defines it."""
        find, self.definition = self.definition, None
        found = find() if find is not None else None
        if found is not None and found is not self:
            for name in _STRUCT_STATE:
                setattr(self, name, getattr(found, name))
        return self

    def _filled(self) -> StructType:
        fill, self.fill = self.fill, None  # first, so a member of this type's own type stops
        if fill is not None:
            fill(self)
        return self

    @property
    def members(self) -> list[Member]:
        return self._filled()._members

    @members.setter
    def members(self, value: list[Member]) -> None:
        self._members = value

    @property
    def statics(self) -> list[StaticMember]:
        return self._filled()._statics

    def fields_in_order(self) -> list[Member | StaticMember]:
        """Members and static members in declaration order, as gdb lists a class's fields."""
        statics = self.statics
        out: list[Member | StaticMember] = []
        i = 0
        for n, member in enumerate(self.members):
            while i < len(statics) and statics[i].position <= n:
                out.append(statics[i])
                i += 1
            out.append(member)
        out.extend(statics[i:])
        return out

    @property
    def variants(self) -> VariantPart | None:
        return self._filled()._variants


# What a declaration takes from its definition (StructType.complete): all but `definition`.
_STRUCT_STATE = tuple(f.name for f in fields(StructType) if f.name != "definition")


@dataclass(frozen=True, slots=True)
class MemberFunction:
    """A C++ member function as its class declares it (DW_TAG_subprogram in the class)."""

    name: str
    linkage: str | None  # the symbol of its code, when emitted
    type: FunctionType  # its parameters without `this`
    static: bool  # no `this` (DW_AT_object_pointer / an artificial first parameter)
    artificial: bool  # declared by the compiler (implicit constructors, operator=)
    defaulted: bool  # `= default` in the class: trivial when the members are
    virtual_slot: int | None  # DW_AT_vtable_elem_location of a virtual method
    const: bool = False  # `this` points to a const object (a `const` method)


@dataclass(eq=False, repr=False)
class TemplateParam:
    """DW_TAG_template_type_param (`value` None) or DW_TAG_template_value_param."""

    type: Type
    value: int | None = None
    name: str = ""  # the parameter's name (`T`): gdb's ptype writes `[with T = int]`


@dataclass(eq=False, repr=False)
class VariantPart:
    """Which member is live is told by the discriminant member's value (Rust enums)."""

    discriminant: Member | None
    variants: list[tuple[int | None, Member]]  # (DW_AT_discr_value or None = default, member)

    def active(self, discr: int | None) -> Member | None:
        default = None
        for value, member in self.variants:
            if value is None:
                default = member
            elif value == discr:
                return member
        return default


@dataclass(eq=False, repr=False)
class ArrayType(Type):
    element: Type
    count: int | None  # None: flexible or unknown bound
    vector: bool = False  # gdb's vector (`int __attribute__ ((vector_size(28)))`): an array that prints so

    @property
    def size(self) -> int:  # type: ignore[override]
        return 0 if self.count is None else self.count * self.element.size


@dataclass(eq=False, repr=False)
class EnumType(Type):
    tag: str | None
    size: int
    enumerators: list[tuple[str, int]]
    signed: bool = False
    cplus: bool = False
    underlying: str | None = None  # the named type under it (C++ ptype: `: unsigned int`)
    scoped: bool = False  # `enum class`

    @property
    def is_flag(self) -> bool:
        """gdb's "flag enum": every value zero or a single bit (gdb 13 allows the same bit
        twice: an alias such as FE_TWO_LEGACY = FE_TWO)."""
        return bool(self.enumerators) and all(value >= 0 and not value & (value - 1) for _, value in self.enumerators)


@dataclass(eq=False, repr=False)
class TypedefType(Type):
    name: str
    target: Type

    @property
    def size(self) -> int:  # type: ignore[override]
        return self.target.size


@dataclass(eq=False, repr=False)
class QualifiedType(Type):
    target: Type
    const: bool = False
    volatile: bool = False
    restrict: bool = False

    @property
    def size(self) -> int:  # type: ignore[override]
        return self.target.size


@dataclass(eq=False, repr=False)
class FunctionType(Type):
    return_type: Type
    params: list[Type] = field(default_factory=list)
    varargs: bool = False
    prototyped: bool = True
    size: int = 1  # gdb: sizeof a function is 1
    unknown_return: bool = False  # it returns a DW_TAG_unspecified_type: a call asks for a cast


NODEBUG_TEXT = "<text variable, no debug info>"


@dataclass(eq=False, repr=False)
class NodebugFunctionType(FunctionType):
    """gdb's type of a function known only by its ELF symbol (a PLT stub, a library without
    debug info): shown by that name, and unprototyped returning void, so a call asks for a
    cast of its return type (gdb's words)."""

    return_type: Type = field(default_factory=VoidType)
    prototyped: bool = False


NODEBUG_DATA = "<data variable, no debug info>"


@dataclass(eq=False, repr=False)
class NodebugDataType(Type):
    """gdb's type of a variable known only by its ELF symbol (TYPE_CODE_ERROR, no size):
    shown by that name; reading the variable asks for a cast (expr/nodebug.py)."""

    symbol: str = ""
    size: int = 0


def strip(t: Type) -> Type:
    """Without typedefs and cv-qualifiers (a struct only declared here: its definition)."""
    for _ in range(64):
        if isinstance(t, (TypedefType, QualifiedType)):
            t = t.target
        elif type(t) is StructType and t.definition is not None:
            return t.complete()
        else:
            return t
    return t


def strip_refs(t: Type) -> Type:
    t = strip(t)
    return strip(t.target) if isinstance(t, ReferenceType) else t


def is_integral(t: Type) -> bool:
    t = strip(t)
    return (isinstance(t, BaseType) and t.encoding != Encoding.FLOAT) or isinstance(t, EnumType)


def is_float(t: Type) -> bool:
    t = strip(t)
    return isinstance(t, BaseType) and t.encoding == Encoding.FLOAT


def is_scalar_signed(t: Type) -> bool:
    t = strip(t)
    if isinstance(t, BaseType):
        return t.signed
    if isinstance(t, EnumType):
        return t.signed
    return False


# --- names ------------------------------------------------------------------------------
def type_name(t: Type) -> str:
    if t.rust or isinstance(t, (PointerType, ReferenceType, ArrayType, QualifiedType)):
        from aliceserver.debuggers.symbols.dwarf import rust_types  # it imports this module

        if rust_types.is_rust(t):
            return rust_types.rust_type_name(t)
    return _declare(t, "", 0)


def declaration(t: Type, name: str) -> str:
    """`name` declared with type `t`: `int (*name)[3]`."""
    return _declare(t, name, 0)


def _simple_name(t: Type) -> str | None:
    if isinstance(t, NodebugFunctionType):
        return NODEBUG_TEXT
    if isinstance(t, NodebugDataType):
        return NODEBUG_DATA
    if isinstance(t, VoidType):
        return "void"
    if isinstance(t, InternalFunctionType):
        return "<internal function>"
    if isinstance(t, BaseType):
        return t.name
    if isinstance(t, TypedefType):
        return t.name
    if isinstance(t, StructType):
        if t.tag is None:
            return f"{t.keyword} {{...}}"
        return t.tag if t.cplus else f"{t.keyword} {t.tag}"
    if isinstance(t, EnumType):
        if t.tag is None:
            return "enum {...}"
        return t.tag if t.cplus else f"enum {t.tag}"
    return None


def _join(base: str, inner: str) -> str:
    if not inner:
        return base
    if inner[0] in "*&(" or inner.startswith("["):
        return f"{base} {inner}"
    return f"{base} {inner}".rstrip()


def _declare(t: Type, inner: str, depth: int) -> str:
    if depth > 32:
        return "..."
    simple = _simple_name(t)
    if simple is not None:
        return _join(simple, inner)
    if isinstance(t, QualifiedType):
        quals = " ".join(
            q
            for q, on in (("const", t.const), ("volatile", t.volatile), ("restrict", t.restrict))
            if on
        )
        target_simple = _simple_name(t.target)
        if target_simple is not None:
            return _join(f"{quals} {target_simple}", inner)
        if isinstance(t.target, (PointerType, ReferenceType, MemberPointerType)):
            # gdb: `int * const *` but `int * const&` (a reference's mark follows with no blank)
            after = inner if inner.startswith("&") else f" {inner}" if inner else ""
            return _declare(t.target, f" {quals}{after}", depth + 1)
        if isinstance(t.target, ArrayType):  # C has no qualified arrays: its elements are
            element = QualifiedType(t.target.element, t.const, t.volatile, t.restrict)
            return _declare(replace(t.target, element=element), inner, depth + 1)
        return _declare(t.target, inner, depth + 1)
    if isinstance(t, PointerType):
        return _declare(t.target, _wrap_if_needed(t.target, "*" + inner), depth + 1)
    if isinstance(t, MemberPointerType):  # `int geo::Plain::*`, `int (geo::Plain::*)(int)`
        scope = f"{_declare(t.owner, '', depth + 1)}::*"
        return _declare(t.target, _wrap_if_needed(t.target, scope + inner), depth + 1)
    if isinstance(t, ReferenceType):
        mark = "&&" if t.rvalue else "&"
        return _declare(t.target, _wrap_if_needed(t.target, mark + inner), depth + 1)
    if isinstance(t, ArrayType):
        dim = "" if t.count is None else str(t.count)
        if t.vector:  # gdb's c_type_print_varspec_suffix counts elements, not bytes
            return _join(_declare(t.element, inner, depth + 1), f"__attribute__ ((vector_size({dim})))")
        return _declare(t.element, f"{inner}[{dim}]", depth + 1)
    if isinstance(t, FunctionType):
        params = ", ".join(_declare(p, "", depth + 1) for p in t.params)
        if params and t.varargs:
            params += ", ..."
        elif not params and t.prototyped:
            params = "void"  # gdb: `()` only for an unprototyped C function
        return _declare(t.return_type, f"{inner}({params})", depth + 1)
    return _join("<unknown type>", inner)


def _wrap_if_needed(target: Type, inner: str) -> str:
    # `int (*)[3]`, `int (*)(int)`: a declarator binds tighter to [] and () than to *.
    while isinstance(target, QualifiedType):  # `volatile char (*)[8]` too
        target = target.target
    if isinstance(target, NodebugFunctionType):
        return inner  # `<text variable, no debug info> *`
    return f"({inner.strip()})" if isinstance(target, (ArrayType, FunctionType)) else inner
