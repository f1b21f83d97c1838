""".debug_info is not read whole where a part does: the index reads each unit's first
bytes (units.read_unit_heads), the inline search reads it a window at a time
(sectionsearch.units_holding). Checked on a real gcc build against the whole-section
readings they replace."""

from __future__ import annotations

import shutil
import subprocess
from bisect import bisect_right
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf import units as units_module
from aliceserver.debuggers.symbols.dwarf.inlines import units_mentioning
from aliceserver.debuggers.symbols.dwarf.lines import StringSections
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.dwarf.sectionsearch import units_holding
from aliceserver.debuggers.symbols.dwarf.units import RangeSections, read_unit_heads, read_units

_UNIT = """
static int helper_{i}(int x) {{ return x * {i}; }}
int shared_name(int);
int func_{i}(int x) {{ return helper_{i}(x) + shared_name(x); }}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    root = tmp_path_factory.mktemp("section-reads")
    sources = []
    for i in range(6):
        (root / f"unit_{i}.c").write_text(_UNIT.format(i=i))
        sources.append(f"unit_{i}.c")
    (root / "main.c").write_text("int shared_name(int x) { return x; }\nint main(void) { return 0; }\n")
    subprocess.run(["gcc", "-g", "-O0", *sources, "main.c", "-o", "prog"], cwd=root, check=True)
    return root / "prog"


def _whole_reading(sections: ElfSections) -> list[units_module.UnitSummary]:
    return read_units(sections.get(".debug_info"), sections.get(".debug_abbrev"), _strings(sections),
                      lambda: _ranges(sections))  # fmt: skip


def _strings(sections: ElfSections) -> StringSections:
    return StringSections(sections.get(".debug_line_str"), sections.get(".debug_str"),
                          sections.get(".debug_str_offsets"))  # fmt: skip


def _ranges(sections: ElfSections) -> RangeSections:
    return RangeSections(sections.get(".debug_addr"), sections.get(".debug_ranges"),
                         sections.get(".debug_rnglists"))  # fmt: skip


@pytest.mark.parametrize("head", [None, 16, 40])
def test_unit_heads_are_read_as_the_whole_section_is(program: Path, head: int | None,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """With 16 or 40 bytes a head, every first DIE runs past them and is read again whole
    (never misread from the bytes cut short)."""
    sections = ElfSections(str(program))
    if head is not None:
        monkeypatch.setattr(units_module, "_HEAD", head)
    asked: list[tuple[int, int]] = []

    def read(offset: int, size: int) -> bytes:
        asked.append((offset, size))
        return sections.read(".debug_info", offset, size)

    size = sections.size(".debug_info")
    got = read_unit_heads(read, size, sections.get(".debug_abbrev"), _strings(sections),
                          lambda: _ranges(sections))  # fmt: skip
    assert got == _whole_reading(sections)
    assert len(got) == 7
    if head is None:  # one read a unit, of its first bytes only
        assert len(asked) == len(got) and all(count <= units_module._HEAD for _offset, count in asked)
    else:  # and again whole
        assert len(asked) == 2 * len(got)


def test_units_holding_finds_what_a_whole_search_finds(program: Path) -> None:
    sections = ElfSections(str(program))
    info = sections.get(".debug_info")
    offsets = [u.offset for u in _whole_reading(sections)]
    needles = [b"helper_3\0", b"func_", b"shared_name", info[40:44], info[-9:-5], b"\0\0\0", b"absent!"]
    for needle in needles:
        expected = set()
        at = info.find(needle)
        while at >= 0:
            unit = bisect_right(offsets, at) - 1
            if unit >= 0:
                expected.add(offsets[unit])
            at = info.find(needle, at + 1)
        for window in (7, 64, 1000, 1 << 24):  # needles straddle the small windows' ends
            assert units_holding(sections, ".debug_info", [needle], offsets, window) == expected, (needle, window)


def test_inline_search_never_reads_the_whole_section(program: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sections = ElfSections(str(program))
    offsets = [u.offset for u in _whole_reading(sections)]
    whole_get = ElfSections.get

    def get(self: ElfSections, name: str) -> bytes:
        assert name != ".debug_info", "the whole .debug_info was read"
        return whole_get(self, name)

    monkeypatch.setattr(ElfSections, "get", get)
    found = units_mentioning(sections, offsets, "helper_3")
    assert found is not None and len(found) == 1  # its own unit only
    assert units_mentioning(sections, offsets, "shared_name") == sorted(offsets)  # called or defined


@pytest.mark.parametrize("compressed", [False, True])
def test_a_reader_reads_as_read_does_through_one_descriptor(program: Path, tmp_path: Path,
                                                            compressed: bool) -> None:  # fmt: skip
    """ElfSections.reader: the unit heads' loop opened the file once per read (20 us each)."""
    path = program
    if compressed:
        path = tmp_path / "prog-z"
        subprocess.run(["objcopy", "--compress-debug-sections=zlib", str(program), str(path)], check=True)
    sections = ElfSections(str(path))
    size = sections.size(".debug_info")
    places = [(0, 12), (5, 300), (size - 7, 20), (size, 4), (size + 9, 1), (size // 2, 2048)]
    descriptors = len(list(Path("/proc/self/fd").iterdir()))
    opened = []
    with sections.reader(".debug_info") as read:
        got = [read(offset, count) for offset, count in places]
        opened.append(len(list(Path("/proc/self/fd").iterdir())))
    assert got == [sections.read(".debug_info", offset, count) for offset, count in places]
    assert opened == [descriptors + (0 if compressed else 1)]  # one, held for the block
    assert len(list(Path("/proc/self/fd").iterdir())) == descriptors  # and closed after it


def test_a_needle_with_followers_finds_each_of_its_endings(program: Path) -> None:
    """(prefix, followers) finds, in one pass, what prefix+f for each f finds."""
    sections = ElfSections(str(program))
    offsets = [u.offset for u in _whole_reading(sections)]
    info = sections.get(".debug_info")
    common = info[40:48]  # (several misses, then `re`, when it recurs with other endings)
    for prefix, followers in ((b"helper_3", b"\0<"), (b"func_", b"0123"), (b"shared_name", b"\0"),
                              (b"x", b"\0"), (b"\0\0\0\0\0\0\0\0", b"\x01\x02"),
                              (common, bytes(range(0, 256, 3))), (b"absent!", b"\0")):  # fmt: skip
        for window in (7, 64, 1000, 1 << 24):
            expected: set[int] = set()
            for follower in followers:
                expected |= units_holding(sections, ".debug_info", [prefix + bytes([follower])], offsets, window)
            found = units_holding(sections, ".debug_info", [(prefix, followers)], offsets, window)
            assert found == expected, (prefix, followers, window)
