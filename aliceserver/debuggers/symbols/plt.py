"""Synthetic `name@plt` symbols for x86-64 PLT stubs, named like objdump and gdb do.

Each stub jumps through a GOT slot (`jmp *disp(%rip)`, `ff 25 disp32`, maybe after
`endbr64` / `bnd`); the relocation of that slot names the function. Matching slots instead
of counting entries works for lazy `.plt`, IBT `.plt.sec` and `-z now` `.plt.got` alike.
"""

from __future__ import annotations

import struct
import sys
from array import array
from collections.abc import Mapping, Sequence

from aliceserver.debuggers.symbols.elfheaders import Section
from aliceserver.debuggers.symbols.symtab import Entry, symbol_name

R_X86_64_GLOB_DAT = 6
R_X86_64_JUMP_SLOT = 7
R_X86_64_IRELATIVE = 37  # an ifunc called inside its own library: no symbol, named by address
RELA_SIZE = 24
_SHT_DYNSYM = 11

_PLT_SECTIONS = {".plt": 16, ".plt.sec": 16, ".plt.got": 8}  # name -> default entry size
_JMP_RIP = b"\xff\x25"
_SEARCHED = 32  # up to this many slots, searching the offsets beats indexing them


def plt_symbols(sections: Sequence[Section], raw: Mapping[int, bytes]) -> list[Entry]:
    """The `name@plt` entries of an x86-64 little-endian image (empty when it has no PLT)."""
    stubs = _stubs(sections, raw)
    if not stubs:
        return []
    names = _slot_names(sections, raw, {slot for _sec, _address, _size, slot in stubs})
    entries: list[Entry] = []
    for section, address, size, slot in stubs:
        name = names.get(slot)
        if name:
            entries.append((address, size, f"{name}@plt", "func", "local", section, False))
    return entries


def got_plt_symbols(sections: Sequence[Section], raw: Mapping[int, bytes]) -> list[Entry]:
    """gdb's `name@got.plt` data symbols (elf_rel_plt_read_minimal_symbols): the GOT slot of
    each .rela.plt relocation, in .got.plt (else .got) or .plt, named by its symbol (an
    ifunc's IRELATIVE slot, which has none, `*ABS*` as BFD names it)."""
    by_name = {sec.name: sec for sec in sections}
    rela, plt = by_name.get(".rela.plt"), by_name.get(".plt")
    got = by_name.get(".got.plt") or by_name.get(".got")
    if rela is None or got is None or rela.index not in raw or not 0 < rela.link < len(sections):
        return []
    if sections[rela.link].type != _SHT_DYNSYM:
        return []  # a static program's ifunc slots: gdb names them from its dynamic symbols only
    symtab, strtab_index = raw.get(rela.link), sections[rela.link].link
    strtab = raw.get(strtab_index) if 0 < strtab_index < len(sections) else None
    data = raw[rela.index]
    entries: list[Entry] = []
    for offset, info, _addend in struct.iter_unpack("<QQq", data[: len(data) - len(data) % RELA_SIZE]):
        home = next((sec for sec in (got, plt) if sec is not None and sec.addr <= offset < sec.addr + sec.size), None)
        if home is None:
            continue
        name = symbol_name(symtab, strtab, info >> 32) if symtab is not None and strtab is not None else ""
        entries.append((offset, 8, f"{name or '*ABS*'}@got.plt", "object", "local", home.index, False))
    return entries


def _stubs(
    sections: Sequence[Section], raw: Mapping[int, bytes]
) -> list[tuple[int, int, int, int]]:
    """(section index, address, size, GOT slot) of every stub with a `jmp *slot(%rip)`."""
    stubs = []
    for sec in sections:
        default_size = _PLT_SECTIONS.get(sec.name)
        data = raw.get(sec.index)
        if default_size is None or data is None:
            continue
        step = sec.entsize if sec.entsize in (8, 16) else default_size
        for start in range(0, len(data) - step + 1, step):
            at = data.find(_JMP_RIP, start, start + step)
            if at < 0 or at + 6 > start + step:
                continue  # the lazy-binding resolver stub, or an IBT `.plt` entry
            (disp,) = struct.unpack_from("<i", data, at + 2)
            stubs.append((sec.index, sec.addr + start, step, sec.addr + at + 6 + disp))
    return stubs


def _slot_names(
    sections: Sequence[Section], raw: Mapping[int, bytes], slots: set[int]
) -> dict[int, str]:
    """GOT slot address -> symbol name, from the JUMP_SLOT / GLOB_DAT relocations of `slots`."""
    names: dict[int, str] = {}
    # .rela.plt first: it names the stubs of .plt / .plt.sec, so .rela.dyn (tens of
    # thousands of relocations in a big program) is searched only for .plt.got's few
    # slots. A GOT slot has one relocation, so the order changes no name.
    rela = sorted((s for s in sections if s.name in (".rela.plt", ".rela.dyn")),
                  key=lambda s: s.name != ".rela.plt")  # fmt: skip
    for sec in rela:
        wanted = [slot for slot in slots if slot not in names]
        if not wanted or sec.index not in raw:
            continue
        if not 0 < sec.link < len(sections):
            continue
        symtab = raw.get(sec.link)
        strtab_index = sections[sec.link].link
        strtab = raw.get(strtab_index) if 0 < strtab_index < len(sections) else None
        if symtab is None or strtab is None:
            continue
        data = raw[sec.index]
        table = array("Q", data[: len(data) - len(data) % RELA_SIZE])
        if sys.byteorder != "little":
            table.byteswap()
        for slot, i in _positions(table, wanted).items():
            info = table[3 * i + 1]
            kind = info & 0xFFFFFFFF
            if kind in (R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT):
                name = symbol_name(symtab, strtab, info >> 32)
                if name:
                    names[slot] = name
            elif kind == R_X86_64_IRELATIVE:
                names[slot] = f"*ABS*+{table[3 * i + 2]:#x}"  # the resolver, like objdump
    return names


def _positions(table: array[int], slots: list[int]) -> dict[int, int]:
    """slot -> index of the relocation at that offset (r_offset), for the slots that have
    one: a few found by a byte search, many through an index of every offset."""
    if len(slots) > _SEARCHED:
        position = dict(zip(table[0::3], range(len(table) // 3), strict=True))
        return {slot: position[slot] for slot in slots if slot in position}
    column = table[0::3].tobytes()
    found = {}
    for slot in slots:
        needle = slot.to_bytes(8, sys.byteorder)
        at = column.find(needle)
        while at >= 0 and at % 8:  # across two offsets: look further
            at = column.find(needle, at + 1)
        if at >= 0:
            found[slot] = at // 8
    return found
