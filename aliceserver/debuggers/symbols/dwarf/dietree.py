"""Walking a unit's DIE tree so that corrupt DWARF cannot make the walk loop forever.

pyelftools' `DIE.iter_children()` jumps to wherever a DW_AT_sibling link points, and
`DIE.get_parent()` searches with it: a link pointing back (or at its own DIE) makes them
loop for ever. Here a link is followed only forward inside the unit; otherwise the child's
subtree is read entry by entry. Every step moves forward, so a walk ends at the latest at
the end of the unit.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

from elftools.dwarf.die import DIE

log = logging.getLogger(__name__)

_IMPORT_DEPTH = 8  # partial units importing partial units: deeper is a loop (corrupt)
_UNIT_REFS = frozenset(
    ("DW_FORM_ref1", "DW_FORM_ref2", "DW_FORM_ref4", "DW_FORM_ref8", "DW_FORM_ref_udata")
)


def children(die: DIE, depth: int = 0, *, imports: bool = True) -> Iterator[DIE]:
    """The DIEs directly under `die`, in order (what `die.iter_children()` yields on sound
    DWARF), with those of the units its DW_TAG_imported_unit children import in their
    place (`depth`: imports followed so far; none without `imports`)."""
    if not imports:
        depth = _IMPORT_DEPTH
    if not die.has_children:
        return
    cu = die.cu
    end = cu.cu_offset + cu.size
    offset = die.offset + die.size
    while offset < end:
        child = cu.get_DIE_from_refaddr(offset)
        if child.is_null():
            die._terminator = child  # as pyelftools records it: a later walk skips the subtree
            return
        child.set_parent(die)
        if child.tag == "DW_TAG_imported_unit":  # dwz: a partial unit's DIEs count as ours
            yield from _imported(child, depth)
        else:
            yield child
        offset = _past(child, end)


def _imported(die: DIE, depth: int) -> Iterator[DIE]:
    """The top-level DIEs of the partial unit `die` imports (in this file or, through
    DW_FORM_GNU_ref_alt, in the alt file: altfile.py); none when it cannot be read."""
    if depth >= _IMPORT_DEPTH:
        return
    try:
        unit = die.get_DIE_from_attribute("DW_AT_import")
    except Exception as exc:  # no alt file, a broken reference: pyelftools raises anything
        log.debug("unit imported at %#x unreadable: %s", die.offset, exc)
        return
    yield from children(unit, depth + 1)


def parent_of(die: DIE) -> DIE | None:
    """`die.get_parent()`: None for the unit's top DIE (or a DIE the tree does not hold)."""
    if die._parent is not None:
        return die._parent
    search = die.cu.get_top_DIE()
    while search.offset < die.offset:
        closest = None
        for child in children(search, imports=False):  # this unit's own DIEs
            if child.offset > die.offset:
                break
            if child.offset == die.offset:
                return search
            closest = child
        if closest is None:
            return None
        search = closest
    return None


def _past(die: DIE, end: int) -> int:
    """The offset after `die` and every DIE under it (at most `end`)."""
    unclosed: list[DIE] = []  # DIEs whose children are being read, innermost last
    while True:
        offset = die.offset + die.size
        if die.has_children:
            skip = _subtree_end(die)
            if skip is not None and offset <= skip <= end:
                offset = skip
            else:
                unclosed.append(die)
        while unclosed:
            if offset >= end:
                return end
            entry = die.cu.get_DIE_from_refaddr(offset)
            if not entry.is_null():
                die = entry
                break
            unclosed.pop()._terminator = entry  # remembered, as pyelftools does
            offset += entry.size
        else:
            return offset


def _subtree_end(die: DIE) -> int | None:
    """Where `die`'s subtree ends according to its sibling link or an earlier walk."""
    if die._terminator is not None:
        return die._terminator.offset + die._terminator.size
    link = die.attributes.get("DW_AT_sibling")
    if link is None:
        return None
    if link.form == "DW_FORM_ref_addr":
        return int(link.value)
    return int(link.value) + die.cu.cu_offset if link.form in _UNIT_REFS else None
