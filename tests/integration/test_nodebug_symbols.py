"""A program built without debug info, as gdb 13 shows it: its variables are minimal
symbols of type <data variable, no debug info> ("'g_shape' has unknown type; cast it to
its declared type" for a read, whatis and ptype of the name alone, `&g_shape`, `(int)
g_shape` reading the bytes, sizeof failing); a frame there has "No symbol table info
available." for info locals and info args; finish out of such a function tells no value,
and MI's *stopped no reason (gdb's finish knows no function there). Stripped, with no
debug info loaded at all (before run), a name not found is gdb's "No symbol table is
loaded.  Use the \"file\" command.". Console and MI, against gdb."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.gdb_calls import assert_like_gdb_calls
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

READS = ["print g_shape", "ptype g_shape", "whatis g_shape", "print &g_shape", "print main",
         "print (int)g_shape", "print g_count", "print sizeof(g_shape)", "print g_count + 1",
         "print (long)g_count", "print/x (int)g_count", "set var g_count = 5", "print g_shape.kind",
         "print *&g_count", "whatis *&g_count", "print &s_hidden", "print (int)s_hidden",
         "whatis &g_shape", "ptype &g_count", "print g_name[0]", "output g_count",
         "print (double)g_count", "print {int}&g_count", "whatis (int)g_count", "ptype g_count + 1",
         "print -g_count", "print twice(3)", "print (int)twice(3)"]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("nodebug_shapes", ("-O0",))  # no -g


@pytest.fixture(scope="module")
def stripped(program: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    copy = tmp_path_factory.mktemp("stripped") / "nodebug_shapes"
    shutil.copy(program, copy)
    subprocess.run(["strip", str(copy)], check=True, timeout=60)
    return copy


def test_stripped_like_gdb(stripped: Path, tmp_path: Path) -> None:
    got = assert_like_gdb([*ex(
        "print g_shape", "print main", "whatis g_shape", "print &g_count", "print nosuch", "print sizeof(int)",
        "starti", "print g_shape", "print main", "print nosuch", "print printf",
    ), str(stripped)], tmp_path)  # fmt: skip
    assert 'No symbol table is loaded.  Use the "file" command.' in got.stderr


def test_console_like_gdb(program: Path, tmp_path: Path) -> None:
    # (int)twice(3), where gdb cannot call: 3 * 2 + 3 (sink = x), value 21.
    got = assert_like_gdb_calls([*ex(
        *READS, "info locals", "info scope area", "info scope twice", "break area", "run", *READS, "print (char *)g_name", "x/s &g_name",
        "info locals", "info args", "bt", "bt full", "finish", "info locals", "info args", "info symbol g_shape",
        "info address g_shape",
    ), str(program)], tmp_path, {21: "9"}, before_next=True)  # fmt: skip
    assert "'g_shape' has unknown type; cast it to its declared type" in got.stderr
    assert "type = <data variable, no debug info>" in got.stdout


def _mi(program: Path, cwd: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    seen: list[str] = []
    try:
        mi.prompt()
        mi.ok("-break-insert twice")
        mi.ok("-break-insert area")
        mi.ok("-exec-run")
        mi.stopped()
        for command in ("-stack-list-locals 1", "-stack-list-arguments 1 0 0", "-stack-list-variables 1",
                        "-data-evaluate-expression g_shape", "-data-evaluate-expression &g_shape",
                        "-data-evaluate-expression (int)g_shape", "-var-create - * g_shape",
                        "-var-create - * (int)g_count", '-interpreter-exec console "info locals"',
                        "-exec-finish", "-exec-continue", '-interpreter-exec console "finish"'):  # fmt: skip
            _, lines = mi.command(command)
            seen += [line for line in lines if not line.startswith("=")]
            if command in ("-exec-finish", "-exec-continue", '-interpreter-exec console "finish"'):
                stopped = mi.read_until(lambda line: line.startswith("*stopped"))
                seen += [line.split(',core="')[0] for line in stopped if "libthread_db" not in line]
        return seen
    finally:
        mi.close()


def _mi_stripped(program: Path, cwd: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        return [repr(mi.command(command)[0].results.get("msg")) for command in (
            "-data-evaluate-expression g_shape", "-data-evaluate-expression main", "-var-create - * g_count",
            '-interpreter-exec console "starti"', "-data-evaluate-expression g_shape",
            "-data-evaluate-expression main")]  # fmt: skip
    finally:
        mi.close()


def test_mi_stripped_like_gdb(stripped: Path, tmp_path: Path) -> None:
    assert _mi_stripped(stripped, tmp_path, gdb=False) == _mi_stripped(stripped, tmp_path, gdb=True)


def test_mi_like_gdb(program: Path, tmp_path: Path) -> None:
    ours = _mi(program, tmp_path, gdb=False)
    assert ours == _mi(program, tmp_path, gdb=True)
    assert any(line.startswith("*stopped,frame=") for line in ours)  # a finish that knows no function
