"""Debug info compressed by dwz (Debian's dh_dwz runs it on most -dbgsym packages): types
and an inline function's abstract instance moved to partial units that the units import
(DW_TAG_imported_unit), with `dwz -m` to a common alt file that `.gnu_debugaltlink` names
(DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt). `-batch` sessions of break by name and by
file:line, run, bt with inlined frames, info args / locals, print and ptype of the shared
structs print what gdb 13 prints on the same programs."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.batch import PATIENCE, batch_in_program_dir
from tests.support.build import DEFAULT_FLAGS, PROGRAMS_DIR, Builder, compile_cached, marker_line
from tests.support.build_more import CPP_FLAGS, find_cxx
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.gdb import gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(shutil.which("dwz") is None,
                       reason="dwz not installed (scripts/setup.sh installs it): no dwz'd program to debug"),  # fmt: skip
]

HEADER = PROGRAMS_DIR / "dwz_shapes.h"
PART = PROGRAMS_DIR / "dwz_shapes_part.c"
ALT = ".dwz/shapes.debug"  # relative to the debug file's directory, as dh_dwz's are

# a partial unit's symbols: its own symtab, "<unknown>" (it has no DW_AT_name), once
INFO_COMMANDS = ["info types shape", "info types point", "info functions area", "info variables shape"]
RUN_COMMANDS = [
    "break shape_area", "break grow", f"break {HEADER.name}:{marker_line(HEADER, 'dwz_inline')}",
    f"break {PART.name}:{marker_line(PART, 'dwz_grow')}",
    "run", "bt", "info args", "info locals", "print *s", "print s->corner", "ptype s",
    "ptype struct shape", "ptype shape_t", "whatis *s", "print sizeof(struct shape)",
    "continue", "bt", "info locals", "print s->size", "up", "info locals", "print local",
    # in area_of inlined into shape_area: its own locals are not set yet (stack bytes)
    "continue", "bt", "info args", "print *s", "up", "info locals", "print g_shape",
    "ptype g_shape",
    "continue", "bt", "up", "info locals", "print where", "ptype where", "up", "info locals",
    "ptype local", "continue",
]  # fmt: skip
COMMANDS = [*INFO_COMMANDS, *RUN_COMMANDS]
# `break area_of` (an inline function whose abstract instance dwz moved): gdb 13 binds it to
# one of its two copies when asked before the first run, to both after; asked after.
AREA_COMMANDS = ["break grow", "run", "break area_of", "info breakpoints", "continue", "bt",
                 "info args", "continue", "bt", "continue"]  # fmt: skip


GEO = PROGRAMS_DIR / "dwz_geo.cpp"
GEO_COMMANDS = [
    "break geo::total", f"break {GEO.name}:{marker_line(GEO, 'dwz_geo_main')}", "run", "bt",
    "info locals", "print all", "print all[0]", "print p", "ptype p", "ptype geo::Shape",
    "whatis all", "continue", "bt", "info args", "info locals", "print all[0].name_",
    "whatis all[0]", "up", "info locals", "continue",
]  # fmt: skip


@pytest.fixture(scope="module")
def dwz_programs(builder: Builder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """one, two: dwz -m'd with the alt file .dwz/shapes.debug; plain: dwz'd alone."""
    built = builder.build("dwz_shapes", also=["dwz_shapes_part"])
    where = tmp_path_factory.mktemp("dwz")
    for name in ("one", "two", "plain"):
        shutil.copy(built, where / name)
    (where / ".dwz").mkdir()
    subprocess.run(["dwz", "-m", ALT, "-M", ALT, "one", "two"], cwd=where, check=True, timeout=PATIENCE)
    subprocess.run(["dwz", "plain"], cwd=where, check=True, timeout=PATIENCE)
    # relative: units named by relative paths, as most packages' are (a partial unit that
    # shares a unit's line table must not rename its files: `main () at /abs/dwz_shapes.c`)
    subprocess.run([builder.compiler, *DEFAULT_FLAGS, "-o", str(where / "relative"), "dwz_shapes.c",
                    "dwz_shapes_part.c"], cwd=PROGRAMS_DIR, check=True, timeout=PATIENCE)  # fmt: skip
    subprocess.run(["dwz", "relative"], cwd=where, check=True, timeout=PATIENCE)
    assert (where / ALT).is_file()
    return where


def _readelf(program: Path, *args: str) -> str:
    return subprocess.run(["readelf", *args, str(program)], stdout=subprocess.PIPE, text=True,
                          check=True, timeout=PATIENCE).stdout  # fmt: skip


@pytest.mark.parametrize("name", ["one", "two", "plain", "relative"])
def test_a_dwz_program_prints_what_gdb_prints(dwz_programs: Path, name: str) -> None:
    program = dwz_programs / name
    sections = _readelf(program, "-S")
    assert (".gnu_debugaltlink" in sections) == (name in ("one", "two"))  # dwz did its work
    if name not in ("one", "two"):
        assert "DW_TAG_partial_unit" in _readelf(program, "--debug-dump=info")
    expected = batch_in_program_dir([gdb_path() or "gdb"], COMMANDS, program)
    assert "Breakpoint 3.1, area_of (s=" in expected and "exited normally" in expected  # the oracle ran
    assert "#1  report (s=" in expected and "delta = {x = 2, y = 2}" in expected
    got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], COMMANDS, program)
    assert got.splitlines() == expected.splitlines()


def test_a_dwarf5_supplementary_file_is_read(builder: Builder, tmp_path: Path) -> None:
    """dwz -5: DWARF 5's forms of the same (.debug_sup, DW_FORM_ref_sup4, strp_sup), which
    gdb 13 cannot read ('Dwarf Error: Cannot handle DW_FORM_strp_sup'): the session prints
    what gdb prints on the program before dwz."""
    built = builder.build("dwz_shapes", also=["dwz_shapes_part"])
    for where in ("sup", "org"):  # names alike: the same stack addresses
        (tmp_path / where).mkdir()
        shutil.copy(built, tmp_path / where / "one")
    shutil.copy(built, tmp_path / "sup" / "two")
    subprocess.run(["dwz", "-5", "-m", "shapes.sup", "-M", "shapes.sup", "one", "two"], cwd=tmp_path / "sup",
                   check=True, timeout=PATIENCE)  # fmt: skip
    assert ".debug_sup" in _readelf(tmp_path / "sup" / "one", "-S")
    expected = batch_in_program_dir([gdb_path() or "gdb"], RUN_COMMANDS, tmp_path / "org" / "one")
    assert "Breakpoint 3.1, area_of (s=" in expected and "exited normally" in expected
    got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], RUN_COMMANDS, tmp_path / "sup" / "one")
    assert got.splitlines() == expected.splitlines()


@pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")
def test_a_dwz_cplusplus_program_prints_what_gdb_prints(builder: Builder, tmp_path: Path) -> None:
    """Its partial units have no DW_AT_language: C++ names (`geo::Point`, std::vector's
    printer) need the importing units' language; the type-name index reads the alt file."""
    compiler = find_cxx() or "g++"
    version = subprocess.run([compiler, "--version"], stdout=subprocess.PIPE, text=True,
                             check=True, timeout=PATIENCE).stdout  # fmt: skip
    built = compile_cached(compiler, version, GEO, CPP_FLAGS, builder.cache_dir, {},
                           [PROGRAMS_DIR / "dwz_geo_part.cpp"])  # fmt: skip
    for name in ("one", "two", "plain"):
        shutil.copy(built, tmp_path / name)
    (tmp_path / ".dwz").mkdir()
    subprocess.run(["dwz", "-m", ALT, "-M", ALT, "one", "two"], cwd=tmp_path, check=True, timeout=PATIENCE)
    subprocess.run(["dwz", "plain"], cwd=tmp_path, check=True, timeout=PATIENCE)
    for name in ("one", "plain"):
        expected = batch_in_program_dir([gdb_path() or "gdb"], GEO_COMMANDS, tmp_path / name)
        assert "std::vector of length 1" in expected and "class geo::Shape {" in expected
        got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], GEO_COMMANDS, tmp_path / name)
        assert got.splitlines() == expected.splitlines(), name


