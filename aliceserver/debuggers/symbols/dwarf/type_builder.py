"""Types built from DIEs (see types.py for the model), cached by DIE offset."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from elftools.dwarf.die import DIE, AttributeValue
from elftools.dwarf.typeunit import TypeUnit

from aliceserver.debuggers.symbols.dwarf.dies import _CORRUPT, attr_value, die_name
from aliceserver.debuggers.symbols.dwarf.dietree import children, parent_of
from aliceserver.debuggers.symbols.dwarf.languages import CPLUS, RUST, UNPROTOTYPED
from aliceserver.debuggers.symbols.dwarf.locexpr import ByteReader
from aliceserver.debuggers.symbols.dwarf.member_functions import read_member_functions
from aliceserver.debuggers.symbols.dwarf.member_layout import (
    member_location,
    member_offset,
    place_bitfield,
)
from aliceserver.debuggers.symbols.dwarf.names import Demangler
from aliceserver.debuggers.symbols.dwarf.types import (
    ATE_ENCODINGS,
    POINTER_SIZE,
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
    TemplateParam,
    Type,
    TypedefType,
    VariantPart,
    VoidType,
    is_scalar_signed,
    strip,
    type_name,
)
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.class_decls import ClassDeclarations

log = logging.getLogger(__name__)

# --- building from DIEs ----------------------------------------------------------------------
# gcc's DWARF names -> the names gdb prints (and C users write).
_GDB_BASE_NAMES = {
    "long int": "long",
    "long unsigned int": "unsigned long",
    "short int": "short",
    "short unsigned int": "unsigned short",
    "long long int": "long long",
    "long long unsigned int": "unsigned long long",
    "__int128 unsigned": "unsigned __int128",
}
_NESTED_TAGS = frozenset(("DW_TAG_typedef", "DW_TAG_structure_type", "DW_TAG_class_type",
                          "DW_TAG_union_type", "DW_TAG_enumeration_type"))
# Forms of the constant class (DWARF 5 section 7.5.5); the last two are signed by form.
_SIGNED_FORMS = frozenset(("DW_FORM_sdata", "DW_FORM_implicit_const"))
_CONSTANT_FORMS = frozenset(
    ("DW_FORM_data1", "DW_FORM_data2", "DW_FORM_data4", "DW_FORM_data8", "DW_FORM_udata")
) | _SIGNED_FORMS


class TypeBuilder:
    """Types from DIEs, cached by DIE offset (offsets are unique across one .debug_info)."""

    def __init__(self, find_static: Callable[[str], int | None] | None = None,
                 by_signature: Callable[[int], DIE | None] | None = None,
                 find_definition: Callable[[str], DIE | None] | None = None) -> None:  # fmt: skip
        self._cache: dict[int, Type] = {}
        # A struct, class or union's defining DIE by its qualified name (a declaration's
        # definition in another unit of the image): looked up when the type is first used.
        self._find_definition = find_definition
        # A type unit's type DIE by its signature (DW_FORM_ref_sig8, DW_AT_signature):
        # pyelftools finds DWARF 4's in .debug_types only, without their namespaces.
        self._by_signature = by_signature
        self.void = VoidType()
        # Qualified name (`Shape::count`) -> link-time address of a static member's definition.
        self._find_static = find_static
        self._demangler = Demangler()

    def of_die_attr(self, die: DIE, attr: str = "DW_AT_type") -> Type:
        """The type referenced by `attr` of `die` (void when absent)."""
        if attr not in die.attributes:
            return self.void
        try:
            if die.attributes[attr].form == "DW_FORM_ref_sig8":
                return self._signature_type(int(die.attributes[attr].value))
            target = die.get_DIE_from_attribute(attr)
        except Exception as exc:  # a broken reference should not break a whole listing
            log.debug("bad type reference at %#x: %s", die.offset, exc)
            return self.void
        return self.build(target)

    def _signature_type(self, signature: int) -> Type:
        target = self._by_signature(signature) if self._by_signature is not None else None
        if target is None:
            log.debug("no type unit with signature %#x", signature)
            return self.void
        return self.build(target)

    def build(self, die: DIE) -> Type:
        key = _key(die)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        signature = die.attributes.get("DW_AT_signature")
        if signature is not None and signature.form == "DW_FORM_ref_sig8" and self._by_signature is not None:
            # a declaration whose definition is a type unit's (g++ -fdebug-types-section)
            self._cache[key] = t = self._signature_type(int(signature.value))
            return t
        try:
            t = self._make(die)
        except _CORRUPT as exc:  # pyelftools' assorted errors on corrupt DWARF
            raise TargetError(f"corrupt DWARF type at {die.offset:#x}: {exc!r}") from exc
        if t is not self.void and is_rust(die):
            t.rust = True
        return t

    def _make(self, die: DIE) -> Type:
        tag = die.tag
        key = _key(die)
        cplus = is_cplus(die)
        if tag == "DW_TAG_base_type":
            enc = ATE_ENCODINGS.get(attr_value(die, "DW_AT_encoding") or 0, Encoding.SIGNED)
            name = die_name(die) or "?"
            t: Type = BaseType(
                _GDB_BASE_NAMES.get(name, name), int(attr_value(die, "DW_AT_byte_size") or 0), enc
            )
            self._cache[key] = t
            return t
        if tag == "DW_TAG_unspecified_type":
            t = TypedefType(die_name(die) or "void", self.void)
            self._cache[key] = t
            return t
        if tag == "DW_TAG_ptr_to_member_type":
            member_ptr = MemberPointerType(self.void, self.void)
            self._cache[key] = member_ptr
            member_ptr.owner = self.of_die_attr(die, "DW_AT_containing_type")
            member_ptr.target = self.of_die_attr(die)
            return member_ptr
        if tag == "DW_TAG_pointer_type":
            ptr = PointerType(self.void, int(attr_value(die, "DW_AT_byte_size") or POINTER_SIZE))
            self._cache[key] = ptr
            ptr.target = self.of_die_attr(die)
            return ptr
        if tag in ("DW_TAG_reference_type", "DW_TAG_rvalue_reference_type"):
            ref = ReferenceType(self.void, tag == "DW_TAG_rvalue_reference_type")
            self._cache[key] = ref
            ref.target = self.of_die_attr(die)
            return ref
        if tag in ("DW_TAG_const_type", "DW_TAG_volatile_type", "DW_TAG_restrict_type"):
            q = QualifiedType(self.void)
            self._cache[key] = q
            inner = self.of_die_attr(die)
            if _contains_itself(q, inner):
                inner = self.void
            if isinstance(inner, QualifiedType):  # merge `const volatile`
                q.const, q.volatile, q.restrict = inner.const, inner.volatile, inner.restrict
                inner = inner.target
            q.target = inner
            q.const |= tag == "DW_TAG_const_type"
            q.volatile |= tag == "DW_TAG_volatile_type"
            q.restrict |= tag == "DW_TAG_restrict_type"
            return q
        if tag == "DW_TAG_typedef":
            td = TypedefType(_qualified_name(die, cplus) or "?", self.void)
            self._cache[key] = td
            td.target = self.of_die_attr(die)
            if _contains_itself(td, td.target):
                td.target = self.void
            return td
        if tag in ("DW_TAG_structure_type", "DW_TAG_class_type", "DW_TAG_union_type"):
            return self._struct(die, cplus)
        if tag == "DW_TAG_array_type":
            return self._array(die)
        if tag == "DW_TAG_enumeration_type":
            return self._enum(die, cplus)
        if tag == "DW_TAG_subroutine_type":
            fn = FunctionType(self.void, prototyped=is_prototyped(die))
            self._cache[key] = fn
            fn.return_type = self.of_die_attr(die)
            for child in children(die):
                if child.tag == "DW_TAG_formal_parameter":
                    param = self.of_die_attr(child)
                    if cplus and not fn.params and is_this_param(child, param):
                        param = QualifiedType(param, const=True)  # gdb: `Plain * const this`
                    fn.params.append(param)
                elif child.tag == "DW_TAG_unspecified_parameters":
                    fn.varargs = True
            if cplus:
                fn.prototyped = True
            return fn
        log.debug("unsupported type tag %s at %#x", tag, key)
        t = TypedefType(f"<{tag}>", self.void)
        self._cache[key] = t
        return t

    def _struct(self, die: DIE, cplus: bool) -> Type:
        keyword = {"DW_TAG_structure_type": "struct", "DW_TAG_class_type": "class"}.get(
            str(die.tag), "union"
        )
        st = StructType(
            keyword,
            _qualified_name(die, cplus),
            int(attr_value(die, "DW_AT_byte_size") or 0),
            cplus=cplus,
            declaration=bool(attr_value(die, "DW_AT_declaration")),
            fill=lambda st: self._fill_struct(st, die),
            template_params=lambda: self._template_params(die),
            nested_type=lambda name: self._nested_type(die, name),
            virtual_slots=lambda: _last_virtual_slot(die),
            methods=lambda name: _methods(die, name),
            virtual_method=lambda slot: self._virtual_method(st, die, slot),
            member_functions=lambda: read_member_functions(self, die),
            declarations=lambda: _declarations(self, die),
        )
        if st.declaration and st.tag and self._find_definition is not None:
            st.definition = lambda: self._definition(st)
        self._cache[_key(die)] = st
        return st

    def _definition(self, declared: StructType) -> StructType | None:
        """The struct the image defines under the declaration's name and keyword."""
        assert self._find_definition is not None and declared.tag is not None
        die = self._find_definition(f"{'union' if declared.keyword == 'union' else 'struct'} {declared.tag}")
        if die is None or attr_value(die, "DW_AT_declaration"):
            return None
        found = self.build(die)
        return found if isinstance(found, StructType) else None

    def _virtual_method(self, st: StructType, die: DIE, slot: int) -> str | None:
        """The demangled name of the method in vtable `slot`: this class's, else a base's."""
        linkage = _method_in_slot(die, slot)
        if linkage is not None:
            return self._demangler.demangle(linkage)
        for member in st.members:
            base = strip(member.type)
            if member.is_base and isinstance(base, StructType) and base.virtual_method is not None:
                found = base.virtual_method(slot)
                if found is not None:
                    return found
        return None

    def _template_params(self, die: DIE) -> list[TemplateParam]:
        params = []
        for child in children(die):
            if child.tag == "DW_TAG_template_type_param":
                params.append(TemplateParam(self.of_die_attr(child), name=die_name(child) or ""))
            elif child.tag == "DW_TAG_template_value_param":
                ptype = self.of_die_attr(child)
                const = child.attributes.get("DW_AT_const_value")
                value = constant_of(const, ptype) if const is not None and const.form in _CONSTANT_FORMS else None
                params.append(TemplateParam(ptype, value))
        return params

    def _nested_type(self, die: DIE, name: str) -> Type | None:
        """A type declared inside the struct (`vector<int>::value_type`)."""
        for child in children(die):
            if child.tag in _NESTED_TAGS and die_name(child) == name:
                return self.build(child)
        return None

    def _fill_struct(self, st: StructType, die: DIE) -> None:
        try:
            self._struct_members(st, die)
        except _CORRUPT as exc:
            raise TargetError(f"corrupt DWARF type at {die.offset:#x}: {exc!r}") from exc

    def _struct_members(self, st: StructType, die: DIE) -> None:
        for child in children(die):
            if child.tag == "DW_TAG_variant_part":
                st._variants = self._variant_part(child)
                continue
            if child.tag not in ("DW_TAG_member", "DW_TAG_inheritance", "DW_TAG_variable"):
                continue
            if child.tag == "DW_TAG_variable" or (
                child.tag == "DW_TAG_member" and attr_value(child, "DW_AT_external")
            ):  # a static data member (DWARF 5: a variable): not in the object's bytes
                self._static(st, child)
                continue
            mtype = self.of_die_attr(child)
            member = Member(
                die_name(child) if child.tag == "DW_TAG_member" else None,
                mtype,
                member_offset(child),
                is_base=child.tag == "DW_TAG_inheritance",
                artificial=bool(attr_value(child, "DW_AT_artificial")),
                access=_access(child, die),
            )
            if member.is_base:
                member.name = type_name(mtype)
                if member.offset is None:
                    member.location = member_location(child)
            place_bitfield(child, member, mtype)
            st._members.append(member)

    def _variant_part(self, die: DIE) -> VariantPart:
        discr_offset = attr_value(die, "DW_AT_discr")
        discriminant: Member | None = None
        variants: list[tuple[int | None, Member]] = []
        for child in children(die):
            if child.tag == "DW_TAG_member":
                member = self._member(child)
                if discr_offset is not None and child.offset - die.cu.cu_offset == discr_offset:
                    discriminant = member
                elif discriminant is None and discr_offset is not None:
                    discriminant = member  # gdb-compatible fallback: the only loose member
            elif child.tag == "DW_TAG_variant":
                attr = child.attributes.get("DW_AT_discr_value")
                value = None
                if attr is not None and attr.form in _CONSTANT_FORMS:
                    value = constant_of(attr, discriminant.type if discriminant else None)
                for grandchild in children(child):
                    if grandchild.tag == "DW_TAG_member":
                        variants.append((value, self._member(grandchild)))
        return VariantPart(discriminant, variants)

    def _member(self, die: DIE) -> Member:
        mtype = self.of_die_attr(die)
        member = Member(die_name(die), mtype, member_offset(die))
        place_bitfield(die, member, mtype)
        return member

    def _static(self, st: StructType, die: DIE) -> None:
        name = die_name(die)
        if name is None:
            return
        qualified = _qualified_name(die, True, as_written=True) or name  # as the index spells it
        finder = self._find_static
        const = attr_value(die, "DW_AT_const_value")
        st._statics.append(
            StaticMember(
                name,
                self.of_die_attr(die),
                (lambda: finder(qualified)) if finder is not None else (lambda: None),
                const if isinstance(const, int) else bytes(const) if isinstance(const, (list, bytes)) else None,
                len(st._members),
                _access(die, parent_of(die) or die),
            )
        )

    def _array(self, die: DIE) -> Type:
        counts: list[int | None] = []
        for child in children(die):
            if child.tag in ("DW_TAG_subrange_type", "DW_TAG_enumeration_type"):
                index_type = self.of_die_attr(child) if "DW_AT_type" in child.attributes else None
                counts.append(_subrange_count(child, index_type))
        if not counts:
            counts = [None]
        placeholder = ArrayType(self.void, counts[0])
        self._cache[_key(die)] = placeholder
        element = self.of_die_attr(die)
        for count in reversed(counts[1:]):
            element = ArrayType(element, count)
        if _contains_itself(placeholder, element):
            element = self.void
        placeholder.element = element
        return placeholder

    def _enum(self, die: DIE, cplus: bool) -> Type:
        values: list[tuple[str, int]] = []
        prefix = ""
        if cplus:  # gdb shows C++ enumerators qualified: `geo::Kind::Large`, `geo::Small`
            qualified = _qualified_name(die, cplus) or ""
            scope, _, tag = qualified.rpartition("::")
            prefix = f"{scope}::" if scope else ""
            if attr_value(die, "DW_AT_enum_class"):
                prefix += f"{tag}::"
        underlying = self.of_die_attr(die) if "DW_AT_type" in die.attributes else None
        for child in children(die):
            const = child.attributes.get("DW_AT_const_value")
            if child.tag == "DW_TAG_enumerator" and const is not None:
                value = constant_of(const, underlying)
                values.append((prefix + (die_name(child) or "?"), value))
        signed = (
            is_scalar_signed(underlying)
            if underlying is not None
            else any(v < 0 for _, v in values)
        )
        size = int(attr_value(die, "DW_AT_byte_size") or (underlying.size if underlying else 4))
        en = EnumType(_qualified_name(die, cplus), size, values, signed, cplus,
                      underlying=_underlying_name(underlying), scoped=bool(attr_value(die, "DW_AT_enum_class")))
        self._cache[_key(die)] = en
        return en


