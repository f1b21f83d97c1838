"""CfiTable against binutils: every row `readelf -wF` prints, for libc, ld.so and test
programs (.eh_frame through .eh_frame_hdr, .debug_frame, compressed .debug_frame)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.cfi import CfiTable, _FrameSection, _Section
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.errors import TargetError
from tests.unit.symbols.dwarf_cfi.oracle import PROGRAM
from tests.unit.symbols.dwarf_cfi.readelf_frames import describe_cfa, describe_rule, readelf_fdes

SYSTEM_LIBRARIES = [
    "/lib/x86_64-linux-gnu/libc.so.6",
    "/lib64/ld-linux-x86-64.so.2",
    "/lib/x86_64-linux-gnu/libm.so.6",
]


def assert_rows_match_readelf(path: str, table: CfiTable) -> int:
    checked = 0
    mismatches = []
    for fde in readelf_fdes(path):
        for loc, cells in fde.rows:
            row = table.row_at(loc)
            if row is None:
                mismatches.append(f"{fde.section} {loc:#x}: no row")
                continue
            ours = [describe_cfa(row)] + [describe_rule(row, c) for c in fde.columns]
            if ours != cells[: len(ours)]:
                mismatches.append(f"{fde.section} {loc:#x} {fde.columns}: {cells} != {ours}")
            checked += 1
    assert not mismatches, "\n".join(mismatches[:20])
    return checked


@pytest.mark.parametrize("path", SYSTEM_LIBRARIES)
def test_system_library_rows_match_readelf(path: str, ctools: Any) -> None:
    if not os.path.exists(path):
        pytest.skip(f"{path} is not installed")
    table = CfiTable.load(ElfImage.load(path))
    assert table is not None
    assert table._search is not None, "system libraries carry .eh_frame_hdr"
    assert assert_rows_match_readelf(path, table) > 100


@pytest.mark.parametrize(
    "flags",
    [
        ("-O0", "-g"),
        ("-O2", "-fomit-frame-pointer"),
        ("-O2", "-g", "-fno-asynchronous-unwind-tables"),  # .debug_frame for our code
        ("-O2", "-g", "-fno-asynchronous-unwind-tables", "-Wl,--compress-debug-sections=zlib"),
        ("-O2", "-static"),
    ],
)
def test_program_rows_match_readelf(flags: tuple[str, ...], ctools: Any) -> None:
    program: Path = ctools.build(PROGRAM.read_text(), *flags, "-pthread", name="unwind")
    table = CfiTable.load(ElfImage.load(str(program)))
    assert table is not None
    assert assert_rows_match_readelf(str(program), table) > 10
    leaf = ElfImage.load(str(program)).find_symbol("leaf")
    assert leaf is not None
    expected = ".debug_frame" if "-fno-asynchronous-unwind-tables" in flags else ".eh_frame"
    assert table.section_of(leaf.address) == expected


def test_search_table_and_full_scan_agree(ctools: Any) -> None:
    path = SYSTEM_LIBRARIES[0]
    if not os.path.exists(path):
        pytest.skip(f"{path} is not installed")
    with_hdr = CfiTable.load(ElfImage.load(path))
    assert with_hdr is not None and with_hdr._search is not None
    scanning = CfiTable.load(ElfImage.load(path))
    assert scanning is not None
    scanning._search = None  # as for a file without .eh_frame_hdr
    for fde in readelf_fdes(path)[::7]:
        for pc in (fde.low, (fde.low + fde.high) // 2, fde.high - 1, fde.high):
            assert with_hdr.row_at(pc) == scanning.row_at(pc), hex(pc)


def test_file_without_call_frame_information(ctools: Any, tmp_path: Path) -> None:
    if shutil.which("objcopy") is None:
        pytest.skip("needs objcopy")
    program: Path = ctools.build(PROGRAM.read_text(), "-O2", "-pthread", name="unwind")
    bare = tmp_path / "bare"
    subprocess.run(
        ["objcopy", "--remove-section=.eh_frame", "--remove-section=.eh_frame_hdr",
         str(program), str(bare)],
        check=True,
    )  # fmt: skip
    assert CfiTable.load(ElfImage.load(str(bare))) is None


def test_rows_are_cached_per_fde(ctools: Any) -> None:
    path = SYSTEM_LIBRARIES[0]
    if not os.path.exists(path):
        pytest.skip(f"{path} is not installed")
    table = CfiTable.load(ElfImage.load(path))
    assert table is not None
    fde = next(f for f in readelf_fdes(path) if len(f.rows) > 3)
    first = table.row_at(fde.rows[1][0])
    assert table.row_at(fde.rows[1][0]) is first
    assert len(table._rows) == 1


# --- robustness ------------------------------------------------------------------------------

# A valid .eh_frame: CIE "zR" (pcrel sdata4) and one FDE for [0x1000, 0x1010).
CIE = bytes.fromhex("14000000 00000000 01 7a5200 01 78 10 01 1b 0c0708 900100 00".replace(" ", ""))


def _eh_frame(vaddr: int) -> bytes:
    fde_body = bytearray()
    fde_body += (len(CIE) + 4).to_bytes(4, "little")  # CIE pointer: back to offset 0
    pc_field = vaddr + len(CIE) + 8
    fde_body += (0x1000 - pc_field).to_bytes(4, "little", signed=True)
    fde_body += (0x10).to_bytes(4, "little") + b"\x00" + bytes([0x41, 0x0E, 0x10]) + b"\0"
    return CIE + len(fde_body).to_bytes(4, "little") + bytes(fde_body) + b"\0" * 4


def test_hand_made_eh_frame_without_hdr() -> None:
    table = CfiTable("mem", _Section(".eh_frame", 0x2000, _eh_frame(0x2000)), None, None)
    assert table.row_at(0x0FFF) is None and table.row_at(0x1010) is None
    assert table.row_at(0x1000) is not None and table.row_at(0x1000).cfa.offset == 8  # type: ignore[union-attr]
    assert table.row_at(0x1005).cfa.offset == 16  # type: ignore[union-attr]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=96), st.integers(0, 0x3000))
def test_random_sections_give_rows_none_or_target_error(data: bytes, pc: int) -> None:
    for blob in (data, _eh_frame(0x2000)[: len(data)] + data):
        for is_eh in (True, False):
            name = ".eh_frame" if is_eh else ".debug_frame"
            section = _Section(name, 0x2000, blob)
            table = CfiTable("mem", section if is_eh else None, None, None if is_eh else section)
            try:
                table.row_at(pc)
            except TargetError:
                pass
            _FrameSection(section, is_eh=is_eh)  # constructing never parses


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=4, max_size=64), st.integers(0, 0x3000))
def test_random_hdr_gives_rows_none_or_target_error(hdr: bytes, pc: int) -> None:
    eh = _Section(".eh_frame", 0x2000, _eh_frame(0x2000))
    table = CfiTable("mem", eh, _Section(".eh_frame_hdr", 0x1F00, b"\x01\x1b\x03\x3b" + hdr), None)
    try:
        table.row_at(pc)
    except TargetError:
        pass


def _debug_frame() -> bytes:
    """A .debug_frame CIE (as CIE above, no augmentation) and an FDE for [0x1000, 0x1010)
    whose only rule leaves rax undefined (DW_CFA_undefined r0)."""
    cie = b"\xff\xff\xff\xff" + b"\x01" + b"\x00" + b"\x01\x78\x10" + bytes.fromhex("0c0708900100")
    cie += b"\0" * (-(len(cie) + 4) % 8)
    fde = (0).to_bytes(4, "little") + (0x1000).to_bytes(8, "little") + (0x10).to_bytes(8, "little") + b"\x07\x00"
    fde += b"\0" * (-(len(fde) + 4) % 8)
    return len(cie).to_bytes(4, "little") + cie + len(fde).to_bytes(4, "little") + fde


def test_debug_frame_wins_over_eh_frame_for_the_same_function() -> None:
    """gdb sorts both sections' FDEs into one table and keeps the .debug_frame one of two
    that start at the same address (dwarf2/frame.c's fde_is_less_than)."""
    eh = _Section(".eh_frame", 0x2000, _eh_frame(0x2000))
    table = CfiTable("mem", eh, None, _Section(".debug_frame", 0, _debug_frame()))
    assert table.section_of(0x1000) == ".debug_frame"
    row = table.row_at(0x1000)
    assert row is not None and row.rule(0) is not None and row.rule(0).kind.name == "UNDEFINED"  # type: ignore[union-attr]
