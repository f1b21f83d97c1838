"""gdb's questions at a terminal (utils.c defaulted_query): a person typing at the console
is asked `(y or n) ` and the next line is the answer; n is each command's own refusal, an
empty line or anything else "Please answer y or n.", Ctrl-D "EOF [assumed Y]" (and gdb reads
on). The same lines are typed at gdb 13 and at aliceserver, each on a pty, and the screens
compared; MI on a terminal answers Y without a word."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import PATIENCE, ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(180)]
ASKED = "(y or n) "
PROMPT = "(gdb) "
_GDB_ONLY = re.compile(r"^(\[Thread debugging using libthread_db enabled\]|Using host libthread_db library .*)\n",
                       re.M)


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("cli_prog")


class Terminal:
    """gdb or aliceserver with its console (or MI) on a pty, as a person would run it."""

    def __init__(self, prog: Path, gdb: bool, *, mi: bool = False) -> None:
        self.master, slave = pty.openpty()
        front = ["gdb"] if gdb else [sys.executable, "-m", "aliceserver"]
        args = ["-nx", "-q", "-iex", "set style enabled off", "-iex", "set width 0", "-iex", "set height 0"]
        self.process = subprocess.Popen(
            [*front, *args, *(["-i=mi"] if mi else []), prog.name], stdin=slave, stdout=slave, stderr=slave,
            cwd=prog.parent, env=dict(os.environ, PYTHONPATH=str(ROOT), TERM="dumb"), start_new_session=True,
        )
        os.close(slave)
        self.screen = ""
        self._unread = b""  # what came after the last needle waited for
        self.until("(gdb) \r\n" if mi else PROMPT)

    def until(self, needle: str) -> None:
        data, wanted = self._unread, needle.encode()
        while wanted not in data:
            ready, _, _ = select.select([self.master], [], [], PATIENCE)
            assert ready, f"waited for {needle!r}; got {data!r}"
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # the other side is gone
                chunk = b""
            assert chunk, f"end of output while waiting for {needle!r}: {data!r}"
            data += chunk
        end = data.index(wanted) + len(wanted)
        data, self._unread = data[:end], data[end:]
        self.screen += data.decode("utf-8", "replace").replace("\r", "")

    def type(self, line: str, until: str = PROMPT) -> None:
        os.write(self.master, line.encode() + b"\r")
        self.until(until)

    def eof(self, until: str = PROMPT) -> None:
        os.write(self.master, b"\x04")
        self.until(until)

    def close(self) -> str:
        self.screen += self._unread.decode("utf-8", "replace").replace("\r", "")
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=PATIENCE)
        os.close(self.master)
        return _GDB_ONLY.sub("", re.sub(r"process \d+", "process N", self.screen))


def _both(prog: Path, session, *, mi: bool = False) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """The screens of gdb and of aliceserver after the same typing."""
    screens = []
    for gdb in (True, False):
        terminal = Terminal(prog, gdb, mi=mi)
        try:
            session(terminal)
        finally:
            screens.append(terminal.close())
    return screens[0], screens[1]


def _stopped_in_add(terminal: Terminal) -> None:
    terminal.type("break add")
    terminal.type("run")


def test_kill_asks_until_answered(prog: Path) -> None:
    def session(terminal: Terminal) -> None:
        _stopped_in_add(terminal)
        terminal.type("kill", ASKED)
        terminal.type("n")  # Not confirmed.
        terminal.type("kill", ASKED)
        terminal.type("", ASKED)  # Please answer y or n.
        terminal.type("maybe", ASKED)
        terminal.type("Yes")
        terminal.type("where")

    gdb, ours = _both(prog, session)
    assert "Kill the program being debugged? (y or n) n\nNot confirmed.\n" in gdb
    assert "Please answer y or n.\n" in gdb
    assert ours == gdb


def test_each_command_asks_in_its_own_words(prog: Path) -> None:
    def session(terminal: Terminal) -> None:
        _stopped_in_add(terminal)
        for command, answer in [("run", "n"), ("start", "N"), ("delete", "n"), ("dir", "n"),
                                ("undisplay", "n"), ("handle SIGINT stop", "n"),
                                ("handle SIGINT SIGUSR1 nostop", "y"), ("return", "n"), ("jump main", "n"),
                                ("unset substitute-path", "n")]:
            terminal.type(command, ASKED)
            terminal.type(answer)
        terminal.type("info breakpoints")
        terminal.type("delete", ASKED)
        terminal.type("y")
        terminal.type("info breakpoints")
        terminal.type("quit", ASKED)
        terminal.type("n")
        terminal.type("quit", ASKED)
        terminal.type("y", "\n")

    gdb, ours = _both(prog, session)
    assert "Start it from the beginning? (y or n) n\nProgram not restarted.\n" in gdb
    assert "Quit anyway? (y or n) n\nNot confirmed.\n" in gdb
    assert ours == gdb


def test_end_of_input_answers_yes_and_reading_goes_on(prog: Path) -> None:
    def session(terminal: Terminal) -> None:
        _stopped_in_add(terminal)
        terminal.type("kill", ASKED)
        terminal.eof()
        terminal.type("info breakpoints")

    gdb, ours = _both(prog, session)
    assert "EOF [assumed Y]\n" in gdb
    assert ours == gdb


def test_mi_at_a_terminal_answers_without_a_word(prog: Path) -> None:
    def session(terminal: Terminal) -> None:
        terminal.type("-break-insert add", "(gdb) \r\n")
        terminal.type("-exec-run", "*stopped")
        terminal.until("(gdb) \r\n")
        terminal.type('-interpreter-exec console "kill"', "(gdb) \r\n")
        terminal.type('-interpreter-exec console "dir"', "(gdb) \r\n")

    gdb, ours = _both(prog, session, mi=True)
    kept = re.compile(r'^(~"\[Inferior|~"Reinit|~"Kill|\^done$)', re.M)

    def answers(screen: str) -> list[str]:
        return [line for line in screen.splitlines() if kept.match(line)]

    assert answers(gdb) == ['~"[Inferior 1 (process N) killed]\\n"', "^done", "^done"]
    assert answers(ours) == answers(gdb)


def test_a_refused_redefinition_keeps_the_old_command(prog: Path) -> None:
    def session(terminal: Terminal) -> None:
        terminal.type("define greet", ">")
        terminal.type("echo old\\n", ">")
        terminal.type("end")
        terminal.type("define greet", ASKED)
        terminal.type("n")  # Command "greet" not redefined.
        terminal.type("greet")
        terminal.type("define hook-nosuch", ASKED)
        terminal.type("n")  # Not confirmed.
        terminal.type("show user")

    gdb, ours = _both(prog, session)
    assert 'Redefine command "greet"? (y or n) n\nCommand "greet" not redefined.\n' in gdb
    assert "Proceed? (y or n) n\nNot confirmed.\n" in gdb and "old\n" in gdb
    assert ours == gdb


def test_pending_breakpoint_question_defaults_to_no(prog: Path) -> None:
    """nquery: `(y or [n]) `, an empty line is its default N, y makes the breakpoint pending."""
    pending = "(y or [n]) "

    def session(terminal: Terminal) -> None:
        terminal.type("break nosuch", pending)
        terminal.type("")
        terminal.type("break nosuch", pending)
        terminal.type("maybe", pending)  # Please answer y or [n].
        terminal.type("y")
        terminal.type("tbreak nosuch2", pending)
        terminal.type("n")
        terminal.type("info breakpoints")

    gdb, ours = _both(prog, session)
    assert "Please answer y or [n].\n" in gdb and "Breakpoint 1 (nosuch) pending.\n" in gdb
    assert ours == gdb