def _underlying_name(t: Type | None) -> str | None:
    """gdb's name of an enum's underlying type (check_typedef'd), if it has one."""
    while isinstance(t, TypedefType):
        t = t.target
    return t.name if isinstance(t, BaseType) else None


def _key(die: DIE) -> int:
    """The cache key of a DIE: its offset, made negative in DWARF 4's .debug_types (whose
    offsets repeat .debug_info's)."""
    return ~die.offset if isinstance(die.cu, TypeUnit) else die.offset


def _contains_itself(start: Type, inner: Type) -> bool:
    """Whether `inner` leads back to `start` through typedefs, qualifiers and array
    elements: corrupt DWARF (a type holding itself by value), cut to void by the caller,
    or sizes and formatting would recurse forever."""
    t = inner
    for _ in range(10_000):
        if t is start:
            log.warning("type cycle in the DWARF: cut at %s", type(start).__name__)
            return True
        if isinstance(t, (TypedefType, QualifiedType)):
            t = t.target
        elif isinstance(t, ArrayType):
            t = t.element
        else:
            return False
    return True


def is_cplus(die: DIE) -> bool:
    lang = attr_value(die.cu.get_top_DIE(), "DW_AT_language")
    return lang in CPLUS or lang == RUST


def is_prototyped(die: DIE) -> bool:
    """gdb's prototyped_function_p: DW_AT_prototyped, or a unit in a language whose
    functions always have a prototype (not C's)."""
    if attr_value(die, "DW_AT_prototyped"):
        return True
    return attr_value(die.cu.get_top_DIE(), "DW_AT_language") not in UNPROTOTYPED


