"""Library containers holding garbage, as a breakpoint at a function's start finds its locals
(before their constructors ran), printed as gdb 13 prints them: a vector whose elements
cannot be read prints its start and then fails (`$1 = std::vector of length 5, capacity 5 =
{` and the error; info locals and MI's lists show the start and the error in place of the
rest); a string of an absurd length is the printer's Python exception and no value; a map,
list or hash map whose first node cannot be read says so after its size, a shared_ptr whose
counts cannot be read, or a string whose text cannot, shows the printer's error as its value. The MI console keeps gdb's records:
a printer's error line comes before the line being printed (gdb's console buffer waits for
its newline)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import output_like_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.gdb import gdb_env, gdb_path
from tests.support.mi_client import ROOT

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

SOURCE = PROGRAMS_DIR / "cpp_unset_containers.cpp"
LOCATION = f"cpp_unset_containers.cpp:{marker_line(SOURCE, 'main')}"
VECTOR = "std::vector of length 5, capacity 5 = {"


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_unset_containers", (*CPP_FLAGS, "-std=c++17"))


def test_console_like_gdb(program: Path) -> None:
    commands = [f"break {LOCATION}", "run", "print v", "print s", "print m", "output v", "call v", "info locals",
                "print marker", "print text", "print l", "print um", "print sp", "print method",
                "set print pretty on", "print v", "print m"]  # fmt: skip
    both = output_like_gdb(program, commands)  # stdout and stderr each as gdb's
    if "std::vector of length" not in both:
        pytest.skip("gdb prints no libstdc++ printers here (not installed?)")
    # stdout (each error on stderr, after it)
    assert f"$1 = {VECTOR}$2 = \n$3 = std::map with 3 elements<error reading variable: " in both
    assert f"{VECTOR}$4 = {VECTOR}v = {VECTOR}<error reading variable v (Cannot access memory at address 0x10)>" in both
    assert "\n$5 = 7\n" in both  # the failed prints took their history numbers, as gdb's
    # a printer's error is its value: the print goes on (a node's pointer cast down to the
    # node's class reads the node, as gdb's value_cast)
    assert ("$6 = <error: Cannot access memory at address 0x60>\n"
            "$7 = std::__cxx11::list<error reading variable: Cannot access memory at address 0x40>\n"
            "$8 = std::unordered_map with 2 elements<error reading variable: Cannot access memory at address 0x48>\n"
            "$9 = <error reading variable: Cannot access memory at address 0x58>\n"
            "$10 = &virtual table offset -2\n") in both  # fmt: skip
    assert "Python Exception <class 'OverflowError'>: int too big to convert\n" in both


MI_SCRIPT = ["-stack-list-locals 1", "-stack-list-variables --simple-values", "-data-evaluate-expression v",
             "-data-evaluate-expression m", '-interpreter-exec console "print v"',
             '-interpreter-exec console "print s"', '-interpreter-exec console "info locals"']


def mi_records(argv: list[str], program: Path) -> list[str]:
    """What the MI script wrote after the stop (notifications and prompts left out)."""
    lines = [f"-break-insert {LOCATION}", "-exec-run", *MI_SCRIPT, "-gdb-exit"]
    env = gdb_env()
    env["PYTHONPATH"] = str(ROOT)  # this checkout's server (the program ignores it)
    done = subprocess.run([*argv, "-nx", "-q", "-i=mi", str(program)], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=120, env=env, cwd=program.parent)  # fmt: skip
    records = [line for line in done.stdout.splitlines() if line.startswith(("^", "&", "~"))]
    stop = next(i for i, line in enumerate(records) if "@bp:main" in line)
    return [line for line in records[stop + 1 :] if not line.startswith("^exit")]


def test_mi_like_gdb(program: Path) -> None:
    expected = mi_records([str(gdb_path())], program)
    got = mi_records([sys.executable, "-m", "aliceserver"], program)
    assert got == expected
    assert f'{{name="v",value="{VECTOR}<error reading variable: Cannot access memory at address 0x10>"}}' in got[1]
    assert got[5:7] == [f'~"$1 = {VECTOR}"', '&"Cannot access memory at address 0x10\\n"']
    assert got[8:10] == ['&"Python Exception <class \'OverflowError\'>: int too big to convert\\n"', '~"$2 = \\n"']
