"""gdb's Python commands in command files and the console: `python` ... `end` blocks,
`python CODE`, `source FILE.py`, `pi EXPR`; a project's own printer registered that way
(a RegexpCollectionPrettyPrinter) applies to later prints; print() goes to the console
and a traceback to stderr, as gdb 13 shows them with the same files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.gdb import gdb_env
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.timeout(300),
    needs_gdb,
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

SOURCE = PROGRAMS_DIR / "cpp_xmethods.cpp"
LOCATION = f"cpp_xmethods.cpp:{marker_line(SOURCE, 'main')}"

RECT_PRINTER = '''
import gdb
import gdb.printing

class RectPrinter:
    def __init__(self, val):
        self.val = val

    def to_string(self):
        return "Rect %dx%d" % (int(self.val["w"]), int(self.val["h"]))

def build():
    pp = gdb.printing.RegexpCollectionPrettyPrinter("project")
    pp.add_printer("Rect", "^Rect$", RectPrinter)
    return pp

gdb.printing.register_pretty_printer(gdb.current_objfile(), build())
print("registered", gdb.current_objfile())
'''

COMMANDS = """\
python
total = 6
print(total * 7)
end
python print(gdb.parse_and_eval("plain")["w"] + 1, total)
p plain
source rect_printer.py
p plain
p rects
python print(gdb.parse_and_eval("v[2]"))
pi 1 + 1
python import sys; print("to stderr", file=sys.stderr)
python gdb.write("written\\n")
source missing.py
python
def broken():
    raise ValueError("bad")
broken()
end
echo not reached\\n
"""


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_xmethods", (*CPP_FLAGS, "-std=c++20"))


def test_command_file_like_gdb(program: Path, tmp_path: Path) -> None:
    (tmp_path / "rect_printer.py").write_text(RECT_PRINTER)
    (tmp_path / "cmds.gdb").write_text(COMMANDS)
    got = assert_like_gdb(["-ex", f"break {LOCATION}", "-ex", "run", "-x", "cmds.gdb", str(program)], tmp_path)
    assert "$2 = Rect 2x3" in got.stdout and "ValueError: bad" in got.stderr


def test_console_python_commands(program: Path, tmp_path: Path) -> None:
    """Typed in the console (MI -interpreter-exec console): the same words as gdb's."""
    script = tmp_path / "rect_printer.py"
    script.write_text(RECT_PRINTER)
    commands = [
        "python print(6 * 7)", f"source {script}", "print plain", "python print(undefined)",
        "python-interactive", "pi [1, 2]",
    ]  # fmt: skip
    got = console_at(program, LOCATION, commands, gdb_env())
    assert got[0] == "42"
    assert got[1] == "registered None"
    assert got[2] == "$1 = Rect 2x3"
    assert got[3] == "Error while executing Python code."
    assert got[4] == "Python scripting is not supported in this copy of GDB."
    assert got[5] == "[1, 2]"