def returns_unknown(die: DIE) -> bool:
    """Returning a DW_TAG_unspecified_type (gas's functions): gdb's stub type, `void (void)`
    printed, but a call asks for a cast ("has unknown return type")."""
    return "DW_AT_type" in die.attributes and die.get_DIE_from_attribute("DW_AT_type").tag == "DW_TAG_unspecified_type"


def is_rust(die: DIE) -> bool:
    return bool(attr_value(die.cu.get_top_DIE(), "DW_AT_language") == RUST)


def _declarations(builder: TypeBuilder, die: DIE) -> ClassDeclarations:
    """class_decls.read_declarations: imported when a class's declarations are first read
    (ptype's), not with every type made."""
    from aliceserver.debuggers.symbols.dwarf.class_decls import read_declarations

    return read_declarations(builder, die)


def _last_virtual_slot(die: DIE) -> int:
    """The highest DW_AT_vtable_elem_location (`DW_OP_constu N`) of the class's methods, as
    gdb counts them (a virtual destructor has none); -1 when there is none."""
    last = -1
    for child in children(die):
        attr = child.attributes.get("DW_AT_vtable_elem_location") if child.tag == "DW_TAG_subprogram" else None
        expr = bytes(attr.value) if attr is not None and isinstance(attr.value, (list, bytes)) else b""
        if len(expr) > 1 and expr[0] == 0x10:  # DW_OP_constu
            last = max(last, ByteReader(expr[1:]).uleb())
    return last


