"""Functions the DWARF defines with code that the ELF symbol table does not name.

`break NAME` finds a library's functions in its name index, built from the library's
own ELF symbol table: a stripped one's .dynsym. Its static functions
(`__pthread_kill_implementation`, `__libc_start_call_main`) are named by its separate
debug file (Debian's libc6-dbg) alone, in its DWARF (and .symtab), where gdb 13's full
symbols find them. So when the index names no function
NAME, the units that may define NAME (the byte search and definers.py, as for inlined
copies) are walked for a subprogram so named with code of its own (a name of its own, or
one reached by DW_AT_abstract_origin / DW_AT_specification): its line table places the
breakpoint as gdb's. The answer per name is kept in the index's on-disk cache, as the
inlined copies are: a second session reads no DWARF.
Addresses are link-time.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf import names
from aliceserver.debuggers.symbols.dwarf.inlines import (
    InlineFinder,
    units_defining_leaf,
    units_mentioning,
)

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.index import DebugInfo

log = logging.getLogger(__name__)

Definition = tuple[str, int, int]  # (name as gdb shows it, entry, end of its entry range)


def defined_functions(
    info: DebugInfo, finder: Callable[[], InlineFinder | None], query: str
) -> list[Definition]:
    """Out-of-line definitions of `query` in `info`'s DWARF, sorted by address; `finder`
    is asked for (and the DWARF opened) only when the cache has no answer and some unit
    may define the name."""
    key, _params = names.normalize_query(query)
    if not key or "@" in key:  # `printf@plt` (rbreak's thousands): a symbol's, never DWARF's
        return []
    remembered = info.remembered("defined", key)
    if isinstance(remembered, list):
        try:
            return [(str(n), int(lo), int(hi)) for n, lo, hi in remembered]
        except (TypeError, ValueError):
            pass  # another shape: compute it again
    found = _search(info, finder, key)
    # Written with the inlined copies' answer, which `break` computes next (inline_sites):
    # one write for the pair (a second one within _EXTRAS_EVERY would be dropped).
    known = info.remembered("inline", key) is not None
    info.remember("defined", key, [list(entry) for entry in found], write=known)
    return found


def _search(info: DebugInfo, finder: Callable[[], InlineFinder | None], key: str) -> list[Definition]:
    comps = names.split_qualified(key)
    leaf = names.strip_templates(comps[-1]) if comps else key
    candidates = units_mentioning(info.sections, info.unit_offsets, leaf)
    if not candidates:  # None: too common a string to narrow; no walk of every unit
        return []
    defining = units_defining_leaf(info.sections, candidates, leaf)
    defining = candidates if defining is None else defining
    made = finder() if defining else None
    if made is None:
        return []
    found: dict[int, Definition] = {}
    for offset in defining:
        try:
            found.update(_in_unit(made, offset, key))
        except Exception as exc:  # noqa: BLE001 - pyelftools on odd DWARF: none found
            log.debug("definitions of %s in unit %#x: %s", key, offset, exc)
    return sorted(found.values(), key=lambda entry: entry[1])


def _in_unit(finder: InlineFinder, offset: int, key: str) -> dict[int, Definition]:
    units = finder.units
    out: dict[int, Definition] = {}
    for qualified, dies in units.top_level_names(units.cu_at_offset(offset)).items():
        if key not in qualified or key not in names.lookup_keys(qualified, qualified):
            continue
        for die in dies:
            if die.tag != "DW_TAG_subprogram" or "DW_AT_declaration" in die.attributes:
                continue
            entry = entry_range([r for r in units.die_ranges(die) if r[0] < r[1]])
            if entry is not None:
                out[entry[0]] = (qualified, *entry)
    return out


def entry_range(ranges: Sequence[tuple[int, int]]) -> tuple[int, int] | None:
    """The range a function is entered by, from its ranges in DWARF's order: gdb 13's
    BLOCK_ENTRY_PC is the first one's start (a function gcc split into its hot part and a
    `.cold` one is entered at the hot part, listed first), and the prologue is read to
    that range's end (find_pc_partial_function: the range holding the pc). None: none."""
    return ranges[0] if ranges else None

