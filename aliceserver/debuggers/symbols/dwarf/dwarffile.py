"""pyelftools' DWARFInfo over sections.py's reader, each section read where it is looked at.

ELFFile.get_dwarf_info parses every section header with construct and copies every DWARF
section into memory first: 20-30 ms and 17 MB for CPython, to then parse a few DIEs of one
unit. Here the headers come from sections.py and each section is read on first use: a big
one in blocks as pyelftools moves through it (C-speed buffered reads of a few bytes
each; inflated only that far when compressed), the others whole.
"""

from __future__ import annotations

import io
import os
import weakref
from collections.abc import Callable
from typing import IO, Any, cast

from elftools.common.exceptions import DWARFError
from elftools.common.utils import dwarf_assert
from elftools.dwarf.abbrevtable import AbbrevDecl, AbbrevTable
from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.dwarfinfo import DebugSectionDescriptor, DwarfConfig, DWARFInfo
from elftools.dwarf.enums import ENUM_DW_AT, ENUM_DW_FORM, ENUM_DW_TAG

from aliceserver.debuggers.symbols.dwarf import lazystructs, rawdie
from aliceserver.debuggers.symbols.dwarf.abbrevs import entry_positions, read_entry
from aliceserver.debuggers.symbols.dwarf.altfile import (
    alt_link,
    find_alt_file,
    first_language,
    lend_language,
    route_units,
    shares_units,
    shift_info,
)
from aliceserver.debuggers.symbols.dwarf.forms import IMPLICIT_CONST
from aliceserver.debuggers.symbols.dwarf.rawdie import Shape, Step
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.elfheaders import SHF_COMPRESSED, SHT_NOBITS

# An uncompressed section up to _WHOLE bytes is read whole: .debug_str is read at random
# places. A bigger one (.debug_info) is read _BLOCK bytes at a time where pyelftools looks.
_WHOLE = 4 << 20
_BLOCK = 16 * 1024
# A compressed section inflated up to _WHOLE_INFLATED bytes is inflated whole on first use;
# a bigger one (libc6-dbg's .debug_info) only as far as pyelftools reads it.
_WHOLE_INFLATED = 1 << 20
MACHINES = {"EM_X86_64": "x64", "EM_AARCH64": "AArch64"}  # pyelftools' names
rawdie.install()  # the DIEs of these units read by rawdie.py's plans
# DWARFInfo keyword -> section name
_SECTIONS = {
    "debug_info_sec": ".debug_info", "debug_aranges_sec": ".debug_aranges",
    "debug_abbrev_sec": ".debug_abbrev", "debug_frame_sec": ".debug_frame",
    "eh_frame_sec": ".eh_frame", "debug_str_sec": ".debug_str", "debug_loc_sec": ".debug_loc",
    "debug_ranges_sec": ".debug_ranges", "debug_line_sec": ".debug_line",
    "debug_pubtypes_sec": ".debug_pubtypes", "debug_pubnames_sec": ".debug_pubnames",
    "debug_addr_sec": ".debug_addr", "debug_str_offsets_sec": ".debug_str_offsets",
    "debug_line_str_sec": ".debug_line_str", "debug_loclists_sec": ".debug_loclists",
    "debug_rnglists_sec": ".debug_rnglists", "debug_sup_sec": ".debug_sup",
    "gnu_debugaltlink_sec": ".gnu_debugaltlink", "debug_types_sec": ".debug_types",
}  # fmt: skip


class _SectionFile(io.RawIOBase):
    """One uncompressed section of an open file, as a file of its own (pread at the
    section's offset), for an io.BufferedReader to read in blocks."""

    def __init__(self, file: IO[bytes], start: int, size: int) -> None:
        super().__init__()
        self._file = file  # its owner closes it: reads fail from then on
        self._start = start
        self._size = size
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        count = max(0, min(len(buffer), self._size - self._pos))
        data = os.pread(self._file.fileno(), count, self._start + self._pos) if count else b""
        buffer[: len(data)] = data
        self._pos += len(data)
        return len(data)

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise ValueError(f"negative seek position {base + offset}")
        self._pos = base + offset
        return self._pos

    def tell(self) -> int:
        return self._pos


