"""A type's DIE found through the type-name index (typenames.py), ready for TypeBuilder.

The index says where the DIE is and in which scopes; only those DIEs are parsed, and each
gets its parent set, so the builder's qualified name (`std::vector<int>::value_type`)
needs no walk down from the unit's top.
"""

from __future__ import annotations

import logging

from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE
from elftools.dwarf.typeunit import TypeUnit

from aliceserver.debuggers.symbols.dwarf.dies import _CORRUPT, DwarfUnits
from aliceserver.debuggers.symbols.dwarf.typenames import (
    IN_DEBUG_TYPES,
    TAG_BASE,
    TAG_CLASS,
    TAG_ENUM,
    TAG_STRUCT,
    TAG_TYPEDEF,
    TAG_UNION,
    TypeEntry,
    TypeNameIndex,
)
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

# `struct X`, `class X`, `union X`, `enum X`, or a bare name: the tags each may name. In C
# a tag is not an ordinary identifier (gdb's STRUCT_DOMAIN): a bare name there names only a
# typedef or a base type ("ordinary").
KEYWORD_TAGS = {
    "struct": frozenset((TAG_STRUCT, TAG_CLASS)),
    "class": frozenset((TAG_CLASS, TAG_STRUCT)),
    "union": frozenset((TAG_UNION,)),
    "enum": frozenset((TAG_ENUM,)),
    "": frozenset((TAG_STRUCT, TAG_CLASS, TAG_UNION, TAG_ENUM, TAG_TYPEDEF, TAG_BASE)),
    "ordinary": frozenset((TAG_TYPEDEF, TAG_BASE)),
}


class IndexedTypes:
    """Finds types of one image by name through its index; DIEs come from `units`."""

    def __init__(self, units: DwarfUnits, index: TypeNameIndex) -> None:
        self.units = units
        self.index = index
        self._type_units: dict[int, TypeUnit] | None = None  # DWARF 4 .debug_types by offset

    def find(self, name: str, keyword: str = "", cu: CompileUnit | None = None
             ) -> tuple[bool, DIE | None]:  # fmt: skip
        """(known, DIE) of the type `name`: a definition, `cu`'s own first. Not known:
        no index, or its DIE unreadable (the caller looks the slow way)."""
        entries = self.index.lookup(name)
        if entries is None:
            return False, None
        tags = KEYWORD_TAGS[keyword]
        entries = [e for e in entries if e.tag in tags]
        if not entries:
            return True, None
        defined = [e for e in entries if not e.declaration] or entries
        here = cu.cu_offset if cu is not None else None
        best = next((e for e in defined if e.unit == here), defined[0])
        try:
            return True, self.die_of(best)
        except (*_CORRUPT, TargetError) as exc:
            log.debug("type %s at %#x unreadable: %s", name, best.offset, exc)
            return False, None

    def by_signature(self, signature: int) -> DIE | None:
        """The type DIE of the type unit with `signature` (DW_FORM_ref_sig8)."""
        entry = self.index.by_signature(signature)
        return None if entry is None else self.die_of(entry)

    def die_of(self, entry: TypeEntry) -> DIE:
        unit = self._unit(entry)
        die = unit.get_DIE_from_refaddr(entry.offset)
        parents = self.index.names().parents
        child, scope = die, entry.scope
        for _ in range(64):  # set the parent chain up to the unit's top DIE
            if child._parent is not None:
                break
            if scope not in parents:
                child.set_parent(unit.get_top_DIE())
                break
            parent = unit.get_DIE_from_refaddr(scope)
            child.set_parent(parent)
            child, scope = parent, parents[scope]
        return die

    def _unit(self, entry: TypeEntry) -> CompileUnit | TypeUnit:
        if not entry.flags & IN_DEBUG_TYPES:
            return self.units.cu_at_offset(entry.unit)
        if self._type_units is None:
            info = self.units.info
            self._type_units = {} if info is None else {tu.cu_offset: tu for tu in info.iter_TUs()}
        return self._type_units[entry.unit]
