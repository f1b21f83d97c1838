"""gdb's command line names the program: the server starts, before its imports, a child
that builds the program's index (and then its libraries') in the cache, and the session
reads it from there instead of building it (programahead.py, indexchild.py --program).

Real builds: a program with DWARF and a shared library of its own. The session waits a
second before `break` (`shell sleep 1`: the child is at work by then; a session never
waits for a child still starting, it builds the index itself sooner). Checked: the
program's index is the child's (the session's log says so, and not that it indexed the
names itself); the stop, backtrace and arguments are the same as with a child that fails or
hangs (the session then builds the index itself: killed, the hanging one); a later session
starts no child; no child remains after any session; on a busy machine none is started.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.ahead_children import (
    BUSY,
    IDLE,
    index_children,
    program_with_library,
    stop_onwards,
)
from tests.support.batch import ours_cached

pytestmark = pytest.mark.timeout(120)

_MAIN = """
#include <stdio.h>
int scaled(int v, int k);
static int twice(int v) { return scaled(v, 2); }
int main(int argc, char **argv) { printf("%d\\n", twice(argc + 6)); return 0; }
"""
_SESSION = ("-batch", "-ex", "shell sleep 1", "-ex", "break twice", "-ex", "run", "-ex", "bt",
            "-ex", "info args")  # fmt: skip


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("program-child")
    return program_with_library(root, _MAIN, "PROGRAM_CHILD_TEST")


def _session(program: Path, cache: Path, log: Path, test: str = "none", load: str = IDLE) -> str:
    # `test`: "none", "fail" or "hang" (4 letters each: the program's environment, and so
    # its stack addresses, stay the same)
    env = {"PROGRAM_CHILD_TEST": test, "AHEAD_LOAD_TEST": load}
    session = ("--enable-shell", "-nx", *_SESSION)
    return ours_cached(program, session, cache, log, program.parent / "custom", env)




def test_the_program_index_built_by_the_child_started_with_the_server_is_read(
    program: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    ahead = _session(program, cache, tmp_path / "ahead.log")
    log = (tmp_path / "ahead.log").read_text()
    assert "comes from the child started with the server" in log, log
    assert f"index of {program} built by this session's child" in log, log
    assert f"indexed the names of {program}" not in log
    library = program.parent / "libahead.so"  # and then its libraries', by the same child
    assert f"index of {library} built by this session's child" in log, log
    assert "Breakpoint 1, twice (v=7) at main.c:4" in ahead, ahead
    assert " in main (argc=1, argv=0x" in ahead and "v = 7" in ahead
    assert not index_children(cache)
    alone = _session(program, tmp_path / "alone", tmp_path / "alone.log", "fail")
    assert f"indexed the names of {program}" in (tmp_path / "alone.log").read_text()
    assert stop_onwards(ahead) == stop_onwards(alone)
    again = _session(program, cache, tmp_path / "again.log")  # indexed: no child started
    log = (tmp_path / "again.log").read_text()
    assert "started with the server" not in log and "from the indexing child" not in log, log
    assert f"index of {program} read from the cache" in log, log
    assert stop_onwards(again) == stop_onwards(ahead)
    assert not index_children(cache)


@pytest.mark.parametrize("test", ["fail", "hang"])
def test_a_child_that_fails_or_hangs_leaves_the_index_to_the_session(
    program: Path, tmp_path: Path, test: str
) -> None:
    cache = tmp_path / "cache"
    output = _session(program, cache, tmp_path / "session.log", test)
    log = (tmp_path / "session.log").read_text()
    assert "comes from the child started with the server" in log, log  # started, then
    assert f"indexed the names of {program}" in log, log  # not waited for, or gone
    assert "built by this session's child" not in log
    assert "Breakpoint 1, twice (v=7) at main.c:4" in output, output
    assert not index_children(cache)  # (the hanging one killed and reaped)
    again = _session(program, cache, tmp_path / "again.log", test)  # the session stored it
    assert f"index of {program} read from the cache" in (tmp_path / "again.log").read_text()
    assert stop_onwards(again) == stop_onwards(output)


def test_on_a_busy_machine_no_child_is_started(program: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    busy = _session(program, cache, tmp_path / "busy.log", load=BUSY)
    log = (tmp_path / "busy.log").read_text()
    assert "started with the server" not in log and "from the indexing child" not in log, log
    assert f"indexed the names of {program}" in log
    assert "Breakpoint 1, twice (v=7) at main.c:4" in busy
    assert not index_children(cache)