class _InflatedFile(_SectionFile):
    """One compressed section as a file of its own, inflated only as far as it is read
    (ElfSections keeps what it inflated), for an io.BufferedReader to read in blocks."""

    def __init__(self, sections: ElfSections, name: str, size: int) -> None:
        io.RawIOBase.__init__(self)
        self._sections = sections
        self._name = name
        self._size = size
        self._pos = 0

    def readinto(self, buffer: Any) -> int:
        count = max(0, min(len(buffer), self._size - self._pos))
        data = self._sections.read(self._name, self._pos, count) if count else b""
        buffer[: len(data)] = data
        self._pos += len(data)
        return len(data)


class _Whole:
    """A section read whole (inflated, when compressed: ElfSections keeps those bytes) on
    its first use; from then on its read, seek and tell are those of a BytesIO on it."""

    def __init__(self, sections: ElfSections, name: str) -> None:
        self._source = (sections, name)

    def _open(self) -> io.BytesIO:
        sections, name = self._source
        stream = io.BytesIO(sections.get(name))  # shares the bytes, no copy
        self.read, self.seek, self.tell = stream.read, stream.seek, stream.tell  # type: ignore[method-assign]
        return stream

    def read(self, size: int | None = -1, /) -> bytes:
        return self._open().read(size)

    def seek(self, offset: int, whence: int = io.SEEK_SET, /) -> int:
        return self._open().seek(offset, whence)

    def tell(self) -> int:
        return self._open().tell()


class _Spec:
    """An attribute specification as pyelftools' DIE parser reads it."""

    __slots__ = ("name", "form", "value")

    def __init__(self, name: str | int, form: str | int, value: int | None) -> None:
        self.name = name
        self.form = form
        self.value = value  # DW_FORM_implicit_const's


def _names(enum: dict[str, Any]) -> dict[int, str]:
    return {value: name for name, value in enum.items() if name != "_default_"}


class _LazyAbbrevTable(AbbrevTable):
    """An abbreviation table whose entries are decoded on first use, to what pyelftools'
    construct parse of the whole table gives: a unit uses a few of its hundreds."""

    __slots__ = ("_data", "_at", "plans")
    _TAGS = _names(ENUM_DW_TAG)
    _ATTRIBUTES = _names(ENUM_DW_AT)
    _FORMS = _names(ENUM_DW_FORM)

    def __init__(self, data: bytes, offset: int) -> None:  # not super's: it parses it all
        self.offset = offset
        self._data = data
        self._abbrev_map: dict[int, AbbrevDecl] = {}
        # code -> where its tag is (a repeated code: the last one, as pyelftools' table)
        self._at = {code: where[0] for code, where in entry_positions(data, offset).items()}
        self.plans: dict[tuple[int, Shape], tuple[Step, ...] | None] = {}  # rawdie.py's, by code

    def get_abbrev(self, code: int) -> AbbrevDecl:
        found = self._abbrev_map.get(code)
        if found is None:
            found = self._abbrev_map[code] = self._decode(code, self._at[code])
        return found

    def _decode(self, code: int, pos: int) -> AbbrevDecl:
        tag, children, raw_specs, _end = read_entry(self._data, pos)
        if children > 1:
            raise DWARFError(f"abbreviation {code}: bad children flag {children}")
        specs = [_Spec(self._ATTRIBUTES.get(attr, attr), self._FORMS.get(form, form),
                       implicit if form == IMPLICIT_CONST else None)
                 for attr, form, implicit in raw_specs]  # fmt: skip
        decl = {"tag": self._TAGS.get(tag, tag), "attr_spec": specs,
                "children_flag": "DW_CHILDREN_yes" if children else "DW_CHILDREN_no"}  # fmt: skip
        return AbbrevDecl(code, decl)  # type: ignore[arg-type]


