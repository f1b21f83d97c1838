"""A ^C typed at the terminal while `break NAME` waits for a child working ahead (the
program's search child, the libraries' index child: aheadchild.py) reaches the server, not
the child: the terminal signals its whole foreground process group, and the children start
with SIGINT blocked.

Real builds: a program of three units, two of them calling a `static inline` function of a
header (an inlined copy in each), debugged by `python -m aliceserver` (gdb's command line)
on a pseudo-terminal, its cache empty. A sitecustomize holds the child at its start until
the test has typed ^C, then lets it go. Checked: the child ends well and its answer is the
session's (the search's positions, the library's index: not redone by the session); the
breakpoint's two locations, the stop and the backtrace are gdb's (test_program_search_child
compares them whole); no traceback is printed; no child remains after the session. (The
program's output goes to `tty /dev/null`, so `run` starts another process than the copy
held for its symbols, which gets the ^C too: test_ctrl_c_while_stopped covers that one.
The program is named by `file`: on the command line, the server would start a child
indexing it at once, test_program_index_child.py.)
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tests.support.ahead_children import children_running
from tests.support.inlined_twice import build_inlined_twice
from tests.support.mi_client import ROOT
from tests.support.terminal import PROMPT, Terminal

pytestmark = pytest.mark.timeout(120)

_PACKAGE = "aliceserver.debuggers.symbols.dwarf."
_SEARCH, _INDEX = _PACKAGE + "searchchild", _PACKAGE + "indexchild"
# The child running HOLD_MODULE says it started (HOLD_DIR/held), then waits for HOLD_DIR/go;
# the sessions see an idle machine (indexahead.py starts its child only then)
_SITECUSTOMIZE = """
import os, sys, time
os.getloadavg = lambda: (0.0, 0.0, 0.0)
import aliceserver.programahead
aliceserver.programahead.runnable_tasks = lambda: 1  # (this process alone)
if os.environ.get("HOLD_MODULE") in sys.orig_argv:
    open(os.path.join(os.environ["HOLD_DIR"], "held"), "w").close()
    while not os.path.exists(os.path.join(os.environ["HOLD_DIR"], "go")):
        time.sleep(0.01)
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sigint-children")
    build_inlined_twice(root)
    (root / "custom").mkdir()
    (root / "custom" / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    return root / "prog"


@pytest.mark.parametrize("held", [_SEARCH, _INDEX], ids=["search-child", "index-child"])
def test_ctrl_c_during_break_does_not_reach_the_child(
    program: Path, tmp_path: Path, held: str
) -> None:
    hold = tmp_path / "hold"
    hold.mkdir()
    log = tmp_path / "log"
    paths = [str(program.parent / "custom"), str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in paths if p),
               ALICESERVER_SEARCH_CHILD_LEAST="1", HOLD_MODULE=held, HOLD_DIR=str(hold),
               TERM="dumb")  # fmt: skip
    argv = [sys.executable, "-m", "aliceserver", "--cache-dir", str(tmp_path / "cache"),
            "--log-file", str(log), "--log-level", "DEBUG", "-nx", "-q",
            "-ex", f"file {program}", "-ex", "set confirm off", "-ex", "tty /dev/null"]  # fmt: skip
    mark = str(program) if held == _SEARCH else str(tmp_path / "cache")  # in its arguments
    terminal = Terminal(argv, env, program.parent)
    try:
        terminal.read_until(PROMPT)
        server = terminal.pid
        os.write(terminal.fd, b"break twice\n")
        end = time.monotonic() + 60
        while not (hold / "held").exists():
            assert time.monotonic() < end, "the child never started"
            time.sleep(0.01)
        assert os.tcgetpgrp(terminal.fd) == os.getpgid(server)  # the ^C's receivers
        terminal.type_ctrl_c()
        time.sleep(0.3)  # (the signals delivered; a child in the group has died by now)
        (hold / "go").touch()
        answer = terminal.read_until(PROMPT).decode(errors="replace")
        assert "Breakpoint 1 at 0x" in answer and ": twice. (2 locations)" in answer, answer
        while children_running(held, mark):  # its work done (the index child's: not waited for)
            assert time.monotonic() < end, "the child never ended"
            time.sleep(0.05)
        listing = terminal.command("info breakpoints")
        assert listing.count(" in twice at ") == 2, listing
        stop = terminal.command("run")
        assert "Breakpoint 1.1, twice (x=" in stop and "SIGINT" not in stop, stop
        backtrace = terminal.command("bt")
        assert "#1  from_a (v=" in backtrace or " in from_a (v=" in backtrace, backtrace
        os.write(terminal.fd, b"quit\n")
    finally:
        status = terminal.close()
    assert status == 0
    said = log.read_text()
    assert "Traceback" not in terminal.output.decode(errors="replace")
    assert " ended with " not in said, said  # the child's status: no SIGINT, no failure
    if held == _SEARCH:
        assert "in a child for 2 needles" in said, said  # its answer, not the session's search
    else:
        by_session = [line for line in said.splitlines() if "indexed the names of" in line]
        assert not [line for line in by_session if "/libc.so" in line], said  # the child's, cached
    assert not children_running(held, mark)
