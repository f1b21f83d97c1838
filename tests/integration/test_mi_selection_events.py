"""gdb's user-selected-context notifications (gdb.mi/user-selected-context-sync.exp, all-stop):
a console and an MI channel (`new-ui mi PTY`) on one session; when one of them selects
another thread or frame, the other hears of it (`=thread-selected` on MI, `[Switching to
thread ...]` and the frame on the console); selecting what is already selected tells no one.
The same expectations run against gdb 13, so they are gdb's."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.test_mi_newui import Reader
from tests.support.batch import needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import PATIENCE, ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(120)]
_ESCAPES = re.compile(rb"\x1b\[[0-9;?]*[a-zA-Z]")


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("selection_sync")


class Channels:
    """A console and an MI channel of one debugger, each on a pty."""

    def __init__(self, prog: Path, gdb: bool) -> None:
        self.cli_master, cli_slave = pty.openpty()
        self.mi_master, self.mi_slave = pty.openpty()
        front = ["gdb"] if gdb else [sys.executable, "-m", "aliceserver"]
        settings = ["-iex", "set style enabled off", "-iex", "set confirm off", "-iex", "set width 0",
                    "-iex", "set height 0"]
        self.process = subprocess.Popen(
            [*front, "-nx", "-q", *settings, "-ex", "echo startupdone\\n", str(prog)],
            stdin=cli_slave, stdout=cli_slave, stderr=cli_slave, cwd=prog.parent,
            env=dict(os.environ, PYTHONPATH=str(ROOT)), start_new_session=True,
        )
        os.close(cli_slave)
        self.cli, self.mi = Reader(self.cli_master), Reader(self.mi_master)
        self.cli.until(b"startupdone")
        self.cli.until(b"(gdb) ")
        os.write(self.cli_master, f"new-ui mi {os.ttyname(self.mi_slave)}\r".encode())
        self.cli.until(b"(gdb) ")
        self.mi.until(b"(gdb) \r\n")

    @staticmethod
    def _text(data: bytes) -> str:
        return _ESCAPES.sub(b"", data).decode("utf-8", "replace").replace("\r", "")

    def console(self, command: str) -> str:
        """What the console shows for `command`, up to its next prompt."""
        os.write(self.cli_master, command.encode() + b"\r")
        out = self._text(self.cli.until(b"(gdb) "))
        return out.split(command + "\n", 1)[-1].removesuffix("(gdb) ")

    def mi_command(self, command: str) -> str:
        os.write(self.mi_master, command.encode() + b"\r")
        out = self._text(self.mi.until(b"(gdb) \r\n"))
        return out.split(command + "\n", 1)[-1]

    def console_news(self) -> str:
        """What the console showed since its last command (a `print` flushes it)."""
        os.write(self.cli_master, b"print 444\r")
        out = self._text(self.cli.until(b"= 444"))
        self.cli.until(b"(gdb) ")
        # the kernel echoes the command at once, the server's lines may come after it
        return re.sub(r"\$\d+ = 444$", "", out.replace("print 444\n", "", 1))

    def mi_news(self) -> str:
        os.write(self.mi_master, b"-data-evaluate-expression 666\r")
        out = self._text(self.mi.until(b'^done,value="666"'))
        self.mi.until(b"(gdb) \r\n")
        return out.replace("-data-evaluate-expression 666\n", "", 1).removesuffix('^done,value="666"')

    def close(self) -> None:
        try:
            os.write(self.cli_master, b"kill\r")
            self.cli.until(b"(gdb) ")
            os.write(self.cli_master, b"quit\r")
            self.process.wait(timeout=PATIENCE)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            for fd in (self.cli_master, self.mi_master, self.mi_slave):
                os.close(fd)


def _switched(number: str) -> str:
    return rf"\[Switching to thread {number} \(Thread 0x[0-9a-f]+ \(LWP \d+\)\)\]\n"


@pytest.mark.parametrize("gdb", [True, False], ids=["gdb", "aliceserver"])
def test_selection_changes_reach_every_ui_like_gdb(prog: Path, gdb: bool) -> None:
    spin, spin_call = marker_line("selection_sync.c", "spin"), marker_line("selection_sync.c", "spin_call")
    frame0 = rf"#0  worker_spin \(\) at [^\n]*selection_sync.c:{spin}\n{spin}\t[^\n]*@bp:spin \*/\n"
    frame1 = rf"#1  0x[0-9a-f]+ in worker \(arg=0x0\) at [^\n]*selection_sync.c:{spin_call}\n{spin_call}\t"
    channels = Channels(prog, gdb)
    try:
        channels.console("break main_stop")
        assert "hit Breakpoint 1, main_stop ()" in channels.console("run")
        channels.mi_news()

        # The console selects a thread: the MI channel sees the lines and the event.
        assert re.fullmatch(_switched("2") + frame0, channels.console("thread 2"))
        news = channels.mi_news()
        assert re.search(r'~"\[Switching to thread 2 \(Thread 0x', news)
        assert re.search(r'=thread-selected,id="2",frame=\{level="0",addr="0x[0-9a-f]+",func="worker_spin"', news)
        # The same thread again: printed on the console, and no one else hears of it.
        assert re.fullmatch(_switched("2") + frame0, channels.console("thread 2"))
        assert channels.mi_news() == ""
        assert re.fullmatch(r"\[Current thread is 2 \(Thread 0x[0-9a-f]+ \(LWP \d+\)\)\]\n", channels.console("thread"))

        assert re.match(frame1, channels.console("frame 1"))
        assert '=thread-selected,id="2",frame={level="1",' in channels.mi_news()
        assert re.match(frame1, channels.console("frame 1"))
        assert channels.mi_news() == ""
        # select-frame is silent on the consoles, MI still hears of it.
        assert channels.console("select-frame 0") == ""
        assert '=thread-selected,id="2",frame={level="0",' in channels.mi_news()

        # MI selects: its answer is its own, the console sees the switch.
        assert channels.mi_command("-thread-select 3").startswith('^done,new-thread-id="3",frame={level="0",')
        assert re.fullmatch(_switched("3") + frame0, channels.console_news())
        assert channels.mi_news() == ""
        channels.mi_command("-thread-select 3")
        assert channels.console_news() == ""
        assert channels.mi_command("-stack-select-frame 1").startswith("^done")
        assert re.fullmatch(_switched("3") + frame1 + r"[^\n]*\n", channels.console_news())

        # A console command on the MI channel: its lines and the event there, the console too.
        answer = channels.mi_command("thread 1")
        assert re.match(r'&"thread 1\\n"\n~"\[Switching to thread 1 \(Thread 0x[0-9a-f]+ \(LWP \d+\)\)\]\\n"\n'
                        r'~"#0  main_stop \(\) at [^\n]*\n~"[^\n]*\n=thread-selected,id="1",frame=\{level="0",'
                        r'[^\n]*func="main_stop"[^\n]*\n\^done\n', answer)
        assert re.match(_switched("1") + r"#0  main_stop \(\)", channels.console_news())

        # `inferior 1` re-announces the inferior, its thread and frame everywhere.
        assert re.match(r"\[Switching to inferior 1 \[process \d+\] \([^\n]*selection_sync\)\]\n" + _switched("1")
                        + r"#0  main_stop \(\)", channels.console("inferior 1"))
        news = channels.mi_news()
        assert '~"[Switching to inferior 1 [process ' in news
        assert '=thread-selected,id="1",frame={level="0",' in news
    finally:
        channels.close()
