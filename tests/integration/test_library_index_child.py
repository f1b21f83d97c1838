"""A first session builds the indexes of the libraries its program will load in a child
process, while it builds the program's own, and reads them from the cache when they load
(indexahead.py, indexchild.py).

Real builds: a shared library with DWARF, found through the program's run path. The
session stops at the program's first instruction (`starti`) and waits there a second
(`shell sleep 1`), so that the child has done its work when the loader maps the library:
a session never waits for a child still starting (it builds the index itself sooner).
Checked: the library's index is the child's, read from the cache, not built by the session
whose cache was empty; the stop, backtrace and arguments are the same with the child as with a child
that fails (whose session builds the index itself); a later session starts no child; no
child remains after a session, even one stuck when the session ends. The sessions see the
load average the test says (an idle machine unless told): on a busy one no child is
started, and the session builds the index itself.
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
int main(int argc, char **argv) { printf("%d\\n", scaled(argc + 6, 7)); return 0; }
"""
_SESSION = ("-batch", "-ex", "set breakpoint pending on", "-ex", "break scaled", "-ex", "starti",
            "-ex", "shell sleep 1", "-ex", "continue", "-ex", "bt", "-ex", "info args")  # fmt: skip


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("index-child")
    return program_with_library(root, _MAIN, "INDEX_CHILD_TEST")


def _session(program: Path, cache: Path, log: Path, test: str = "none", load: str = IDLE) -> str:
    # `test`: "none", "fail" or "hang", 4 letters each: the program's environment, and so
    # its stack addresses, stay the same
    session = ("--enable-shell", "-nx", *_SESSION)
    env = {"INDEX_CHILD_TEST": test, "AHEAD_LOAD_TEST": load}
    # (the program named by `file`: on the command line, the child the server starts for
    # it would index the libraries too: test_program_index_child.py)
    return ours_cached(program, session, cache, log, program.parent / "custom", env, True)




def test_the_library_index_built_by_the_child_is_read_and_the_stop_is_the_same(
    program: Path, tmp_path: Path
) -> None:
    library = str(program.parent / "libahead.so")
    cache = tmp_path / "cache"
    ahead = _session(program, cache, tmp_path / "ahead.log")
    log = (tmp_path / "ahead.log").read_text()
    assert "to be indexed by a child process" in log, log
    assert f"index of {library} built by this session's child" in log, log  # an empty cache
    assert f"indexed the names of {library}" not in log
    alone = _session(program, tmp_path / "alone", tmp_path / "alone.log", "fail")
    assert f"indexed the names of {library}" in (tmp_path / "alone.log").read_text()
    assert stop_onwards(ahead) == stop_onwards(alone)
    assert "Breakpoint 1, scaled (v=7, k=7) at ahead.c:4" in ahead
    assert "#1  0x" in ahead and " in main (argc=1, argv=0x" in ahead and "v = 7\nk = 7" in ahead
    assert not index_children(cache)
    again = _session(program, cache, tmp_path / "again.log")  # every library indexed now
    assert "by a child process" not in (tmp_path / "again.log").read_text()
    assert f"index of {library} read from the cache" in (tmp_path / "again.log").read_text()
    assert stop_onwards(again) == stop_onwards(ahead)


def test_a_child_that_fails_leaves_the_index_to_the_session(program: Path, tmp_path: Path) -> None:
    library = str(program.parent / "libahead.so")
    cache = tmp_path / "cache"
    output = _session(program, cache, tmp_path / "failed.log", "fail")
    log = (tmp_path / "failed.log").read_text()
    assert "to be indexed by a child process" in log  # started, and failed
    assert f"indexed the names of {library}" in log
    assert "Breakpoint 1, scaled (v=7, k=7) at ahead.c:4" in output
    assert not index_children(cache)


def test_a_child_stuck_when_the_session_ends_is_killed_and_reaped(
    program: Path, tmp_path: Path
) -> None:
    library = str(program.parent / "libahead.so")
    cache = tmp_path / "cache"
    output = _session(program, cache, tmp_path / "stuck.log", "hang")
    log = (tmp_path / "stuck.log").read_text()
    assert "to be indexed by a child process" in log
    assert f"indexed the names of {library}" in log  # not waited for: it never started its work
    assert "Breakpoint 1, scaled (v=7, k=7) at ahead.c:4" in output
    assert not index_children(cache)


def test_on_a_busy_machine_no_child_is_started_and_the_session_indexes(
    program: Path, tmp_path: Path
) -> None:
    library = str(program.parent / "libahead.so")
    cache = tmp_path / "cache"
    busy = _session(program, cache, tmp_path / "busy.log", load=BUSY)
    log = (tmp_path / "busy.log").read_text()
    assert "by a child process" not in log, log
    assert "from the indexing child" not in log
    assert f"indexed the names of {library}" in log  # by the session, as it loaded
    assert not index_children(cache)
    ahead = _session(program, tmp_path / "ahead", tmp_path / "ahead.log")
    assert "to be indexed by a child process" in (tmp_path / "ahead.log").read_text()
    assert stop_onwards(busy) == stop_onwards(ahead)
    assert "Breakpoint 1, scaled (v=7, k=7) at ahead.c:4" in busy
    assert " in main (argc=1, argv=0x" in busy and "v = 7\nk = 7" in busy
    again = _session(program, cache, tmp_path / "again.log", load=BUSY)  # cached now
    assert f"index of {library} read from the cache" in (tmp_path / "again.log").read_text()
    assert stop_onwards(again) == stop_onwards(busy)
