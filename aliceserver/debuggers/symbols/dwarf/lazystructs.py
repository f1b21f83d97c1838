"""pyelftools' DWARFStructs with its construct parsers made on first use, and a unit's
header read without them.

A DWARFStructs makes its hundreds of construct objects at once: 1-1.5 ms for each layout
(byte order, offset size, address size, DWARF version), two of them at a first stop (the
DWARFInfo's and the units'). rawdie.py reads DIEs with none of them, and a unit's header
is a few fixed fields: here they are made only when something of pyelftools' own asks for
one (a DIE form no plan reads, a location list, a line program of pyelftools').
"""

from __future__ import annotations

from typing import Any, Literal

from elftools.construct.lib.container import Container
from elftools.dwarf.enums import ENUM_DW_UT
from elftools.dwarf.structs import DWARFStructs

# The unit types of a known header layout (DW_UT_lo_user... have none)
_UNIT_TYPES = {code: name for name, code in ENUM_DW_UT.items() if not name.endswith("_user")}
Layout = tuple[bool, int, int, int]  # little endian, DWARF format (32/64), address size, version
_made: dict[Layout, LazyStructs] = {}


class LazyStructs(DWARFStructs):
    """A DWARFStructs whose parsers are made when one is first looked up."""

    def __new__(cls, little_endian: bool, dwarf_format: int, address_size: int, dwarf_version: int = 2
                ) -> LazyStructs:  # fmt: skip
        self = object.__new__(cls)
        self.little_endian, self.dwarf_format = little_endian, dwarf_format
        self.address_size, self.dwarf_version = address_size, dwarf_version
        return self

    def __init__(self, *_args: Any, **_kwargs: Any) -> None:
        """Nothing: pyelftools before 0.32 made the parsers in its __init__."""

    def __getattr__(self, name: str) -> Any:  # an attribute not made yet
        if name.startswith("_") or self.__dict__.get("_parsers_made"):
            raise AttributeError(name)
        self._parsers_made = True
        self._create_structs()
        return getattr(self, name)


def lazy_structs(little_endian: bool, dwarf_format: int, address_size: int, dwarf_version: int = 2
                 ) -> DWARFStructs:  # fmt: skip
    """The structs of this layout: pyelftools' own if it made them, else a lazy one (one a
    layout, as pyelftools keeps them)."""
    layout = (little_endian, dwarf_format, address_size, dwarf_version)
    theirs = getattr(DWARFStructs, "_structs_cache", None)
    if isinstance(theirs, dict) and layout in theirs:
        return theirs[layout]  # type: ignore[no-any-return]
    if layout not in _made:
        _made[layout] = LazyStructs(*layout)
    return _made[layout]


def offer_default(little_endian: bool, address_size: int) -> None:
    """Have the next DWARFStructs(little_endian, 32, address_size) pyelftools makes (its
    DWARFInfo's own, made in its __init__) be a lazy one, through pyelftools' cache of them
    (0.32 on; older ones make it at once)."""
    theirs = getattr(DWARFStructs, "_structs_cache", None)
    layout = (little_endian, 32, address_size, 2)
    if isinstance(theirs, dict) and layout not in theirs:
        theirs[layout] = lazy_structs(*layout)


def unit_header(head: bytes, little_endian: bool) -> tuple[Container, int, int] | None:
    """A unit header as pyelftools' Dwarf_CU_header parses it, from the unit's first bytes,
    with its length and DWARF format (32 or 64); None where they do not hold it all or its
    unit type is unknown."""
    order: Literal["little", "big"] = "little" if little_endian else "big"

    def number(at: int, size: int) -> int:
        return int.from_bytes(head[at : at + size], order)

    wide = number(0, 4) == 0xFFFFFFFF
    if not wide and number(0, 4) >= 0xFFFFFF00:  # reserved: pyelftools' parse fails there too
        return None
    at = 12 if wide else 4
    offset_size = 8 if wide else 4
    if len(head) < at + 2:
        return None
    header = Container(unit_length=number(at - 8, 8) if wide else number(0, 4), version=number(at, 2))
    at += 2
    if header["version"] < 5:
        fields = [("debug_abbrev_offset", offset_size), ("address_size", 1)]
    else:
        unit_type = _UNIT_TYPES.get(head[at]) if len(head) > at else None
        if unit_type is None:
            return None
        header["unit_type"] = unit_type
        at += 1
        fields = [("address_size", 1), ("debug_abbrev_offset", offset_size)]
        if unit_type in ("DW_UT_skeleton", "DW_UT_split_compile"):
            fields.append(("dwo_id", 8))
        elif unit_type in ("DW_UT_type", "DW_UT_split_type"):
            fields += [("type_signature", 8), ("type_offset", offset_size)]
    for name, size in fields:
        if len(head) < at + size:
            return None
        header[name] = number(at, size)
        at += size
    return header, at, 64 if wide else 32
