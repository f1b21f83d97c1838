"""file:line, function names and addresses in C programs, compared with gdb."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.unit.symbols.dwarf_lines.support import (
    C_SOURCES,
    Builder,
    gdb_breaks,
    gdb_info_lines,
    load,
    need_gdb,
)

DWARF_VERSIONS = ("-gdwarf-4", "-gdwarf-5")
FUNCTIONS = ["main", "compute", "add", "helper"]


def _line_specs() -> list[str]:
    specs = []
    for rel in ("src/a.c", "src/b.c", "src/util.h"):
        for number in range(1, C_SOURCES[rel].count("\n") + 1):
            specs.append(f"{os.path.basename(rel)}:{number}")
    return specs


@pytest.fixture(scope="module", params=DWARF_VERSIONS)
def c_o0(request: pytest.FixtureRequest, builder: Builder) -> Path:
    return builder.build(C_SOURCES, ("-g", request.param, "-O0"))


@pytest.fixture(scope="module", params=DWARF_VERSIONS)
def c_o2(request: pytest.FixtureRequest, builder: Builder) -> Path:
    return builder.build(C_SOURCES, ("-g", request.param, "-O2"))


def test_o0_lines_match_gdb(c_o0: Path) -> None:
    need_gdb()
    info = load(c_o0)
    specs = _line_specs()
    oracle = gdb_breaks(c_o0, specs)
    for spec in specs:
        file, number = spec.rsplit(":", 1)
        ours = info.resolve_line(file, int(number))
        theirs = oracle[spec]
        if not theirs:
            assert ours is None or ours.line > int(number), spec
            continue
        assert ours is not None, spec
        assert set(ours.addresses) == {loc.address for loc in theirs}, spec
        assert ours.line == theirs[0].line, spec


def test_o2_lines_are_among_gdbs(c_o2: Path) -> None:
    # gdb splits locations by inlined block (from the DIE tree); we bind one per function.
    need_gdb()
    info = load(c_o2)
    specs = _line_specs()
    oracle = gdb_breaks(c_o2, specs)
    compared = 0
    for spec in specs:
        file, number = spec.rsplit(":", 1)
        theirs = {loc.address for loc in oracle[spec]}
        ours = info.resolve_line(file, int(number))
        if not theirs or ours is None:
            continue
        assert set(ours.addresses) <= theirs, spec
        compared += 1
    assert compared >= 5


@pytest.mark.parametrize("optimize", ["-O0", "-O2"])
def test_function_breakpoints_match_gdb(builder: Builder, optimize: str) -> None:
    need_gdb()
    program = builder.build(C_SOURCES, ("-g", optimize))
    info = load(program)
    oracle = gdb_breaks(program, FUNCTIONS)
    for name in FUNCTIONS:
        found = info.functions_named(name)
        assert len(found) == 1, name
        theirs = oracle[name]
        # At -O2 gdb adds the inlined copies (from the DIE tree): ours is the out-of-line one.
        match = [loc for loc in theirs if loc.address == found[0].breakpoint_address]
        assert match, (name, found, theirs)
        assert found[0].line == match[0].line
        assert found[0].file is not None and found[0].file.endswith(match[0].file or "")


def test_info_line_matches_gdb(c_o0: Path) -> None:
    need_gdb()
    info = load(c_o0)
    addresses = []
    for name in FUNCTIONS:
        (function,) = info.functions_named(name)
        addresses += list(range(function.low, function.high, 3))
    oracle = gdb_info_lines(c_o0, addresses)
    for address in addresses:
        ours = info.location_at(address)
        theirs = oracle[address]
        assert theirs is not None and ours is not None, hex(address)
        assert (ours.line, ours.address) == (theirs[0], theirs[2]), hex(address)
        assert ours.file.endswith(theirs[1])


def test_same_header_line_binds_in_both_units(c_o0: Path) -> None:
    info = load(c_o0)
    found = info.resolve_line("util.h", 3)
    assert found is not None and len(found.addresses) == 2
    units = {info.cu_offset_at(a) for a in found.addresses}
    assert len(units) == 2 and None not in units


def test_line_without_code_moves_to_next(c_o0: Path) -> None:
    info = load(c_o0)
    found = info.resolve_line("a.c", 11)  # the blank line inside compute
    assert found is not None
    assert (found.requested_line, found.line) == (11, 12)
    assert info.resolve_line("a.c", 500) is None
    assert info.resolve_line("nosuch.c", 3) is None


def test_file_name_forms(c_o0: Path, tmp_path: Path) -> None:
    info = load(c_o0)
    src = c_o0.parent / "src"
    expected = info.resolve_line("a.c", 8)
    assert expected is not None and expected.file == str(src / "a.c")
    link = tmp_path / "linked"
    link.symlink_to(src)
    for form in ("a.c", "src/a.c", "./src/a.c", "../x/../src/a.c", str(src / "a.c"),
                 str(src / "." / "a.c"), str(link / "a.c")):  # fmt: skip
        got = info.resolve_line(form, 8)
        assert got is not None and got.addresses == expected.addresses, form
    assert info.resolve_line("rc/a.c", 8) is None  # whole components only
    assert str(src / "a.c") in info.source_files()


def test_line_stepping_ranges(c_o0: Path) -> None:
    info = load(c_o0)
    (compute,) = info.functions_named("compute")
    address = compute.breakpoint_address
    where = info.location_at(address)
    assert where is not None and where.line == 8 and where.is_stmt
    assert info.is_statement_start(address)
    span = info.line_range_at(address + 1)
    assert span is not None and span[0] == address
    after = info.location_at(span[1])
    assert after is not None and after.line != 8
    assert info.function_at(address + 1) == compute
    assert info.location_at(0) is None and info.line_range_at(0) is None


def test_compressed_debug_sections(builder: Builder) -> None:
    plain = load(builder.build(C_SOURCES, ("-g", "-O0")))
    program = builder.build(C_SOURCES, ("-g", "-O0", "-gz"))
    sections = subprocess.run(["readelf", "-SW", str(program)], capture_output=True, text=True)
    if " C " not in sections.stdout and "C (compressed)" not in sections.stdout:
        pytest.skip("this toolchain does not compress debug sections with -gz")
    info = load(program)
    for name in FUNCTIONS:
        assert [f.line for f in info.functions_named(name)] == [
            f.line for f in plain.functions_named(name)
        ]
    found = info.resolve_line("util.h", 3)
    assert found is not None and len(found.addresses) == 2


def _objcopy(*args: str) -> None:
    subprocess.run(["objcopy", *args], check=True, capture_output=True)


def test_separate_debug_file_by_debuglink(builder: Builder, tmp_path: Path) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0"))
    debug = tmp_path / "prog.debug"
    stripped = tmp_path / "prog"
    _objcopy("--only-keep-debug", str(program), str(debug))
    _objcopy("--strip-debug", f"--add-gnu-debuglink={debug}", str(program), str(stripped))
    info = load(stripped)
    assert info.debug_file == str(debug)
    (main,) = info.functions_named("main")
    assert main == load(program).functions_named("main")[0]
    debug.write_bytes(debug.read_bytes() + b"x")  # a CRC mismatch: not used
    assert DebugInfo.load(_image(stripped)) is None


def _image(path: Path) -> ElfImage:
    return ElfImage.load(str(path))


def test_separate_debug_file_by_build_id(builder: Builder, tmp_path: Path) -> None:
    program = builder.build(C_SOURCES, ("-g", "-O0", "-Wl,--build-id"))
    image = _image(program)
    assert image.build_id
    root = tmp_path / "debug"
    target = root / ".build-id" / image.build_id[:2] / f"{image.build_id[2:]}.debug"
    target.parent.mkdir(parents=True)
    stripped = tmp_path / "prog"
    _objcopy("--only-keep-debug", str(program), str(target))
    _objcopy("--strip-debug", str(program), str(stripped))
    assert DebugInfo.load(_image(stripped), debug_dirs=[str(tmp_path / "elsewhere")]) is None
    info = DebugInfo.load(_image(stripped), debug_dirs=[str(root)])
    assert info is not None and info.debug_file == str(target)
    found = info.resolve_line("a.c", 8)
    assert found is not None and found.addresses == load(program).resolve_line("a.c", 8).addresses  # type: ignore[union-attr]


def test_no_dwarf(builder: Builder) -> None:
    program = builder.build(C_SOURCES, ("-O0",))
    assert DebugInfo.load(_image(program)) is None
