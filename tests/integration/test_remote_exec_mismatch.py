"""gdb's exec-file-mismatch over a real gdbserver that runs another build of the program
than the one loaded: ask (answered yes, no terminal) loads the stub's file, warn keeps
ours and says so, off says nothing; each as gdb 13 says and does (a function only the
stub's build has tells whose symbols are read)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, ours, theirs
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver
from tests.support.mi_client import MiClient

pytestmark = [pytest.mark.timeout(120), needs_gdb]

WARNING = "warning: Build ID mismatch between current exec-file"


def _said(loaded: Path, running: Path, cwd: Path, mode: str | None, *, gdb: bool) -> str:
    setting = [] if mode is None else [f"set exec-file-mismatch {mode}"]
    with gdbserver(running) as server:
        commands = ["set sysroot /", *setting, "show exec-file-mismatch", f"target remote {server.address}",
                    "ptype plugin_work", "kill"]  # fmt: skip
        done = (theirs if gdb else ours)(["-batch", "-nx", *ex(*commands), str(loaded)], cwd)
    return re.sub(r"process \d+", "process N", done.stdout + "\n--stderr--\n" + done.stderr)


@pytest.mark.parametrize("mode", [None, "warn", "off"])
def test_another_build_behind_the_stub_like_gdb(
    builder: Builder, tmp_path: Path, mode: str | None
) -> None:
    loaded = builder.build("mi_prog")
    running = builder.build("mi_prog", also=["lib_plugin"])  # another build, with plugin_work
    gdb = _said(loaded, running, tmp_path, mode, gdb=True)
    alice = _said(loaded, running, tmp_path, mode, gdb=False)
    assert alice == gdb
    assert (WARNING in alice) == (mode != "off")
    assert (f'Load new symbol table from "{running}"' in alice) == (mode is None)
    assert ("type = int (int)" in alice) == (mode is None)


def _mi_connect(loaded: Path, running: Path, cwd: Path, mode: str, *, gdb: bool) -> list[str]:
    """The records `-target-select remote` writes before its ^connected."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(loaded)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-gdb-set sysroot /")
        mi.ok(f"-gdb-set exec-file-mismatch {mode}")
        with gdbserver(running) as server:
            _, lines = mi.command(f"-target-select remote {server.address}")
            mi.command("kill")
        return [line for line in lines if line.startswith(("&", "~"))]
    finally:
        mi.close()


@pytest.mark.parametrize("mode", ["ask", "warn"])
def test_mi_says_the_mismatch_like_gdb(builder: Builder, tmp_path: Path, mode: str) -> None:
    loaded = builder.build("mi_prog")
    running = builder.build("mi_prog", also=["lib_plugin"])
    said = _mi_connect(loaded, running, tmp_path, mode, gdb=False)
    assert said == _mi_connect(loaded, running, tmp_path, mode, gdb=True)
    assert said[0].startswith('&"warning: Build ID mismatch'), said