class _DWARFInfo(DWARFInfo):
    """DWARFInfo with abbreviation tables decoded lazily (pyelftools parses a unit's
    whole table with construct first: 4 ms for one of CPython's big units)."""

    def __init__(self, abbrev: Callable[[], bytes], **sections: Any) -> None:
        config = sections["config"]
        lazystructs.offer_default(config.little_endian, config.default_address_size)
        super().__init__(**sections)
        self._abbrev_source = abbrev
        self._abbrev_data: bytes | None = None
        self._lazy_tables: dict[int, AbbrevTable] = {}

    def get_abbrev_table(self, offset: int) -> AbbrevTable:
        table = self._lazy_tables.get(offset)
        if table is None:
            if self._abbrev_data is None:
                self._abbrev_data = self._abbrev_source()
            if not 0 <= offset < len(self._abbrev_data):
                raise DWARFError(f"abbreviation table offset {offset:#x} out of section bounds")
            table = self._lazy_tables[offset] = _LazyAbbrevTable(self._abbrev_data, offset)
        return table

    def _parse_CU_at_offset(self, offset: int) -> CompileUnit:  # noqa: N802 - pyelftools' name
        """pyelftools' parse of the unit at `offset`, its header read from its bytes and its
        structs made on first use (lazystructs.py); pyelftools' own parse where the header
        is cut short or of a unit type it does not know (it says what is wrong)."""
        assert self.debug_info_sec is not None
        stream = self.debug_info_sec.stream
        stream.seek(offset)
        little_endian = self.config.little_endian
        read = lazystructs.unit_header(stream.read(40), little_endian)
        if read is None:
            return super()._parse_CU_at_offset(offset)
        header, length, dwarf_format = read
        dwarf_assert(self._is_supported_version(header["version"]),
                     f"Expected supported DWARF version. Got '{header['version']}'")  # fmt: skip
        structs = lazystructs.lazy_structs(little_endian, dwarf_format, header["address_size"],
                                           header["version"])  # fmt: skip
        return CompileUnit(header=header, dwarfinfo=self, structs=structs, cu_offset=offset,
                           cu_die_offset=offset + length)  # fmt: skip


def dwarf_info(sections: ElfSections, file: IO[bytes], machine: str) -> DWARFInfo | None:
    """The DWARFInfo of the open `file` (whose headers `sections` read), None when it has
    no .debug_info section. ValueError when a DWARF section lies past the end of the file
    (a corrupt size must not make anyone read gigabytes)."""
    if sections.header(".debug_info", exact=True) is None:
        return None
    file_size = os.fstat(file.fileno()).st_size
    for each in sections.headers:
        if each.name.startswith((".debug", ".zdebug", ".eh_frame")) and each.type != SHT_NOBITS:
            if each.offset + each.size > file_size:
                raise ValueError(f"section {each.name} extends past the end of the file")
    descriptors: dict[str, DebugSectionDescriptor | None] = {}
    for keyword, name in _SECTIONS.items():
        header = sections.header(name, exact=True)
        if header is None:
            descriptors[keyword] = None
            continue
        stream: IO[bytes]
        if header.type == SHT_NOBITS:
            size, stream = 0, io.BytesIO()
        elif header.flags & SHF_COMPRESSED and sections.size(name) > _WHOLE_INFLATED:
            size = sections.size(name)
            stream = io.BufferedReader(_InflatedFile(sections, name, size), _BLOCK)
        elif header.flags & SHF_COMPRESSED or header.size <= _WHOLE:
            size, stream = sections.size(name), cast(IO[bytes], _Whole(sections, name))
        else:
            size = header.size
            stream = io.BufferedReader(_SectionFile(file, header.offset, size), _BLOCK)
        descriptors[keyword] = DebugSectionDescriptor(stream, name, header.offset, size, header.addr)
    config = DwarfConfig(little_endian=True, machine_arch=MACHINES.get(machine, machine),
                         default_address_size=8)  # fmt: skip
    info = _DWARFInfo(lambda: sections.get(".debug_abbrev"), config=config, **descriptors)
    link = alt_link(sections)
    alt = None if link is None else find_alt_file(sections.path, link)
    if link is not None and alt is None:  # as gdb: no DWARF at all (altfile.alt_missing)
        return None
    if alt is not None:  # dwz's shared DIEs and strings (altfile.py)
        alt_file = open(alt.path, "rb")  # noqa: SIM115 - closed with the debug file's info
        alt = ElfSections(alt.path, file=alt_file)
        supplementary = info.supplementary_dwarfinfo = dwarf_info(alt, alt_file, machine)
        if supplementary is not None:
            shift_info(supplementary)
            route_units(info, supplementary)
            lend_language(supplementary, first_language(info))
        weakref.finalize(info, alt_file.close)
    if link is not None or shares_units(sections):
        lend_language(info, first_language(info))
    return info