@pytest.mark.parametrize("name", ["one", "plain"])
def test_break_on_a_dwz_inline_function(dwz_programs: Path, name: str) -> None:
    expected = batch_in_program_dir([gdb_path() or "gdb"], AREA_COMMANDS, dwz_programs / name)
    assert "Breakpoint 2.1, area_of (" in expected and "Breakpoint 2.2, area_of (" in expected
    got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], AREA_COMMANDS, dwz_programs / name)
    assert got.splitlines() == expected.splitlines()


def test_without_its_alt_file_no_dwarf_is_read(dwz_programs: Path, tmp_path: Path) -> None:
    """gdb reads none of a debug file's DWARF when the alt file it names is not found:
    only the symbol table's names, no lines, no types."""
    shutil.copy(dwz_programs / "one", tmp_path / "one")
    commands = ["break grow", "run", "bt", "ptype struct shape", "continue"]
    expected = batch_in_program_dir([gdb_path() or "gdb"], commands, tmp_path / "one")
    message = f"could not find '.gnu_debugaltlink' file for {tmp_path / 'one'}"
    assert expected.splitlines()[0].lower() == message and "in grow ()" in expected
    got = batch_in_program_dir([sys.executable, "-m", "aliceserver"], commands, tmp_path / "one")
    # gdb's error, once; told when the symbol probe reads the file: after the first
    # command's answer, where gdb tells it first
    assert got.splitlines().count(message) == 1
    assert [line for line in got.splitlines() if line != message] == expected.splitlines()[1:]


