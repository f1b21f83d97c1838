"""The raw DWARF reading kit (rawread.py, abbrevs.py, forms.py): LEB128 edge cases and the
runaway guard, every form's size against pyelftools' own structs, and the units, unit
headers and abbreviations of real gcc builds (DWARF 4 and 5, 32- and 64-bit offsets)
against pyelftools' reading of the same bytes."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from elftools.dwarf.enums import ENUM_DW_FORM
from elftools.dwarf.structs import DWARFStructs
from elftools.elf.elffile import ELFFile
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf import forms
from aliceserver.debuggers.symbols.dwarf.abbrevs import AbbrevCache, UnitShape, iter_entries
from aliceserver.debuggers.symbols.dwarf.cfa_program import Reader
from aliceserver.debuggers.symbols.dwarf.lines import StringSections
from aliceserver.debuggers.symbols.dwarf.locexpr import ByteReader as ExprReader
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.rawread import (
    MAX_LEB_BITS,
    ByteReader,
    RunawayLeb,
    skip_leb,
    sleb,
    uleb,
    unit_header,
    unit_length,
)
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.dwarf.units import RangeSections, read_units
from aliceserver.errors import TargetError


def _uleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _sleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        done = (value == 0 and not byte & 0x40) or (value == -1 and byte & 0x40)
        out.append(byte | (0 if done else 0x80))
        if done:
            return bytes(out)


# --- LEB128 ------------------------------------------------------------------------------


@pytest.mark.parametrize(("encoded", "value"), [  # DWARF 5, figure 3 and table 7.6
    (b"\x02", 2), (b"\x7f", 127), (b"\x80\x01", 128), (b"\x81\x01", 129), (b"\x82\x01", 130),
    (b"\xb9\x64", 12857), (b"\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 1 << 63),
    (b"\xff" * 9 + b"\x01", (1 << 64) - 1), (b"\x80\x00", 0),  # padded, as linkers leave them
])  # fmt: skip
def test_uleb_values(encoded: bytes, value: int) -> None:
    assert uleb(b"\xaa" + encoded + b"\xaa", 1) == (value, 1 + len(encoded))
    assert skip_leb(encoded, 0) == len(encoded)


@pytest.mark.parametrize(("encoded", "value"), [
    (b"\x02", 2), (b"\x7e", -2), (b"\xff\x00", 127), (b"\x81\x7f", -127), (b"\x80\x01", 128),
    (b"\x80\x7f", -128), (b"\x81\x01", 129), (b"\xff\x7e", -129), (b"\x40", -64), (b"\x3f", 63),
    (b"\x80" * 9 + b"\x7f", -(1 << 63)), (b"\xff" * 9 + b"\x00", (1 << 63) - 1),
])  # fmt: skip
def test_sleb_values(encoded: bytes, value: int) -> None:
    assert sleb(encoded, 0) == (value, len(encoded))


@given(st.integers(min_value=0, max_value=(1 << 128) - 1))
def test_uleb_round_trip(value: int) -> None:
    data = b"\x01" + _uleb(value)
    assert uleb(data, 1) == (value, len(data))


@given(st.integers(min_value=-(1 << 127), max_value=(1 << 127) - 1))
def test_sleb_round_trip(value: int) -> None:
    data = _sleb(value)
    assert sleb(data, 0) == (value, len(data))


def test_truncated_leb_raises_index_error() -> None:
    for function in (uleb, sleb):
        with pytest.raises(IndexError):
            function(b"\x80\x80", 0)
        with pytest.raises(IndexError):
            function(b"", 0)


def test_runaway_leb_is_refused() -> None:
    longest = b"\x80" * (MAX_LEB_BITS // 7) + b"\x01"  # still a number (padded)
    assert uleb(longest, 0)[1] == len(longest)
    endless = b"\x80" * 10_000 + b"\x00"
    for function in (uleb, sleb):
        with pytest.raises(RunawayLeb):
            function(endless, 0)
    assert issubclass(RunawayLeb, ValueError)  # the readers' callers catch ValueError


def test_reader_errors_are_each_readers_own() -> None:
    reader = ByteReader(b"\x01\x80")
    assert reader.u8() == 1
    with pytest.raises(TargetError, match="truncated at offset 0x2"):
        reader.uleb()
    with pytest.raises(TargetError, match="too long in call frame"):
        Reader(b"\x80" * 200 + b"\x00").uleb()
    with pytest.raises(TargetError, match="call frame information truncated"):
        Reader(b"\x80\x80\x01", 0, 2).uleb()  # the number runs past the reader's end
    with pytest.raises(EvaluationError, match="truncated DWARF data"):
        ExprReader(b"\x80").sleb()
    reader = ByteReader(b"\x10\x20\x30\x40\x50\x60\x70\x80\x90ab\0c")
    assert (reader.u8(), reader.u16(), reader.u32()) == (0x10, 0x3020, 0x70605040)
    assert reader.signed(2) == -0x6f80 and reader.cstring() == b"ab" and reader.take(1) == b"c"
    assert reader.at_end()


# --- forms ---------------------------------------------------------------------------------


_NOT_VALUE_FORMS = {"DW_FORM_null", "DW_FORM_ref", "_default_"}
# pyelftools 0.33 reads DW_FORM_strx4 as 8 bytes; DWARF 5 (7.5.6) and gcc write 4.
_PYELFTOOLS_ERRATA = {"DW_FORM_strx4": 4}


@pytest.mark.parametrize("version", [2, 3, 4, 5])
@pytest.mark.parametrize("osize", [4, 8])
def test_every_form_size_matches_pyelftools(version: int, osize: int) -> None:
    """Each fixed size against pyelftools' own form structs; the rest by their kind."""
    structs = DWARFStructs(little_endian=True, dwarf_format=osize * 8, address_size=8, dwarf_version=version)
    for name, form in ENUM_DW_FORM.items():
        if name in _NOT_VALUE_FORMS:
            continue
        code = forms.size_code(form, osize, 8, version)
        if name not in structs.Dwarf_dw_form:  # GNU forms pyelftools does not read
            assert code in (forms.LEB, osize), name
            continue
        parser = structs.Dwarf_dw_form[name]
        if parser is None:  # flag_present, implicit_const: no bytes in the DIE
            assert code == 0, name
        elif code >= 0:
            assert _PYELFTOOLS_ERRATA.get(name, parser.sizeof()) == code, name
        elif code == forms.LEB:
            assert parser.parse(_uleb(1 << 40)) == 1 << 40, name
        else:
            assert code in (forms.CSTRING, forms.BLOCK_LEB, forms.BLOCK1, forms.BLOCK2, forms.BLOCK4,
                            forms.INDIRECT), name  # fmt: skip
    with pytest.raises(TargetError):
        forms.size_code(0x7F, osize, 8, version)


