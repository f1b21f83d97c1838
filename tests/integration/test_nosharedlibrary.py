"""gdb's `nosharedlibrary` and `sharedlibrary [REGEX]`, compared with gdb 13 on a program
with a shared library of its own and libc: without their symbols the libraries' frames
are `?? () from LIB`, breakpoints in them pending, `info sharedlibrary` says No, `info
sources` and `print` know only the program; `sharedlibrary` (or the loader's next change,
as gdb's auto-solib-add) reads them again. Under -batch and MI (where gdb announces
=library-unloaded, reads with "Reading symbols from" and re-binds with =breakpoint-modified)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.cores import gdb_batch, gdb_gcore
from tests.support.events import EventLog
from tests.support.mi_client import MiClient
from tests.support.session import launch

pytestmark = [needs_gdb, pytest.mark.timeout(180), pytest.mark.both_backends]

LOADED = marker_line("dlopen_main.c", "loaded")


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    library = builder.build("lib_solib", extra=["-shared", "-fPIC"])
    return builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)])


def test_dropped_and_read_again_like_gdb(program: Path) -> None:
    commands = [
        "nosharedlibrary", "sharedlibrary", "break main", "run", "break solib_step", "continue",
        "nosharedlibrary", "info sharedlibrary", "bt 1", "info breakpoints", "print solib_counter",
        "print environ", "info sources", "info symbol $pc", "sharedlibrary lib_solib", "bt",
        "info sharedlibrary", "info breakpoints", "print solib_counter", "sharedlibrary",
        "info sharedlibrary", "nosharedlibrary", "continue",
    ]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert re.search(r"  No {10}\S+/lib_solib\n", got.stdout)
    assert "in ?? () from " in got.stdout and "<PENDING>          solib_step" in got.stdout
    assert 'No symbol "solib_counter" in current context.' in got.stderr


def test_step_over_a_library_without_its_symbols_like_gdb(program: Path) -> None:
    """A call into a library without symbols is stepped over (its return address found
    by the library's call frame information, which stays with the mapping)."""
    commands = ["break main", "run", "nosharedlibrary", "step", "step", "bt", "x/i $pc"]
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert got.stdout.count("solib_step(") == 2 and "#0  main () at " in got.stdout


def test_loader_news_read_them_again_like_gdb(builder: Builder) -> None:
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])
    prog = builder.build("dlopen_main", extra=["-ldl"])
    commands = ["break main", "run", "nosharedlibrary", "info sharedlibrary", f"break {LOADED}", "continue",
                "info sharedlibrary"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), "--args", str(prog), str(library)], prog.parent)
    assert got.stdout.count("Shared Object Library") == 2
    assert re.search(r"  No {10}\S+libc.so", got.stdout) and re.search(r"  Yes( \(\*\))? +\S+libc.so", got.stdout)


def _mi(program: Path, *, gdb: bool) -> list[str]:
    """What each command answers, after the stop in the library (the lines after the
    command's echo, without the prompt)."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-break-insert main")
        mi.ok("-exec-run")
        mi.stopped()
        mi.ok("-break-insert solib_step")
        mi.ok("-exec-continue")
        mi.stopped()
        answers = []
        for command in ["nosharedlibrary", "-file-list-shared-libraries", "-stack-list-frames 0 0", "-break-list",
                        "sharedlibrary lib_solib", '-interpreter-exec console "sharedlibrary nomatch"',
                        '-interpreter-exec console "sharedlibrary"', "-file-list-shared-libraries",
                        "-data-evaluate-expression solib_counter"]:  # fmt: skip
            _record, seen = mi.command(command)
            answers += [line for line in seen if not line.startswith(("&", "(gdb)"))]
        return answers
    finally:
        mi.close()


def test_mi_like_gdb(program: Path) -> None:
    got = _mi(program, gdb=False)
    assert got == _mi(program, gdb=True)
    assert any(line.startswith("=library-unloaded") for line in got)
    assert any('symbols-loaded="0"' in line for line in got)


def test_engine_keeps_the_libraries_mapped(debugger: Any, events: EventLog, program: Path) -> None:
    """The engine's side: the libraries stay in its module list (DAP's modules, the hosted
    console's library list) with their symbols marked unread, and come back where they were."""
    launch(debugger, program)
    debugger.insert_location_breakpoint("main")
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=30)
    before = debugger.modules()
    library = next(m for m in before if m.path.endswith("lib_solib"))
    assert debugger.resolve_location("solib_step")
    dropped = debugger.unload_library_symbols()
    assert library in dropped and not any(m.is_main for m in dropped)
    assert sorted(m.path for m in debugger.modules()) == sorted(m.path for m in before)
    assert not debugger.symbols_loaded(library.path) and debugger.symbols_loaded(before[0].path)
    # gdb's trampoline symbol: only the program's PLT stub is left to bind to
    assert [place.function for place in debugger.resolve_location("solib_step")] == ["solib_step@plt"]
    assert debugger.load_library_symbols([library.path])[0].module == library
    assert debugger.symbols_loaded(library.path) and debugger.resolve_location("solib_step")
    assert debugger.evaluate("solib_counter", stop.thread_id).value == "0"


def test_engine_lists_the_libraries_in_gdbs_order(
    debugger: Any, events: EventLog, program: Path, tmp_path: Path, backend: str
) -> None:
    """The libraries in the order gdb's `info sharedlibrary` has them on the same target:
    live, the loader first (gdb saw it first); on a core, the link map's order, the loader last."""
    core = tmp_path / "gdb.core"
    gdb_gcore(program, [], "main", core)
    on_core = gdb_batch(program, core, ["info sharedlibrary"])
    live = gdb_batch(program, None, ["break main", "run", "info sharedlibrary"])
    row = r"^0x[0-9a-f]+\s+0x[0-9a-f]+\s+\w+\s+(/\S+)$"
    listed = re.findall(row, on_core if backend == "core" else live, re.M)
    assert len(listed) >= 3, listed  # lib_solib, libc and the loader
    launch(debugger, program)
    debugger.insert_location_breakpoint("main")
    debugger.resume()
    events.wait_for(Stopped, timeout=30)
    ours = [module.path for module in debugger.modules() if not module.is_main]
    assert [os.path.realpath(path) for path in ours] == [os.path.realpath(path) for path in listed]


def test_a_cores_library_symbols_dropped_and_read_again_like_gdb(program: Path, tmp_path: Path) -> None:
    """On a core (gdb's gcore in the library), as live: `nosharedlibrary` drops the
    libraries' symbols, `sharedlibrary` reads them again. (Frame 0 alone: without the
    library's symbols gdb unwinds its frame by guesswork on a core.)"""
    core = tmp_path / "gdb.core"
    gdb_gcore(program, [], "solib_step", core)
    commands = ["nosharedlibrary", "info sharedlibrary", "bt 1", "print solib_counter", "sharedlibrary", "bt 1"]
    got = assert_like_gdb([*ex(*commands), str(program), str(core)], tmp_path)
    assert re.search(r"  No {10}\S+/lib_solib\n", got.stdout) and "in ?? () from " in got.stdout
