"""A stub with no SVR4 loader (Windows gdbserver, embedded stubs) lists the libraries
itself with qXfer:libraries:read and says `library` in the stop reply when they change
(gdb's solib-target). Here a proxy makes Linux gdbserver look so (rsp_solib_target.py):
no svr4 list, no link map to read. The library's breakpoint is hit and its rows and
frames are gdb 13's over the same proxy (gdb told `set osabi none`, which gives it
solib-target on x86-64)."""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.gdbserver import gdbserver
from tests.support.mi_client import ROOT
from tests.support.rsp_solib_target import solib_target_proxy

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def linked(builder: Builder, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A program at its link-time address (gdb's solib-target relocates no program) that
    needs its own library, named by its absolute path."""
    root = tmp_path_factory.mktemp("solib-target")
    library = root / "lib_solib"
    shutil.copy(builder.build("lib_solib", extra=["-shared", "-fPIC"]), library)
    return builder.build("solib_main", extra=["-no-pie", "-Wl,--no-as-needed", str(library)])


def _normalized(text: str) -> str:
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", normalized(text))
    return re.sub(r"/[^\s:]*/solib-target\d*/", "ROOT/", text)


def test_libraries_from_the_stubs_own_list_like_gdb(linked: Path, tmp_path: Path) -> None:
    commands = ["target remote {target}", "info sharedlibrary", "break solib_step", "continue", "bt",
                "info sharedlibrary", "kill"]  # fmt: skip
    said, stops = [], []
    for run, options in ((theirs, ["-iex", "set osabi none"]), (ours, [])):
        with gdbserver(linked) as server, solib_target_proxy(server.address, linked) as proxy:
            lines = [c.replace("{target}", proxy.address) for c in commands]
            done = run(["-batch", "-nx", *options, *ex(*lines), str(linked)], tmp_path)
            said.append(_normalized(done.stdout) + "\n--stderr--\n" + _normalized(done.stderr))
            stops.append(proxy.library_stops)
    gdb, alice = said
    assert alice == gdb, "\n".join(
        difflib.unified_diff(gdb.splitlines(), alice.splitlines(), lineterm="")
    )
    assert stops[1] > 0  # the library came with a `library` stop
    assert re.search(r"0x[0-9a-f]+ +0x[0-9a-f]+ +Yes +target:ROOT/lib_solib", alice), alice
    assert "solib_step (x=1) at " in alice and "main () at " in alice


def test_mi_tells_the_listed_libraries_like_gdb(linked: Path, tmp_path: Path) -> None:
    """=library-loaded and -file-list-shared-libraries give the segments' range."""
    said = []
    for command, options in (([gdb_path() or "gdb"], ["-iex", "set osabi none"]),
                             ([sys.executable, "-m", "aliceserver"], [])):  # fmt: skip
        with gdbserver(linked) as server, solib_target_proxy(server.address, linked) as proxy:
            script = (f"-target-select remote {proxy.address}\n-break-insert solib_step\n"
                      "-exec-continue\n-file-list-shared-libraries\n-gdb-exit\n")  # fmt: skip
            env = dict(
                os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
            )
            done = subprocess.run([*command, "-nx", *options, "-i=mi", str(linked)], input=script, cwd=tmp_path,
                                  capture_output=True, text=True, timeout=120, env=env)  # fmt: skip
        said.append([line for line in done.stdout.splitlines()
                     if line.startswith(("=library-loaded", "^done,shared-libraries"))])  # fmt: skip
    assert said[1] == said[0]
    assert sum('=library-loaded,id="/' in line and "lib_solib" in line for line in said[1]) == 1, (
        said[1]
    )
