"""The call sites under a function, read from raw DWARF bytes.

callsites indexes a caller's call sites by return pc to find the one a frame returns to
(entry values, tail-call chains). Through pyelftools that parses every DIE under the
function: about a thousand in the CPython function calling PyList_Append, most of the
first stop's argument time. call_sites_under finds the same call sites by the same rules
(through lexical blocks and inlined calls, not inside a call site) from the unit's bytes,
reading only their return pcs and tail-call flags and jumping over everything else (by DW_AT_sibling, or by
abbreviation sizes); pyelftools then parses just the call site asked for. Where it meets
what it does not read (a return pc in another form than an address, an address index
without the unit's table) it answers None and the caller walks the DIEs as before.
"""

from __future__ import annotations

from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevCache, AbbrevTable
from aliceserver.debuggers.symbols.dwarf.coderanges import Unreadable, _Walk, open_unit
from aliceserver.debuggers.symbols.dwarf.rawread import uleb

_SITES = frozenset(ENUM_DW_TAG[name] for name in ("DW_TAG_call_site", "DW_TAG_GNU_call_site"))
_NESTS = frozenset(ENUM_DW_TAG[name] for name in ("DW_TAG_lexical_block", "DW_TAG_inlined_subroutine"))
_AT_SIBLING, _AT_RETURN_PC, _AT_LOW_PC, _AT_TAIL_CALL, _AT_GNU_TAIL_CALL = (
    ENUM_DW_AT["DW_AT_" + name] for name in ("sibling", "call_return_pc", "low_pc", "call_tail_call", "GNU_tail_call"))
_SIBLING = frozenset({_AT_SIBLING})
_SITE = frozenset({_AT_SIBLING, _AT_RETURN_PC, _AT_LOW_PC, _AT_TAIL_CALL, _AT_GNU_TAIL_CALL})
_ADDRESS_FORMS = frozenset({forms.ADDR, *forms.ADDRX_FORMS})

# A call site found: (its return pc, None when it names none; its DIE's section offset;
# whether it is a tail call: DW_AT_call_tail_call or DW_AT_GNU_tail_call set).
Site = tuple[int | None, int, bool]


def call_sites_under(unit: bytes, cu_offset: int, abbrevs: AbbrevCache, addr: bytes,
                     start: int) -> list[Site] | None:  # fmt: skip
    """The call sites under the DIE at unit-relative `start` of the unit whose bytes are
    `unit` (at `cu_offset` in .debug_info), in callsites.sites_under's order; `addr` is
    .debug_addr. None where this cannot tell."""
    opened = open_unit(unit, cu_offset, abbrevs, addr)
    if opened is None:
        return None
    walk, table, _children = opened
    code, pos = uleb(unit, start)
    entry = table[code] if code else None
    if entry is None:
        return None
    if not entry.children:
        return []
    _values, pos = walk.attributes(entry, pos, frozenset())
    try:
        return _sites(walk, table, pos)
    except Unreadable:
        return None


def _sites(walk: _Walk, table: AbbrevTable, pos: int) -> list[Site]:
    """The call sites among the children starting at `pos`, and under those that are
    lexical blocks or inlined calls, depth first."""
    data = walk.data
    found: list[Site] = []
    depth = 1  # open levels whose children are looked at
    while depth:
        if pos >= len(data):
            raise Unreadable
        start = pos
        code, pos = uleb(data, pos)
        if code == 0:
            depth -= 1
            continue
        entry = table[code]
        if entry.tag in _SITES:
            values, pos = walk.attributes(entry, pos, _SITE)
            found.append((_return_pc(walk, values), walk.cu_offset + start, _tail_call(values)))
            if entry.children:
                pos = walk.past_children(table, values, start, pos)
        elif entry.tag in _NESTS:
            if entry.fixed >= 0:  # (an inlined call's attributes are mostly of fixed sizes)
                pos += entry.fixed
            else:
                _values, pos = walk.attributes(entry, pos, frozenset())
            if entry.children:
                depth += 1
        elif not entry.children and entry.fixed >= 0:
            pos += entry.fixed
        else:
            values, pos = walk.attributes(entry, pos, _SIBLING)
            if entry.children:
                pos = walk.past_children(table, values, start, pos)
    return found


def _tail_call(values: dict[int, tuple[int, int]]) -> bool:
    """DW_AT_call_tail_call (or GNU's) set: present (DW_FORM_flag_present) or nonzero."""
    for attr in (_AT_TAIL_CALL, _AT_GNU_TAIL_CALL):
        found = values.get(attr)
        if found is not None and (found[0] == forms.FLAG_PRESENT or found[1] > 0):
            return True
    return False


def _return_pc(walk: _Walk, values: dict[int, tuple[int, int]]) -> int | None:
    """DW_AT_call_return_pc, else DW_AT_low_pc (DW_TAG_GNU_call_site), as callsites.return_pc."""
    for attr in (_AT_RETURN_PC, _AT_LOW_PC):
        found = values.get(attr)
        if found is None:
            continue
        form, value = found
        address = walk._address(form, value) if form in _ADDRESS_FORMS and value >= 0 else None
        if address is None:
            raise Unreadable
        return address
    return None