def _method_in_slot(die: DIE, slot: int) -> str | None:
    """The linkage name of the class's method at DW_AT_vtable_elem_location `slot`."""
    for child in children(die):
        attr = child.attributes.get("DW_AT_vtable_elem_location") if child.tag == "DW_TAG_subprogram" else None
        expr = bytes(attr.value) if attr is not None and isinstance(attr.value, (list, bytes)) else b""
        if len(expr) > 1 and expr[0] == 0x10 and ByteReader(expr[1:]).uleb() == slot:
            linkage = attr_value(child, "DW_AT_linkage_name") or attr_value(child, "DW_AT_MIPS_linkage_name")
            return linkage.decode(errors="replace") if isinstance(linkage, bytes) else linkage
    return None


def is_this_param(param: DIE, t: Type) -> bool:
    """gdb's test for a method type's `this` (its first parameter, made const): artificial,
    and named `this` or unnamed."""
    return (
        bool(attr_value(param, "DW_AT_artificial"))
        and die_name(param) in (None, "this")
        and not (isinstance(t, QualifiedType) and t.const)
    )


_ACCESS = {1: "public", 2: "protected", 3: "private"}


def _access(die: DIE, parent: DIE) -> str:
    """A member's or base's DW_AT_accessibility, else the default as gdb takes it: DWARF 2
    made members public and bases private; DWARF 3 on, both follow the keyword."""
    found = _ACCESS.get(attr_value(die, "DW_AT_accessibility") or 0)
    if found is not None:
        return found
    if die.cu.header.version < 3:
        return "private" if die.tag == "DW_TAG_inheritance" else "public"
    return "private" if parent.tag == "DW_TAG_class_type" else "public"


