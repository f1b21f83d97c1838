"""A program whose own shared library the loader finds by a relative path (`-L. -lNAME`
run with LD_LIBRARY_PATH=.): the link map names it `./libNAME.so`, relative to the
program's working directory, which under DAP is launch.json's `cwd`, not the adapter's.
Breakpoints set in the library before configurationDone (on its function, on a line of its
source) must bind when it loads and stop there, as with lldb-vscode-16."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import find_lldb_vscode
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.dap_client import DapClient
from tests.support.dap_session import alice_session, launch_arguments, spawned, start_session

pytestmark = pytest.mark.timeout(180)

IN_LIBRARY = marker_line("lib_solib.c", "solib_step")
LIBRARY_SOURCE = PROGRAMS_DIR / "lib_solib.c"


@pytest.fixture
def relative(builder: Builder, tmp_path: Path) -> tuple[Path, Path]:
    """(program, its working directory): the library is found there only through `.`."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    library = builder.build("lib_solib", extra=["-shared", "-fPIC"])
    shutil.copy(library, workdir / "libsolibrel.so")
    program = builder.build("solib_main", extra=["-Wl,--no-as-needed", f"-L{workdir}", "-lsolibrel"])
    return program, workdir


def _seen(client: DapClient, program: Path, workdir: Path, env: Any) -> dict[str, Any]:
    """Where the program stops and what the client heard of the two breakpoints."""
    source = LIBRARY_SOURCE
    launch = launch_arguments(program, cwd=workdir, env=env)
    session = start_session(client, program, launch=launch, breakpoints={source: [IN_LIBRARY]},
                            function_breakpoints=["solib_step"])  # fmt: skip
    assert session.stop is not None and session.stop["event"] == "stopped", session.stop
    frame = client.stack_trace(session.thread_id)[0]
    ids = [session.breakpoints[str(source)][0]["id"], session.function_breakpoints[0]["id"]]
    last: dict[int, dict[str, Any]] = {}
    for event in client.events:
        if event.get("event") == "breakpoint" and event["body"]["reason"] == "changed":
            last[event["body"]["breakpoint"]["id"]] = event["body"]["breakpoint"]
    return {
        "stop": (session.stop["body"]["reason"], frame["name"], frame["line"], frame["source"]["path"]),
        "bound": [(last[i]["verified"], last[i].get("line")) if i in last else None for i in ids],
    }


def test_library_found_relative_to_the_programs_cwd(relative: tuple[Path, Path]) -> None:
    program, workdir = relative
    with alice_session() as client:
        got = _seen(client, program, workdir, {"LD_LIBRARY_PATH": "."})
        modules = [e["body"]["module"]["path"] for e in client.events if e.get("event") == "module"]
    assert got == {"stop": ("breakpoint", "solib_step", IN_LIBRARY, str(LIBRARY_SOURCE)),
                   "bound": [(True, IN_LIBRARY), (True, IN_LIBRARY)]}  # fmt: skip
    assert str(workdir / "libsolibrel.so") in modules  # the file the loader opened


def test_like_lldb_vscode(relative: tuple[Path, Path]) -> None:
    lldb_vscode = find_lldb_vscode()
    if lldb_vscode is None:
        pytest.skip("lldb-vscode-16 not found (Debian package lldb-16): it is the reference")
    built, workdir = relative
    # Beside its library: lldb-vscode-16 misses the library when the program is in
    # another directory than the one `.` means (the first test's case, which we handle).
    program = Path(shutil.copy(built, workdir / built.name))
    with spawned([lldb_vscode], validate=False, strict_seq=False) as client:
        expected = _seen(client, program, workdir, ["LD_LIBRARY_PATH=."])
    with alice_session() as client:
        got = _seen(client, program, workdir, {"LD_LIBRARY_PATH": "."})
    assert got == expected
