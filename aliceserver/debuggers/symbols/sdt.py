"""SystemTap SDT probes (`.note.stapsdt`): the marked places gdb stops at for some
catchpoints (libstdc++'s `libstdcxx:throw`, `catch` and `rethrow`)."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from aliceserver.debuggers.symbols._elfread import read_elf

_NT_STAPSDT = 3
_NOTE = struct.Struct("<III")
_LOCATIONS = struct.Struct("<QQQ")  # pc, the link-time .stapsdt.base, semaphore


@dataclass(frozen=True, slots=True)
class SdtProbe:
    provider: str
    name: str
    address: int  # link-time address of the probe's instruction
    semaphore: int = 0  # link-time address of its enabling counter; 0: none


def read_probes(path: str) -> list[SdtProbe]:
    """The probes of one ELF file; none when it has no such notes or cannot be read."""
    try:
        contents = read_elf(path)
    except Exception:  # noqa: BLE001 - an unreadable file simply has no probes
        return []
    by_name = {section.name: section for section in contents.sections}
    notes = by_name.get(".note.stapsdt")
    if notes is None or not contents.little_endian:
        return []
    base = by_name.get(".stapsdt.base")
    with open(path, "rb") as stream:
        stream.seek(notes.offset)
        data = stream.read(notes.size)
    probes: list[SdtProbe] = []
    pos = 0
    while pos + _NOTE.size <= len(data):
        namesz, descsz, note_type = _NOTE.unpack_from(data, pos)
        name_at = pos + _NOTE.size
        desc_at = name_at + _align4(namesz)
        desc = data[desc_at : desc_at + descsz]
        pos = desc_at + _align4(descsz)
        if note_type != _NT_STAPSDT or data[name_at : name_at + namesz] != b"stapsdt\0":
            continue
        if len(desc) < _LOCATIONS.size:
            break
        pc, note_base, semaphore = _LOCATIONS.unpack_from(desc)
        provider, name = desc[_LOCATIONS.size :].split(b"\0")[:2]
        if base is not None:  # prelink may have moved the image: the note's base says how far
            pc += base.addr - note_base
        probes.append(SdtProbe(provider.decode(errors="replace"), name.decode(errors="replace"), pc, semaphore))
    return probes


def _align4(value: int) -> int:
    return (value + 3) & -4