def qualified_name(die: DIE) -> str | None:
    """A C++ DIE's name inside its namespaces and classes (`geo::Rect`)."""
    return _qualified_name(die, True)


def _qualified_name(die: DIE, cplus: bool, as_written: bool = False) -> str | None:
    name = die_name(die)
    if name is None or not cplus:
        return name
    # gdb canonicalises each C++ name it reads (`pair<const int, int>` -> `pair<int const, int>`)
    from aliceserver.debuggers.symbols.dwarf.cxxnames import canonical_type_name

    spell = (lambda part: part) if as_written or is_rust(die) else canonical_type_name
    parts = [spell(name)]
    parent = parent_of(die)
    while parent is not None and parent.tag in (
        "DW_TAG_namespace",
        "DW_TAG_structure_type",
        "DW_TAG_class_type",
        "DW_TAG_union_type",
    ):
        parts.append(spell(die_name(parent) or "(anonymous namespace)"))
        parent = parent_of(parent)
    return "::".join(reversed(parts))


def _subrange_count(die: DIE, index_type: Type | None) -> int | None:
    count = die.attributes.get("DW_AT_count")
    if count is not None and count.form in _CONSTANT_FORMS:
        return max(int(count.value), 0)
    upper_attr = die.attributes.get("DW_AT_upper_bound")
    if upper_attr is None or upper_attr.form not in _CONSTANT_FORMS:
        return None  # flexible array member or a run-time (VLA) bound
    lower_attr = die.attributes.get("DW_AT_lower_bound")
    lower = 0 if lower_attr is None else _bound(lower_attr, index_type)
    return max(_bound(upper_attr, index_type) - lower + 1, 0)


