"""dwz's supplementary ("alt") file: DWARF that several debug files share.

`dwz -m` moves DIEs and strings that several debug files have alike into one file named by
each one's `.gnu_debugaltlink` (DWARF 5: `.debug_sup`): a path and the alt file's build-id.
Their DIEs then say DW_FORM_GNU_ref_alt / DW_FORM_ref_sup4/8 (an offset into the alt
file's .debug_info) and DW_FORM_GNU_strp_alt / DW_FORM_strp_sup (into its .debug_str).

The alt file's DWARFInfo is pyelftools' `supplementary_dwarfinfo` of the debug file's, with
its .debug_info seen at ALT_BASE and up: its DIE offsets never equal the debug file's, so
every cache keyed by a DIE's offset (types, argument plans, scopes) holds both.
"""

from __future__ import annotations

import io
import logging
import os
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE, AttributeValue
from elftools.dwarf.dwarfinfo import DebugSectionDescriptor, DWARFInfo

from aliceserver.debuggers.symbols.dwarf.abbrevs import entry_positions
from aliceserver.debuggers.symbols.dwarf.rawread import uleb, unit_header, unit_length
from aliceserver.debuggers.symbols.dwarf.sections import DEFAULT_DEBUG_DIRS, ElfSections
from aliceserver.errors import TargetError, Unsupported

log = logging.getLogger(__name__)

ALT_BASE = 1 << 40  # where the alt file's .debug_info is seen: past any real section
_NT_GNU_BUILD_ID = 3
_TAG_PARTIAL_UNIT = 0x3C
_ABBREV_WINDOW = 16 << 10  # bytes of .debug_abbrev read first for one unit's table


@dataclass(frozen=True, slots=True)
class AltLink:
    name: str  # as written: relative to the debug file's directory, or absolute
    build_id: bytes


def alt_link(sections: ElfSections) -> AltLink | None:
    """The supplementary file a debug file names, None when it names none."""
    data = sections.get(".gnu_debugaltlink")
    end = data.find(b"\0")
    if end > 0:
        return AltLink(data[:end].decode("utf-8", "surrogateescape"), bytes(data[end + 1 :]))
    sup = _debug_sup(sections)
    return sup[1] if sup is not None and not sup[0] else None


def _debug_sup(sections: ElfSections) -> tuple[bool, AltLink] | None:
    """DWARF 5's .debug_sup: (is the supplementary file itself, its name and checksum)."""
    sup = sections.get(".debug_sup")  # version(2), is_supplementary(1), name, checksum (uleb length)
    end = sup.find(b"\0", 3)
    if len(sup) < 5 or end < 3 or end + 1 >= len(sup) or sup[end + 1] >= 0x80:
        return None
    size = sup[end + 1]  # a checksum (a build-id) is shorter than 128
    name = sup[3:end].decode("utf-8", "surrogateescape")
    return bool(sup[2]), AltLink(name, bytes(sup[end + 2 : end + 2 + size]))


def shares_units(sections: ElfSections) -> bool:
    """Whether the file's units import others (dwz's partial units, here or in an alt
    file): a unit's DIEs then are not all in its own bytes, and searches that narrow by
    them must look at every unit. dwz writes its partial units first in .debug_info."""
    if alt_link(sections) is not None:
        return True
    try:
        head = sections.read(".debug_info", 0, 64)
        _length, osize, body = unit_length(head, 0)
        header = unit_header(head, body, osize)
        if header is None:
            return False
        _version, _asize, abbrev_offset, pos = header
        code, _ = uleb(head, pos)
        # The first unit's table, most often within its first bytes: libc6-dbg's whole
        # .debug_abbrev inflated (1 MB) was kept for the session for this one look.
        for size in (_ABBREV_WINDOW, None):
            abbrev = sections.read(".debug_abbrev", abbrev_offset, size)
            try:
                found = entry_positions(abbrev, 0).get(code)
            except IndexError:
                if size is None:
                    raise
                continue  # the table runs past the window
            return found is not None and uleb(abbrev, found[0])[0] == _TAG_PARTIAL_UNIT
        return False
    except (IndexError, ValueError, struct.error, TargetError):
        return False  # no units to share


def lend_language(info: DWARFInfo, language: Callable[[], AttributeValue | None]) -> None:
    """Give the partial units of `info` (dwz's: no DW_AT_language) the language `language`
    finds, the debug file's units' (gdb takes the importing unit's): C++ types in them are
    named `ns::T`, C++ printers find them."""
    plain = info._parse_CU_at_offset

    def parse(offset: int) -> CompileUnit:
        cu = plain(offset)
        top_of = cu.get_top_DIE

        def top() -> DIE:
            die = top_of()
            if die.tag == "DW_TAG_partial_unit" and "DW_AT_language" not in die.attributes:
                found = language()
                if found is not None:
                    die.attributes["DW_AT_language"] = found
            return die

        cu.get_top_DIE = top  # type: ignore[method-assign]
        return cu

    info._parse_CU_at_offset = parse  # type: ignore[method-assign]


def first_language(info: DWARFInfo) -> Callable[[], AttributeValue | None]:
    """The DW_AT_language of the first compile unit of `info` that has one, found once."""
    found: list[AttributeValue | None] = []

    def language() -> AttributeValue | None:
        if not found:
            found.append(None)  # asked again while looking (a partial unit's top): none
            for cu in info.iter_CUs():
                attr = cu.get_top_DIE().attributes.get("DW_AT_language")
                if attr is not None:
                    found[0] = attr
                    break
        return found[0]

    return language


