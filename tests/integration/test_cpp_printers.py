"""libstdc++'s pretty printers, loaded from where libstdc++ installed them (gdb's
auto-load directory), print C++ library values exactly as gdb 13 prints them with the same
printers: `print`, `print/r` (raw) and `info locals`, through the MI console. A printer that
raises shows an error in its own value alone, and a container read from garbage ends fast."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.core_backend import core_of_stop
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path, run_gdb
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.both_backends,
]

SOURCE = PROGRAMS_DIR / "cpp_printers.cpp"
LOCATION = f"cpp_printers.cpp:{marker_line(SOURCE, 'main')}"
VARIABLES = [
    "vi", "vs", "vp", "vb", "empty", "str", "long_str", "sv", "arr", "dq", "lst", "fl", "m",
    "mm", "st", "um", "us", "up", "upnull", "sp", "wp", "opt", "none", "var", "tup", "pr",
    "spn", "bits", "at", "big", "holder", "nested",
]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_printers", (*CPP_FLAGS, "-std=c++20"))


def gdb_outputs(program: Path, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, LOCATION, commands)


def test_printers_installed(program: Path) -> None:
    [vector] = gdb_outputs(program, ["print vi"])
    if "std::vector of length" not in vector:
        pytest.skip(f"gdb prints no libstdc++ printers here (not installed?): {vector}")


RAW = ["vi", "str", "up", "opt", "pr"]  # print/r: the members, no printer


@pytest.mark.parametrize("raw", [False, True], ids=["print", "print-raw"])
def test_print_matches_gdb(program: Path, raw: bool, backend: str, tmp_path: Path) -> None:
    test_printers_installed(program)
    commands = [f"print/r {name}" for name in RAW] if raw else [f"print {name}" for name in VARIABLES]
    expected = gdb_outputs(program, commands)
    got = console_at(program, LOCATION, commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=True)) == list(zip(commands, expected, strict=True))


def test_info_locals_matches_gdb(program: Path, backend: str, tmp_path: Path) -> None:
    test_printers_installed(program)
    [expected] = gdb_outputs(program, ["info locals"])
    [got] = console_at(program, LOCATION, ["info locals"], gdb_env(), core_of_stop(backend, tmp_path))
    assert got.splitlines() == expected.splitlines()


def test_reference_argument_and_element(program: Path, backend: str, tmp_path: Path) -> None:
    """A reference to a vector prints through the printer, as gdb (no `@0x...:`)."""
    location = f"cpp_printers.cpp:{marker_line(SOURCE, 'callee')}"
    commands = ["print numbers", "print name", "info args"]
    replies = run_gdb(program, [f"break {location}", "run", *commands], env=gdb_env())
    expected = [(r.error or r.output).strip("\n") for r in replies[2:]]
    assert console_at(program, location, commands, gdb_env(), core_of_stop(backend, tmp_path)) == expected


POINT_PRINTER = '''
import gdb

class Failing:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        raise RuntimeError("this printer fails")

def lookup(value):
    if gdb.types.get_basic_type(value.type).tag == "Point":
        return Failing(value)
    return None

gdb.current_objfile().pretty_printers.append(lookup)
'''


def test_failing_printer_and_garbage(program: Path, tmp_path: Path, backend: str) -> None:
    """A printer script beside the program (`PROG-gdb.py`, as gdb auto-loads it from a safe
    path) whose printer raises: that value alone is empty, as gdb prints it (its `Python
    Exception` line goes to the error stream: test_printer_errors.py); a vector read from garbage (10^12
    elements at an unreadable address) fails quickly at its first element, as gdb's print
    (which fetches each child before printing it)."""
    copy = tmp_path / "cpp_printers"
    shutil.copy2(program, copy)
    (tmp_path / "cpp_printers-gdb.py").write_text(POINT_PRINTER)
    started = time.monotonic()
    trusted = ["-iex", f"add-auto-load-safe-path {tmp_path}"]  # else declined, as gdb declines it
    vp, holder, garbage = console_at(copy, LOCATION, ["print vp", "print holder", "print *garbage"], gdb_env(),
                                     core_of_stop(backend, tmp_path), trusted)
    elapsed = time.monotonic() - started
    assert vp == "$1 = std::vector of length 2, capacity 2 = {, }"
    assert holder == '$2 = {items = std::vector of length 2, capacity 2 = {1, 2}, label = "h"}'
    *_, theirs = run_gdb(program, [f"break {LOCATION}", "run", "print vp", "print holder", "print *garbage"], env=gdb_env())
    assert garbage == theirs.output + theirs.error  # what gdb printed before its error, then the error
    assert garbage == "$3 = std::vector of length 1000000000000, capacity 1000000000000 = {Cannot access memory at address 0x1000"
    assert elapsed < 30


def test_whatis_ptype_through_type_printers(program: Path, backend: str, tmp_path: Path) -> None:
    """libstdc++'s type printers name types in whatis and ptype as gdb shows them
    (`std::vector<int>`, `std::map<std::string, int>`, inside pointers and template
    arguments); `/r` and `print`'s `(T *)` prefix keep the full names (ptype/r of a class
    writes its body out in gdb, which our ptype does not do yet)."""
    test_printers_installed(program)
    names = [*VARIABLES, "&vs", "garbage", "*garbage", "holder.items", "&holder"]
    commands = [*(f"whatis {n}" for n in names), "ptype vi", "ptype m", "ptype str", "ptype up",
                "whatis/r vi", "whatis/r &vs", "print &vi"]  # fmt: skip
    expected = gdb_outputs(program, commands)
    assert "type = std::vector<int>" in expected  # the type printers ran in gdb
    got = console_at(program, LOCATION, commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=True)) == list(zip(commands, expected, strict=True))


RUNAWAY_PRINTERS = '''
import gdb

class Looping:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        while True:  # never calls the gdb API, where the budget is otherwise checked
            pass

class Endless:
    def __init__(self, value):
        self.value = value

    def to_string(self):
        return "endless"

    def children(self):
        i = 0
        while True:
            yield "[%d]" % i, i
            i += 1

def lookup(value):
    tag = gdb.types.get_basic_type(value.type).tag
    if tag == "Point":
        return Looping(value)
    if tag == "Holder":
        return Endless(value)
    return None

gdb.current_objfile().pretty_printers.append(lookup)
'''


def test_runaway_printers_are_cut_off(program: Path, tmp_path: Path, backend: str) -> None:
    """A printer looping in pure Python is cut off by the time budget: its value shows
    the error and the session goes on; a printer whose children never end prints
    `print elements` of them."""
    copy = tmp_path / "cpp_printers"
    shutil.copy2(program, copy)
    (tmp_path / "cpp_printers-gdb.py").write_text(RUNAWAY_PRINTERS)
    started = time.monotonic()
    vp, vi, holder = console_at(copy, LOCATION, ["print vp", "print vi", "print holder"], gdb_env(),
                                core_of_stop(backend, tmp_path), ["-iex", f"add-auto-load-safe-path {tmp_path}"])
    assert time.monotonic() - started < 60
    assert vp.startswith("$1 = std::vector of length 2, capacity 2 = {<error: pretty printer took too long>")
    assert vi == "$2 = std::vector of length 3, capacity 3 = {1, 2, 3}"
    assert holder == "$3 = endless = {" + ", ".join(f"[{i}] = {i}" for i in range(200)) + "...}"
