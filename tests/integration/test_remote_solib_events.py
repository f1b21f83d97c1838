"""The loader's events over gdbserver as gdb 13 tells them: `set stop-on-solib-events 1`
stops at each (the libraries loaded and unloaded, or none), in the console and in MI's
*stopped (reason="solib-event", added/removed, no frame); `catch load`/`catch unload`
stop at the matching ones. gdb reads gdbserver's list at each event, whatever the loader's
state, so a dlopen'ed library is told at the first of its two events."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_remote_session import _normalized
from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.gdbserver import gdbserver
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def plugin(builder: Builder) -> tuple[Path, Path]:
    return builder.build("dlopen_main", extra=["-ldl"]), builder.build("lib_plugin", extra=["-shared", "-fPIC"])


def _console(program: Path, library: Path, commands: list[str], cwd: Path) -> tuple[str, str]:
    said = []
    for run in (theirs, ours):
        with gdbserver(program, [str(library)]) as server:
            lines = ["set sysroot /", f"target remote {server.address}", *commands]
            done = run(["-batch", "-nx", *ex(*lines), str(program)], cwd)
            said.append(_normalized(done.stdout + "\n--stderr--\n" + done.stderr))
    return said[0], said[1]


def test_stop_on_solib_events_like_gdb(plugin: tuple[Path, Path], tmp_path: Path) -> None:
    program, library = plugin
    gdb, alice = _console(program, library, ["set stop-on-solib-events 1", "show stop-on-solib-events",
                                             *["continue", "bt 1", "info sharedlibrary"] * 6, "continue"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert alice.count("Stopped due to shared library event") == 6
    assert "  Inferior loaded /lib/x86_64-linux-gnu/libc.so.6\n" in alice
    assert re.search(r"  Inferior loaded \S+lib_plugin\n#0  __GI__dl_debug_state", alice)
    assert re.search(r"  Inferior unloaded \S+lib_plugin\n", alice)


def test_catch_load_and_unload_like_gdb(plugin: tuple[Path, Path], tmp_path: Path) -> None:
    program, library = plugin
    gdb, alice = _console(program, library, ["catch load lib_plugin", "catch unload", "continue", "bt 1",
                                             "continue", "bt 1", "continue", "info breakpoints"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "Catchpoint 1\n  Inferior loaded " in alice and "Catchpoint 2\n  Inferior unloaded " in alice


def test_mi_solib_event_stops_like_gdb(plugin: tuple[Path, Path], tmp_path: Path) -> None:
    program, library = plugin
    said = []
    for command in ([gdb_path() or "gdb"], [sys.executable, "-m", "aliceserver"]):
        with gdbserver(program, [str(library)]) as server:
            script = (f"-gdb-set sysroot /\n-target-select remote {server.address}\n"
                      "-gdb-set stop-on-solib-events 1\n" + "-exec-continue\n" * 4 + "-gdb-exit\n")  # fmt: skip
            env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
            done = subprocess.run([*command, "-nx", "-i=mi", str(program)], input=script, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=120, env=env)  # fmt: skip
        said.append([re.sub(r',core="\d+"', "", line) for line in done.stdout.splitlines()
                     if line.startswith(("*stopped", '~"Stopped due', '~"  Inferior'))])  # fmt: skip
    assert said[1] == said[0]
    assert sum('*stopped,reason="solib-event",added=[library=' in line for line in said[1]) == 2


def test_stop_on_solib_events_in_a_live_process_like_gdb(plugin: tuple[Path, Path], tmp_path: Path) -> None:
    """The live engine stops at the same events, the libraries read at each as gdb reads them."""
    program, library = plugin
    commands = ["set stop-on-solib-events 1", "run", *["bt 1", "info sharedlibrary", "continue"] * 6]
    said = [normalized(run(["-batch", "-nx", *ex(*commands), "--args", str(program), str(library)], tmp_path).stdout)
            for run in (theirs, ours)]  # fmt: skip
    assert said[1] == said[0]
    assert said[1].count("Stopped due to shared library event") == 6
