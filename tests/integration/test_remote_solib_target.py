"""A stub with no SVR4 loader (Windows gdbserver, embedded stubs) lists the libraries
itself with qXfer:libraries:read and says `library` in the stop reply when they change
(gdb's solib-target). Here a proxy makes Linux gdbserver look so (rsp_solib_target.py):
no svr4 list, no link map to read. The library's breakpoint is hit and its rows and
frames are gdb 13's over the same proxy (gdb told `set osabi none`, which gives it
solib-target on x86-64)."""

from __future__ import annotations

import difflib
import re
import shutil
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver
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