# --- real compilers' units ---------------------------------------------------------------

_PROGRAM = r"""
struct point { int x, y; };
static int scale = 3;
int norm(struct point *p) { return p->x * scale + p->y; }
int main(void) { struct point p = {1, 2}; return norm(&p) == 0; }
"""


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc is not installed")
    root = tmp_path_factory.mktemp("rawread")
    source = root / "point.c"
    source.write_text(_PROGRAM)
    found = {}
    for name, flags in (("v4", ["-gdwarf-4"]), ("v5", ["-gdwarf-5"]), ("v5-64", ["-gdwarf-5", "-gdwarf64"]),
                        ("v4-64", ["-gdwarf-4", "-gdwarf64"])):  # fmt: skip
        out = root / f"point-{name}"
        built = subprocess.run([gcc, "-O1", *flags, str(source), "-o", str(out)], capture_output=True)
        if built.returncode == 0:
            found[name] = out
    if "v4" not in found or "v5" not in found:
        pytest.skip("gcc cannot build DWARF 4 and 5")
    return found


@pytest.mark.parametrize("build", ["v4", "v5", "v5-64", "v4-64"])
def test_units_of_real_builds_match_pyelftools(builds: dict[str, Path], build: str) -> None:
    path = builds.get(build)
    if path is None:
        pytest.skip(f"gcc cannot build {build}")
    sections = ElfSections(str(path))
    info, abbrev = sections.get(".debug_info"), sections.get(".debug_abbrev")
    with open(path, "rb") as stream:
        dwarf = ELFFile(stream).get_dwarf_info(relocate_dwarf_sections=False)
        expected = [(cu.cu_offset, cu["version"], cu["address_size"], cu["debug_abbrev_offset"],
                     cu.structs.dwarf_format // 8, cu.get_top_DIE().attributes["DW_AT_name"].value.decode())
                    for cu in dwarf.iter_CUs()]  # fmt: skip
    got = []
    pos = 0
    while pos < len(info):
        length, osize, body = unit_length(info, pos)
        header = unit_header(info, body, osize)
        assert header is not None
        version, asize, abbrev_offset, first = header
        got.append((pos, version, asize, abbrev_offset, osize))
        table = AbbrevCache(abbrev).table(abbrev_offset, UnitShape(pos, body + length, osize, asize, version))
        code, _ = uleb(info, first)
        assert table[code].tag == 0x11  # DW_TAG_compile_unit
        assert code in [c for c, *_ in iter_entries(abbrev, abbrev_offset)]
        pos = body + length
    assert got == [e[:5] for e in expected]
    assert all(e[4] == (8 if build.endswith("-64") else 4) for e in expected)
    strings = StringSections(sections.get(".debug_line_str"), sections.get(".debug_str"),
                             sections.get(".debug_str_offsets"))  # fmt: skip
    summaries = read_units(info, abbrev, strings, lambda: RangeSections(
        sections.get(".debug_addr"), sections.get(".debug_ranges"), sections.get(".debug_rnglists")))
    assert [(u.offset, u.version, u.name) for u in summaries] == [(e[0], e[1], e[5]) for e in expected]
    assert any(u.name.endswith("point.c") and u.stmt_list is not None for u in summaries)
