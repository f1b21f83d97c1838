"""A project's printer that raises, as gdb 13 shows it (py-prettyprint.c, varobj.c): its
construction (the lookup), to_string, children() or a later child. gdb prints `Python
Exception <class 'X'>: MESSAGE` on its error stream (MI: the `&` log) and the value raw
(construction), empty (to_string), without children (children()) or cut with `...}`; its
var object is refused (Cannot instantiate printer for default visualizer). The printer is
sourced before `run` (-iex), so it must outlive the program's start."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.gdb import gdb_env, gdb_path
from tests.support.mi_client import ROOT

pytestmark = [
    pytest.mark.timeout(300),
    needs_gdb,
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

SOURCE = PROGRAMS_DIR / "printer_errors.cpp"
LOCATION = f"printer_errors.cpp:{marker_line(SOURCE, 'main')}"

PRINTER = '''
import gdb
import gdb.printing

class CtorPrinter:
    def __init__(self, val):
        raise gdb.error("cannot build")

    def to_string(self):
        return "never"

class BadStringPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        raise ValueError("bad string")

class BadChildrenPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return "kids"

    def children(self):
        raise RuntimeError("no kids")

class BadNextPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return "next"

    def children(self):
        yield "first", self.val["d"]
        raise KeyError("second")

def build():
    pp = gdb.printing.RegexpCollectionPrettyPrinter("errors")
    pp.add_printer("Ctor", "^Ctor$", CtorPrinter)
    pp.add_printer("BadString", "^BadString$", BadStringPrinter)
    pp.add_printer("BadChildren", "^BadChildren$", BadChildrenPrinter)
    pp.add_printer("BadNext", "^BadNext$", BadNextPrinter)
    return pp

gdb.printing.register_pretty_printer(None, build())
'''

VALUES = ["ctor", "bad_string", "bad_children", "bad_next", "holder"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("printer_errors", CPP_FLAGS)


def test_console_like_gdb(program: Path, tmp_path: Path) -> None:
    """print, output and info locals: the same stdout and stderr (the exception lines)."""
    (tmp_path / "printer.py").write_text(PRINTER)
    commands = [*(f"print {name}" for name in VALUES), "info locals", "output ctor", "print/r ctor"]
    args = ["-iex", "source printer.py", "-ex", f"break {LOCATION}", "-ex", "run"]
    for command in commands:
        args += ["-ex", command]
    got = assert_like_gdb([*args, str(program)], tmp_path)
    assert "$2 = \n" in got.stdout and "Python Exception <class 'ValueError'>: bad string\n" in got.stderr


MI_SCRIPT = [
    "-enable-pretty-printing",
    *(f"-data-evaluate-expression {name}" for name in VALUES),
    "-stack-list-locals 1", "-stack-list-variables --all-values", "-stack-list-variables --simple-values",
    "-var-create - * ctor", "-var-create - * bad_next", "-var-create - * holder",
]  # fmt: skip


def mi_records(argv: list[str], program: Path, cwd: Path) -> list[str]:
    """Each command's `&` log lines and result record (the value history and stop are left out)."""
    lines = [f"-break-insert {LOCATION}", "-exec-run", *MI_SCRIPT, "-gdb-exit"]
    env = gdb_env()
    env["PYTHONPATH"] = str(ROOT)  # this checkout's server (the program ignores it)
    done = subprocess.run([*argv, "-nx", "-q", "-i=mi", "-iex", "source printer.py", str(program)],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120,
                          env=env, cwd=cwd)  # fmt: skip
    kept = [line for line in done.stdout.splitlines()
            if line.startswith(("^done", "^error", '&"Python'))]  # fmt: skip
    return kept[kept.index("^done") :]  # from -enable-pretty-printing on (after the run's ^running)


def test_mi_like_gdb(program: Path, tmp_path: Path) -> None:
    (tmp_path / "printer.py").write_text(PRINTER)
    expected = mi_records([str(gdb_path())], program, tmp_path)
    got = mi_records([sys.executable, "-m", "aliceserver"], program, tmp_path)
    assert '^error,msg="Cannot instantiate printer for default visualizer"' in expected
    assert got == expected