def _shown(client: DapClient, variable: dict[str, Any]) -> str:
    """A DAP variable as gdb prints it: a struct's children as `{x = 1, y = 2}`."""
    reference = variable.get("variablesReference")
    if not reference or str(variable["value"]).startswith("0x"):  # a pointer: its value
        return str(variable["value"])
    kids = client.variables(int(reference))
    return "{" + ", ".join(f"{kid['name']} = {_shown(client, kid)}" for kid in kids) + "}"


def test_dap_frames_and_variables_of_a_dwz_program(dwz_programs: Path) -> None:
    """DAP's stack (with the inlined frame) and locals, their structs expanded, are gdb's
    bt and info locals, in the alt-file program."""
    program = dwz_programs / "one"
    stops = {PART: marker_line(PART, "dwz_grow"), HEADER: marker_line(HEADER, "dwz_inline")}
    gdb_commands = [f"break {source.name}:{line}" for source, line in stops.items()]
    # in area_of's inlined copy its own locals are not set yet (stack bytes): its caller's
    gdb_commands += ["run", "bt", "info locals", "up", "info locals", "continue", "bt", "up", "info locals"]
    expected = batch_in_program_dir([gdb_path() or "gdb"], gdb_commands, program)
    local_lines = [line for line in expected.splitlines() if re.match(r"\w+ = ", line)]
    # bt's lines (`up` prints its frame's line too, after them): #0 starts each bt
    frame_lines: list[list[str]] = []
    for line in expected.splitlines():
        if line.startswith("#0 "):
            frame_lines.append([])
        if line.startswith("#") and frame_lines and len(frame_lines[-1]) == int(line[1:].split()[0]):
            frame_lines[-1].append(line.split(" (")[0].split()[-1])
    frame_names = [name for names in frame_lines for name in names]
    assert "delta = {x = 2, y = 2}" in local_lines and "total = 2" in local_lines  # the oracle ran
    assert frame_names == ["grow", "main", "area_of", "shape_area", "main"]
    got_locals: list[str] = []
    got_frames: list[str] = []
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, program, breakpoints={str(source): [line] for source, line in stops.items()})
        for _stop in range(2):
            thread = client.threads()[0]["id"]
            frames = client.stack_trace(thread)
            got_frames += [frame["name"] for frame in frames if frame["name"] != "__libc_start_call_main"]
            for frame in frames[_stop : 2]:
                scope = next(s for s in client.scopes(frame["id"]) if s["name"].startswith("Local"))
                got_locals += [f"{v['name']} = {_shown(client, v)}" for v in client.variables(scope["variablesReference"])]
            mark = client.mark()
            client.call("continue", {"threadId": thread})
            client.wait_event("stopped", since=mark)
    assert got_locals == local_lines
    assert [name.split("(")[0] for name in got_frames if "libc" not in name and name != "_start"] == frame_names


def test_an_alt_file_is_found_as_gdb_finds_it(builder: Builder, tmp_path: Path) -> None:
    """An absolute `.dwz/` name not found where it says: under each debug directory (gdb's
    dwz_search_other_debugdirs); a file there with another build-id is passed over."""
    from aliceserver.debuggers.symbols.dwarf.altfile import alt_link, find_alt_file
    from aliceserver.debuggers.symbols.dwarf.sections import ElfSections

    built = builder.build("dwz_shapes", also=["dwz_shapes_part"])
    for name in ("one", "two"):
        shutil.copy(built, tmp_path / name)
    named = "/usr/lib/debug/.dwz/aliceserver-tests/shapes.debug"  # not on this machine
    subprocess.run(["dwz", "-m", "made.debug", "-M", named, "one", "two"], cwd=tmp_path, check=True,
                   timeout=PATIENCE)  # fmt: skip
    wrong, right = tmp_path / "wrong", tmp_path / "right"
    for root in (wrong, right):
        (root / ".dwz" / "aliceserver-tests").mkdir(parents=True)
    shutil.copy(tmp_path / "made.debug", right / ".dwz" / "aliceserver-tests" / "shapes.debug")
    shutil.copy(tmp_path / "one", wrong / ".dwz" / "aliceserver-tests" / "shapes.debug")
    sections = ElfSections(str(tmp_path / "one"))
    link = alt_link(sections)
    assert link is not None and link.name == named and len(link.build_id) == 20
    found = find_alt_file(sections.path, link, [str(wrong), str(right)])
    assert found is not None and found.path == str(right / ".dwz" / "aliceserver-tests" / "shapes.debug")
    assert find_alt_file(sections.path, link, [str(wrong)]) is None
