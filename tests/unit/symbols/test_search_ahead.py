"""A compressed .debug_info searched for a name is not kept inflated (libc's is 5.8 MB):
the first search reads it a window at a time, a read of a few bytes inflates only as far
as they are and reads only the compressed bytes that takes, and the prefetch thread's
search ahead gives the answers the session's own search gives (mentions.py). Checked on a
real gcc build, compressed by objcopy, against the same build uncompressed."""

from __future__ import annotations

import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf import altfile, mentions, sectionsearch
from aliceserver.debuggers.symbols.dwarf.inlines import mention_needles, units_mentioning
from aliceserver.debuggers.symbols.dwarf.lines import StringSections
from aliceserver.debuggers.symbols.dwarf.sections import ElfSections
from aliceserver.debuggers.symbols.dwarf.units import RangeSections, read_unit_heads

_UNIT = """
struct record_{i} {{ int field_{i}_a; long field_{i}_b; char name_{i}[{n}]; }};
static inline int helper_{i}(struct record_{i} *r) {{ return r->field_{i}_a + (int)r->field_{i}_b; }}
int shared_name(int);
int func_{i}(struct record_{i} *r) {{ return helper_{i}(r) + shared_name(r->name_{i}[0]); }}
"""
_NAMES = ("helper_3", "helper_17", "shared_name", "func_29", "absent_name", "field_5_a")


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(a program of 40 units with zlib-compressed DWARF, the same with it plain)."""
    if shutil.which("gcc") is None or shutil.which("objcopy") is None:
        pytest.skip("gcc or objcopy not installed")
    root = tmp_path_factory.mktemp("search-ahead")
    sources = []
    for i in range(40):
        (root / f"unit_{i}.c").write_text(
            "".join(_UNIT.format(i=i * 40 + k, n=k + 1) for k in range(40))
        )
        sources.append(f"unit_{i}.c")
    (root / "main.c").write_text(
        "int shared_name(int x) { return x; }\nint main(void) { return 0; }\n"
    )
    subprocess.run(["gcc", "-g", "-O2", *sources, "main.c", "-o", "plain"], cwd=root, check=True)
    subprocess.run(
        ["objcopy", "--compress-debug-sections=zlib", "plain", "packed"], cwd=root, check=True
    )
    header = ElfSections(str(root / "packed")).header(".debug_info", exact=True)
    if header is None or not header.flags & 0x800:
        pytest.skip("objcopy did not compress .debug_info")
    return root / "packed", root / "plain"


def _offsets(sections: ElfSections) -> list[int]:
    strings = StringSections(sections.get(".debug_line_str"), sections.get(".debug_str"),
                             sections.get(".debug_str_offsets"))  # fmt: skip

    def ranges() -> RangeSections:
        return RangeSections(sections.get(".debug_addr"), sections.get(".debug_ranges"),
                             sections.get(".debug_rnglists"))  # fmt: skip

    with sections.reader(".debug_info") as read:
        heads = read_unit_heads(
            read, sections.size(".debug_info"), sections.get(".debug_abbrev"), strings, ranges
        )
    return [unit.offset for unit in heads]


def _expected(plain: Path, offsets: list[int]) -> dict[str, list[int] | None]:
    return {name: units_mentioning(ElfSections(str(plain)), offsets, name) for name in _NAMES}


def _searched(builds: tuple[Path, Path]) -> tuple[ElfSections, list[int], dict[str, list[int] | None]]:
    """The compressed build's sections (nothing read yet), the unit offsets, and each name's
    units as the uncompressed build answers."""
    packed, plain = builds
    offsets = _offsets(ElfSections(str(plain)))
    return ElfSections(str(packed)), offsets, _expected(plain, offsets)


def test_a_first_search_keeps_none_of_the_section_inflated(builds: tuple[Path, Path]) -> None:
    sections, offsets, expected = _searched(builds)
    assert units_mentioning(sections, offsets, "helper_3") == expected["helper_3"]
    assert ".debug_info" not in sections._inflated and ".debug_info" not in sections._partial
    # the same name again: the answer kept, nothing read
    assert units_mentioning(sections, offsets, "helper_3") == expected["helper_3"]
    assert ".debug_info" not in sections._inflated
    # another name: a section searched again is inflated whole and kept (rbreak's many names)
    for name in _NAMES:
        assert units_mentioning(sections, offsets, name) == expected[name], name
    assert ".debug_info" in sections._inflated


def test_a_few_bytes_read_only_the_compressed_bytes_they_need(builds: tuple[Path, Path],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    packed, plain = builds
    sections = ElfSections(str(packed))
    header = sections.header(".debug_info", exact=True)
    assert header is not None and header.size > 65536 + 24  # else no saving to see
    read: list[int] = []
    pread = ElfSections._pread

    def counted(self: ElfSections, offset: int, count: int, fd: int = -1) -> bytes:
        if self is sections:
            read.append(count)
        return pread(self, offset, count, fd)

    monkeypatch.setattr(ElfSections, "_pread", counted)
    assert sections.read(".debug_info", 0, 64) == ElfSections(str(plain)).read(".debug_info", 0, 64)
    assert sum(read) <= 65536 + 24, (sum(read), header.size)  # one step of 64 kB, and the header


def test_the_search_ahead_answers_as_the_sessions_own(builds: tuple[Path, Path],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    sections, offsets, expected = _searched(builds)
    needles = [n for name in _NAMES for n in mention_needles(sections, name) or ()]
    planned = mentions.plan(sections, needles)
    assert planned and mentions.plan(sections, needles) == []  # planned once
    ahead = threading.Thread(target=mentions.search_ahead, args=(sections, planned))

    def no_search(*args: object, **kwargs: object) -> set[int]:
        raise AssertionError("searched again")

    monkeypatch.setattr(mentions, "units_holding", no_search)
    ahead.start()  # the askers below wait for it
    try:
        got = {name: units_mentioning(sections, offsets, name) for name in _NAMES}
    finally:
        ahead.join()
    assert got == expected
    assert ".debug_info" not in sections._inflated and ".debug_info" not in sections._partial


def test_a_needle_found_too_often_ahead_is_searched_by_its_asker(builds: tuple[Path, Path],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    sections, offsets, expected = _searched(builds)
    monkeypatch.setattr(mentions, "_CAP", 1)
    needles = mention_needles(sections, "shared_name") or []
    mentions.search_ahead(sections, mentions.plan(sections, needles))
    assert units_mentioning(sections, offsets, "shared_name") == expected["shared_name"]
    released = mention_needles(sections, "helper_17") or []
    mentions.release(sections, mentions.plan(sections, released))  # the thread stopped first
    assert units_mentioning(sections, offsets, "helper_17") == expected["helper_17"]


def test_windows_of_a_compressed_section_are_its_bytes(builds: tuple[Path, Path]) -> None:
    packed, plain = builds
    whole = ElfSections(str(plain)).get(".debug_info")
    reader = ElfSections(str(packed)).window_reader(".debug_info")
    assert reader is not None
    got = bytearray()
    for start in range(0, len(whole), 1000):
        window = reader.read(start, 1000 + 7)  # overlapping, as the search reads
        assert bytes(window) == whole[start : start + 1007]
        got += window[:1000]
    assert bytes(got) == whole
    needle = whole[40:44]
    every = []
    at = whole.find(needle)
    while at >= 0:
        every.append(at)
        at = whole.find(needle, at + 1)
    found = sectionsearch.hit_positions(
        ElfSections(str(packed)), ".debug_info", [needle], 1 << 20, 1000
    )
    assert found[needle] == every and every


def test_the_dwz_check_reads_the_first_units_abbreviations_only(builds: tuple[Path, Path],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    """altfile.shares_units looks at the first unit's abbreviation table: libc6-dbg's whole
    .debug_abbrev (1 MB inflated) was kept for that one look."""
    packed, _plain = builds
    read: list[int | None] = []
    whole_read = ElfSections.read

    def counted(self: ElfSections, name: str, offset: int, size: int | None) -> bytes:
        if name == ".debug_abbrev":
            read.append(size)
        return whole_read(self, name, offset, size)

    monkeypatch.setattr(ElfSections, "read", counted)
    assert not altfile.shares_units(ElfSections(str(packed)))
    assert read and None not in read  # not the whole section (get's read(..., None))
    assert read == [altfile._ABBREV_WINDOW]
    monkeypatch.setattr(altfile, "_ABBREV_WINDOW", 3)  # the table runs past it: read whole
    assert not altfile.shares_units(ElfSections(str(packed)))
    assert read[1:] == [3, None]