def missing_message(debug_path: str) -> str:
    """gdb 13's words when it finds no alt file (dwarf2/read.c, dwz_file): it then reads no
    DWARF of that file at all."""
    return f"could not find '.gnu_debugaltlink' file for {debug_path}"


def build_id_of(sections: ElfSections) -> bytes | None:
    """The NT_GNU_BUILD_ID of the file, from its note section."""
    data = sections.get(".note.gnu.build-id")
    pos = 0
    while pos + 12 <= len(data):
        namesz, descsz, kind = struct.unpack_from("<III", data, pos)
        name_end = pos + 12 + (namesz + 3) // 4 * 4
        if kind == _NT_GNU_BUILD_ID and data[pos + 12 : pos + 12 + namesz] == b"GNU\0":
            return bytes(data[name_end : name_end + descsz])
        pos = name_end + (descsz + 3) // 4 * 4
    return None


def find_alt_file(debug_path: str, link: AltLink,
                  debug_dirs: Iterable[str] = DEFAULT_DEBUG_DIRS) -> ElfSections | None:  # fmt: skip
    """The alt file `link` names, looked for as gdb does: its name (relative to the real
    directory of the debug file), then DIR/.build-id/xx/rest.debug; its build-id must be
    `link`'s. None when none is found."""
    dirs = list(debug_dirs)
    name = link.name
    if not os.path.isabs(name):
        name = os.path.join(os.path.dirname(os.path.realpath(debug_path)), name)
    candidates = [name]
    hexid = link.build_id.hex()
    if len(hexid) > 2:
        candidates += [os.path.join(d, ".build-id", hexid[:2], hexid[2:] + ".debug") for d in dirs]
    # then its `.dwz/...` part under each debug directory (a distribution's path, from
    # another root), as gdb's dwz_search_other_debugdirs
    at = name.find("/.dwz/")
    if at >= 0:
        candidates += [os.path.join(d, name[at + 1 :]) for d in dirs
                       if d and not name.startswith(d.rstrip("/") + "/")]  # fmt: skip
    for path in candidates:
        if not os.path.isfile(path):
            continue
        try:
            found = ElfSections(path)
            sup = _debug_sup(found)  # DWARF 5's supplementary file has its checksum there
            own = sup[1].build_id if sup is not None and sup[0] else build_id_of(found)
            if own == link.build_id and found.has(".debug_info"):
                return found
            log.info("ignoring alt file %s: its build-id is not %s", path, hexid)
        except (OSError, TargetError, Unsupported) as exc:
            log.info("ignoring alt file %s: %s", path, exc)
    return None


def open_alt(sections: ElfSections) -> ElfSections | None:
    """The alt file `sections`' file names, if it names one and it is found."""
    link = alt_link(sections)
    return None if link is None else find_alt_file(sections.path, link)


class MissingAltFile(TargetError):
    """The alt file a debug file names is not found: gdb then reads none of its DWARF."""


def check_alt_file(sections: ElfSections) -> None:
    """MissingAltFile, in gdb's words, when the file names an alt file not found."""
    link = alt_link(sections)
    if link is not None and find_alt_file(sections.path, link) is None:
        raise MissingAltFile(missing_message(sections.path))


class _Shifted(io.RawIOBase):
    """A section stream seen at ALT_BASE and up."""

    def __init__(self, stream: IO[bytes]) -> None:
        super().__init__()
        self._stream = stream

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def read(self, size: int = -1, /) -> bytes:
        return self._stream.read(size)

    def readinto(self, buffer: Any) -> int:
        data = self._stream.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        if whence == io.SEEK_SET:
            return self._stream.seek(max(offset - ALT_BASE, 0)) + ALT_BASE
        return self._stream.seek(offset, whence) + ALT_BASE

    def tell(self) -> int:
        return self._stream.tell() + ALT_BASE


def shift_info(info: DWARFInfo) -> None:
    """Make `info` (an alt file's) see its .debug_info at ALT_BASE and up."""
    sec = info.debug_info_sec
    assert sec is not None
    info.debug_info_sec = DebugSectionDescriptor(_Shifted(sec.stream), sec.name, sec.global_offset,  # type: ignore[arg-type]
                                                 sec.size + ALT_BASE, sec.address)  # fmt: skip
    plain_die = info.get_DIE_from_refaddr
    plain_units = info._parse_CUs_iter

    def get_die(refaddr: int, cu: CompileUnit | None = None) -> DIE:
        # a GNU_ref_alt / ref_sup / the alt file's own ref_addr: relative to its section
        return plain_die(refaddr + ALT_BASE if refaddr < ALT_BASE else refaddr, cu)

    def units(offset: int = 0) -> Iterator[CompileUnit]:
        return plain_units(max(offset, ALT_BASE))

    info.get_DIE_from_refaddr = get_die  # type: ignore[method-assign]
    info._parse_CUs_iter = units  # type: ignore[method-assign]


def route_units(info: DWARFInfo, alt: DWARFInfo) -> None:
    """Make `info.get_CU_at` answer the alt file's units (at ALT_BASE and up) too: the
    name indexes list them beside the debug file's."""
    plain = info.get_CU_at

    def unit_at(offset: int) -> CompileUnit:
        return alt.get_CU_at(offset) if offset >= ALT_BASE else plain(offset)

    info.get_CU_at = unit_at  # type: ignore[method-assign]
    own_units = info.iter_CUs

    def every_unit() -> Iterator[CompileUnit]:  # `info types`' partial units, as gdb's
        yield from own_units()
        yield from alt.iter_CUs()

    info.iter_CUs = every_unit  # type: ignore[method-assign]
