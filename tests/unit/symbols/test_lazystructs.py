"""lazystructs: a unit's header read from its bytes is pyelftools' own parse of them (every
DWARF version, unit type, offset size and byte order), the units of real programs have the
headers and first DIE offsets pyelftools gives them, and the construct parsers are made
only when something of pyelftools' asks for one."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Literal

import pytest
from elftools.common.utils import struct_parse
from elftools.dwarf.enums import ENUM_DW_UT
from elftools.dwarf.structs import DWARFStructs
from elftools.elf.elffile import ELFFile
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf import lazystructs
from aliceserver.debuggers.symbols.dwarf.dies import DwarfUnits
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build import Builder


def _pyelftools_header(head: bytes, little_endian: bool) -> tuple[dict[str, object], int] | None:
    wide = head[:4] == b"\xff\xff\xff\xff"
    version = int.from_bytes(head[12 if wide else 4 :][:2], "little" if little_endian else "big")
    structs = DWARFStructs(little_endian, 64 if wide else 32, 8, max(2, min(version, 5)))
    stream = io.BytesIO(head)
    try:
        parsed = struct_parse(structs.Dwarf_CU_header, stream, 0)
    except Exception:  # noqa: BLE001 - pyelftools' errors on a header it cannot read
        return None
    return dict(parsed.items()), stream.tell()


@st.composite
def _headers(draw: st.DrawFn) -> tuple[bytes, bool]:
    little_endian = draw(st.booleans())
    order: Literal["little", "big"] = "little" if little_endian else "big"
    wide = draw(st.booleans())
    version = draw(st.integers(2, 5))
    head = (b"\xff\xff\xff\xff" + draw(st.integers(0, 2**40)).to_bytes(8, order) if wide
            else draw(st.integers(0, 0xFFFFFFEF)).to_bytes(4, order))  # fmt: skip
    head += version.to_bytes(2, order)
    if version >= 5:
        head += bytes([draw(st.sampled_from([*ENUM_DW_UT.values(), 0x07, 0x00]))])
    head += draw(st.binary(min_size=0, max_size=40))
    return head, little_endian


@given(_headers())
def test_a_header_is_read_as_pyelftools_reads_it(case: tuple[bytes, bool]) -> None:
    head, little_endian = case
    mine = lazystructs.unit_header(head, little_endian)
    theirs = _pyelftools_header(head, little_endian)
    if mine is None:  # too short, or a unit type of no header layout: pyelftools' parse then
        return
    assert theirs is not None
    header, length, dwarf_format = mine
    assert (dict(header.items()), length) == theirs
    assert dwarf_format == (64 if head[:4] == b"\xff\xff\xff\xff" else 32)


def test_a_cut_header_is_left_to_pyelftools() -> None:
    whole = bytes.fromhex("2a000000" "0500" "01" "08" "10000000")
    assert lazystructs.unit_header(whole, True) is not None
    for cut in range(len(whole)):
        assert lazystructs.unit_header(whole[:cut], True) is None
    unknown_type = bytes.fromhex("2a000000" "0500" "07" "08" "10000000")
    assert lazystructs.unit_header(unknown_type, True) is None


@pytest.mark.parametrize("flags", [("-g", "-O2"), ("-gdwarf-4", "-O0"), ("-gdwarf-5", "-gdwarf64", "-O1")])
def test_units_of_a_program_are_pyelftools_units(builder: Builder, flags: tuple[str, ...]) -> None:
    path: Path = builder.build("symbol_search", flags, also=("symbol_search_part",))
    units = DwarfUnits(ElfImage.load(str(path)))
    try:
        with open(path, "rb") as stream:
            theirs = [(cu.cu_offset, cu.cu_die_offset, dict(cu.header.items()), cu.structs.dwarf_format)
                      for cu in ELFFile(stream).get_dwarf_info().iter_CUs()]  # fmt: skip
        mine = []
        for offset in units.cu_offsets():
            cu = units.cu_at_offset(offset)
            mine.append((cu.cu_offset, cu.cu_die_offset, dict(cu.header.items()), cu.structs.dwarf_format))
        assert mine == theirs and len(mine) > 1
        if "-gdwarf64" in flags:
            assert {each[3] for each in mine} == {64}
    finally:
        units.close()


def test_parsers_are_made_on_first_use_alone() -> None:
    made = lazystructs.LazyStructs(True, 32, 8, 5)
    assert "Dwarf_uint8" not in vars(made) and made.initial_length_field_size() == 4
    real = DWARFStructs(True, 32, 8, 5)
    assert made.Dwarf_dw_form.keys() == real.Dwarf_dw_form.keys()
    assert {name for name in vars(real)} <= set(vars(made))
    with pytest.raises(AttributeError):
        made.not_a_parser  # noqa: B018 - looked up for its error


def test_reading_a_function_by_plans_makes_no_parsers(builder: Builder, monkeypatch: pytest.MonkeyPatch) -> None:
    """The point of it all: the DIEs a stop reads (rawdie's plans) need no parser."""
    monkeypatch.setattr(DWARFStructs, "_structs_cache", {})  # as in a process's first session
    monkeypatch.setattr(lazystructs, "_made", {})
    path = builder.build("calls", ("-g", "-O2"))
    units = DwarfUnits(ElfImage.load(str(path)))
    try:
        cu = units.cu_at_offset(units.cu_offsets()[0])
        dies = list(cu.iter_DIEs())
        assert len(dies) > 20 and any(die.tag == "DW_TAG_subprogram" for die in dies)
        assert isinstance(cu.structs, lazystructs.LazyStructs)
        assert "Dwarf_dw_form" not in vars(cu.structs)
        assert not any("Dwarf_dw_form" in vars(each) for each in DWARFStructs._structs_cache.values())
    finally:
        units.close()