def _bound(attr: AttributeValue, index_type: Type | None) -> int:
    """A constant array bound, as gdb reads one: DW_FORM_dataN holds the bits of a value of
    the subrange's index type (signed only when that type is), then taken as a 64-bit
    signed integer (so gcc's all-ones upper bound of `int a[0]` is -1: no elements)."""
    if attr.form not in _CONSTANT_FORMS:
        return 0
    value = constant_of(attr, index_type)
    return value - (1 << 64) if value >= 1 << 63 else value


def constant_of(attr: AttributeValue, typed_as: Type | None) -> int:
    """The integer of a constant-class attribute. DW_FORM_data1/2/4/8 and udata are
    unsigned and sdata and implicit_const signed by their form; a dataN value is
    sign-extended only when `typed_as` (the type the value belongs to: an enum's
    underlying type, a subrange's index type, a discriminant's type) is signed, at that
    type's width (gcc writes 200 in a signed enum as data1 0xc8)."""
    value = int(attr.value)
    if attr.form in _SIGNED_FORMS or typed_as is None or not is_scalar_signed(typed_as):
        return value
    bits = strip(typed_as).size * 8
    if bits <= 0:
        return value
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _methods(die: DIE, name: str) -> list[tuple[str | None, int]]:
    """The struct's member functions called `name` (gdb's overload candidates): linkage
    name (whether it has code is the symbol table's answer) and parameter count."""
    found: list[tuple[str | None, int]] = []
    for child in children(die):
        if child.tag == "DW_TAG_subprogram" and die_name(child) == name:
            linkage = attr_value(child, "DW_AT_linkage_name") or attr_value(child, "DW_AT_MIPS_linkage_name")
            params = sum(1 for p in children(child) if p.tag == "DW_TAG_formal_parameter"
                         and not attr_value(p, "DW_AT_artificial"))  # fmt: skip
            found.append((linkage.decode(errors="replace") if isinstance(linkage, bytes) else linkage, params))
    return found
