"""A ^C typed while the program is stopped (at the prompt after a breakpoint, or before
`run` while the copy held for its symbols waits) is the debugger's alone, as in gdb 13:
`Quit` is printed, and the program, which shares the server's process group and so got
the terminal's SIGINT too, does not get it: `continue` runs it to its end, `run` stops at
the breakpoint. A SIGINT the program raises itself afterwards, and a ^C while it runs,
still stop it as before.

Real builds (gcc), `python -m aliceserver` (gdb's command line) and gdb 13 each on a
pseudo-terminal of their own (the ^C is the terminal's, to its foreground group), the same
keys typed to both, the same outcome asserted of both.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.terminal import PROMPT, Terminal, debugger_command, debuggers

pytestmark = pytest.mark.timeout(180)

_SOURCE = r"""
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
volatile int spin = 1;
int from_b(int v) { return v * 3 - 2; }
int main(int argc, char **argv)
{
    printf("result %d\n", from_b(argc + 4));
    if (argc > 1 && argv[1][0] == 'r')
        raise(SIGINT); /* its own */
    while (argc > 1 && argv[1][0] == 's' && spin)
        usleep(1000); /* until stopped by ^C and told spin = 0 */
    return 0;
}
"""
_RAISE_LINE = next(n for n, line in enumerate(_SOURCE.splitlines(), 1) if "raise(" in line)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("ctrl-c")
    (root / "prog.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "prog.c", "-o", "prog"], cwd=root, check=True, timeout=120)
    return root / "prog"


def _start(which: str, program: Path, tmp_path: Path) -> Terminal:
    argv, env = debugger_command(which, tmp_path)
    argv += ["-nx", "-q", "-ex", "set confirm off", "-ex", "set pagination off", str(program)]
    terminal = Terminal(argv, env, program.parent)
    terminal.read_until(PROMPT)
    return terminal


def _ctrl_c_at_prompt(terminal: Terminal) -> None:
    """^C at the prompt: gdb's `Quit` and a new prompt (the SIGINT delivered by then)."""
    terminal.type_ctrl_c()
    terminal.read_until(b"Quit")
    terminal.read_until(PROMPT)


def _end(terminal: Terminal) -> None:
    os.write(terminal.fd, b"quit\n")
    assert terminal.close() == 0
    assert "Traceback" not in terminal.output.decode(errors="replace")


@pytest.mark.parametrize("which", debuggers())
def test_ctrl_c_at_a_breakpoint_stop(program: Path, tmp_path: Path, which: str) -> None:
    terminal = _start(which, program, tmp_path)
    try:
        assert "Breakpoint 1 at " in terminal.command("break from_b")
        assert "Breakpoint 1, from_b (v=5)" in terminal.command("run")
        _ctrl_c_at_prompt(terminal)
        went_on = terminal.command("continue")
        assert "result 13" in went_on and "exited normally]" in went_on, went_on
        assert "SIGINT" not in went_on, went_on
    finally:
        _end(terminal)


@pytest.mark.parametrize("which", debuggers())
def test_ctrl_c_before_run(program: Path, tmp_path: Path, which: str) -> None:
    terminal = _start(which, program, tmp_path)
    try:
        assert "Breakpoint 1 at " in terminal.command("break from_b")
        _ctrl_c_at_prompt(terminal)
        stop = terminal.command("run")
        assert "Breakpoint 1, from_b (v=5)" in stop and "SIGINT" not in stop, stop
        assert "exited normally]" in terminal.command("continue")
    finally:
        _end(terminal)


@pytest.mark.parametrize("which", debuggers())
def test_own_sigint_after_ctrl_c(program: Path, tmp_path: Path, which: str) -> None:
    """The ^C's SIGINT dropped once only: the one the program raises stops it."""
    terminal = _start(which, program, tmp_path)
    try:
        terminal.command("break from_b")
        assert "Breakpoint 1, from_b (v=6)" in terminal.command("run r")
        _ctrl_c_at_prompt(terminal)
        stop = terminal.command("continue")
        assert "Program received signal SIGINT, Interrupt." in stop, stop
        backtrace = terminal.command("bt")
        assert "main (argc=2, argv=0x" in backtrace, backtrace
        assert f"prog.c:{_RAISE_LINE}" in backtrace, backtrace
        went_on = terminal.command("continue")  # gdb's SIGINT: not passed to the program
        assert "exited normally]" in went_on and "SIGINT" not in went_on, went_on
    finally:
        _end(terminal)


@pytest.mark.parametrize("which", debuggers())
def test_ctrl_c_while_running(program: Path, tmp_path: Path, which: str) -> None:
    terminal = _start(which, program, tmp_path)
    try:
        os.write(terminal.fd, b"run s\n")  # (no prompt until it stops)
        terminal.read_until(b"result 16")
        time.sleep(0.2)  # (running its loop)
        terminal.type_ctrl_c()
        stop = terminal.read_until(PROMPT).decode(errors="replace")
        assert "Program received signal SIGINT, Interrupt." in stop, stop
        terminal.command("print spin = 0")
        went_on = terminal.command("continue")
        assert "exited normally]" in went_on and "SIGINT" not in went_on, went_on
    finally:
        _end(terminal)
