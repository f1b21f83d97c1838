"""Synthetic `name@plt` symbols for x86-64 PLT stubs, named like objdump and gdb do.

Each stub jumps through a GOT slot (`jmp *disp(%rip)`, `ff 25 disp32`, maybe after
`endbr64` / `bnd`); the relocation of that slot names the function. Matching slots instead
of counting entries works for lazy `.plt`, IBT `.plt.sec` and `-z now` `.plt.got` alike.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

from aliceserver.debuggers.symbols._elfread import Section
from aliceserver.debuggers.symbols.symtab import Entry, symbol_name

R_X86_64_GLOB_DAT = 6
R_X86_64_JUMP_SLOT = 7
RELA_SIZE = 24

_PLT_SECTIONS = {".plt": 16, ".plt.sec": 16, ".plt.got": 8}  # name -> default entry size
_JMP_RIP = b"\xff\x25"


def plt_symbols(sections: Sequence[Section], raw: Mapping[int, bytes]) -> list[Entry]:
    """The `name@plt` entries of an x86-64 little-endian image (empty when it has no PLT)."""
    slots = _got_slot_names(sections, raw)
    if not slots:
        return []
    entries: list[Entry] = []
    for sec in sections:
        default_size = _PLT_SECTIONS.get(sec.name)
        data = raw.get(sec.index)
        if default_size is None or data is None:
            continue
        step = sec.entsize if sec.entsize in (8, 16) else default_size
        for start in range(0, len(data) - step + 1, step):
            stub = data[start : start + step]
            at = stub.find(_JMP_RIP)
            if at < 0 or at + 6 > len(stub):
                continue
            (disp,) = struct.unpack_from("<i", stub, at + 2)
            address = sec.addr + start
            name = slots.get(address + at + 6 + disp)
            if name:
                entries.append((address, step, f"{name}@plt", "func", "local", sec.index, False))
    return entries


def _got_slot_names(sections: Sequence[Section], raw: Mapping[int, bytes]) -> dict[int, str]:
    """GOT slot address -> symbol name, from JUMP_SLOT and GLOB_DAT relocations."""
    slots: dict[int, str] = {}
    for sec in sections:
        if sec.name not in (".rela.plt", ".rela.dyn") or sec.index not in raw:
            continue
        if not 0 < sec.link < len(sections):
            continue
        symtab = raw.get(sec.link)
        strtab_index = sections[sec.link].link
        strtab = raw.get(strtab_index) if 0 < strtab_index < len(sections) else None
        if symtab is None or strtab is None:
            continue
        data = raw[sec.index]
        usable = len(data) - len(data) % RELA_SIZE
        for r_offset, r_info, _addend in struct.iter_unpack("<QQq", memoryview(data)[:usable]):
            if r_info & 0xFFFFFFFF not in (R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT):
                continue
            name = symbol_name(symtab, strtab, r_info >> 32)
            if name:
                slots.setdefault(r_offset, name)
    return slots
