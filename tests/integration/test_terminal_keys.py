"""The terminal as gdb 13 shares it with the program it started: the program runs in a
process group of its own that holds the terminal while it runs, and the debugger takes
the terminal back at each stop. So Ctrl-Z while it runs stops the program with SIGTSTP
(the debugger is not suspended by the shell), Ctrl-\\ gives the program SIGQUIT (the
debugger does not die of it), the program reads what is typed while it runs, and after
`kill` or the exit a ^C at the prompt is the debugger's Quit.

Real builds (gcc), `python -m aliceserver` and gdb 13 each run as a job of a small
job-control shell on a pseudo-terminal of their own (tests/support/terminal.py), the same
keys typed to both, the same outcome asserted of both.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.terminal import PROMPT, SUSPENDED, Terminal, debugger_command, debuggers

pytestmark = pytest.mark.timeout(180)

_SOURCE = r"""
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
volatile int spin = 1;
void stop_here(void) {}
int main(int argc, char **argv)
{
    char line[100];
    if (argc > 1 && argv[1][0] == 'h') { /* a child takes the terminal, and leaves */
        pid_t child = fork();
        if (child == 0) {
            setpgid(0, 0);
            signal(SIGTTOU, SIG_IGN);
            tcsetpgrp(0, getpid());
            _exit(0);
        }
        waitpid(child, NULL, 0);
        stop_here();
        argv[1] = "i";
    }
    printf("started\n");
    fflush(stdout);
    if (argc > 1 && argv[1][0] == 'i' && fgets(line, sizeof line, stdin))
        printf("read: %s", line);
    while (argc > 1 && argv[1][0] == 's' && spin)
        usleep(1000); /* until a key stops it and it is told spin = 0 */
    return 0;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("terminal-keys")
    (root / "prog.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "prog.c", "-o", "prog"], cwd=root, check=True, timeout=120)
    return root / "prog"


def _start(which: str, program: Path, tmp_path: Path) -> Terminal:
    argv, env = debugger_command(which, tmp_path)
    argv += ["-nx", "-q", "-ex", "set confirm off", "-ex", "set pagination off", str(program)]
    terminal = Terminal(argv, env, program.parent, job_control=True)
    terminal.read_until(PROMPT)
    return terminal


def _until_prompt(terminal: Terminal) -> str:
    """Up to the next prompt, or all there is once the shell says the debugger was
    suspended (or it died)."""
    end = time.monotonic() + 20
    while PROMPT not in terminal.output and SUSPENDED not in terminal.output:
        assert time.monotonic() < end, terminal.output.decode(errors="replace")
        ready, _, _ = select.select([terminal.fd], [], [], 0.1)
        try:
            chunk = os.read(terminal.fd, 1 << 16) if ready else b""
        except OSError:  # (the debugger is gone)
            break
        terminal.output += chunk
        if ready and not chunk:
            break
    if PROMPT in terminal.output:
        return terminal.read_until(PROMPT).decode(errors="replace")
    said, terminal.output = terminal.output, b""
    return said.decode(errors="replace")


def _wait_reading(program: Path) -> None:
    """Until `program` (its running process) waits in a read(2) of its stdin."""
    end = time.monotonic() + 60
    while True:
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if os.readlink(f"/proc/{pid}/exe") != str(program):
                    continue
                with open(f"/proc/{pid}/syscall") as syscall:
                    if syscall.read().split()[:2] == ["0", "0x0"]:  # read(0, ...)
                        return
            except OSError:
                continue
        assert time.monotonic() < end, "the program never read its stdin"
        time.sleep(0.05)


def _ctrl_c_at_prompt(terminal: Terminal) -> None:
    terminal.type_ctrl_c()
    terminal.read_until(b"Quit")
    terminal.read_until(PROMPT)


def _end(terminal: Terminal) -> None:
    os.write(terminal.fd, b"quit\n")
    assert terminal.close() == 0, terminal.output.decode(errors="replace")
    assert "Traceback" not in terminal.output.decode(errors="replace")


@pytest.mark.parametrize(("key", "received"), [
    (b"\x1a", "Program received signal SIGTSTP, Stopped (user)."),
    (b"\x1c", "Program received signal SIGQUIT, Quit."),
    (b"\x03", "Program received signal SIGINT, Interrupt."),
], ids=["ctrl-z", "ctrl-backslash", "ctrl-c"])  # fmt: skip
@pytest.mark.parametrize("which", debuggers())
def test_key_while_running_reaches_the_program(
    program: Path, tmp_path: Path, which: str, key: bytes, received: str
) -> None:
    terminal = _start(which, program, tmp_path)
    try:
        os.write(terminal.fd, b"run s\n")  # (no prompt until it stops)
        terminal.read_until(b"started")
        time.sleep(0.2)  # (running its loop)
        terminal.type_key(key)
        stop = _until_prompt(terminal)
        assert received in stop and "[suspended]" not in stop, stop
        terminal.command("print spin = 0")
        _ctrl_c_at_prompt(terminal)  # the terminal is the debugger's again
        assert "killed]" in terminal.command("kill")
        _ctrl_c_at_prompt(terminal)  # and stays so once the program is gone
    finally:
        _end(terminal)


@pytest.mark.parametrize("which", debuggers())
def test_ctrl_z_then_continue_stops_in_the_group_stop(
    program: Path, tmp_path: Path, which: str
) -> None:
    """`continue` passes SIGTSTP on: the program's stop by it is told once more, as gdb
    tells it, and the next `continue` runs it on."""
    terminal = _start(which, program, tmp_path)
    try:
        os.write(terminal.fd, b"run s\n")
        terminal.read_until(b"started")
        time.sleep(0.2)  # (running its loop)
        terminal.type_key(b"\x1a")
        assert "Program received signal SIGTSTP, Stopped (user)." in _until_prompt(terminal)
        terminal.command("print spin = 0")
        again = terminal.command("continue")
        assert "Program received signal SIGTSTP, Stopped (user)." in again, again
        went_on = terminal.command("continue")
        assert "exited normally]" in went_on and "SIGTSTP" not in went_on, went_on
    finally:
        _end(terminal)


@pytest.mark.parametrize("which", debuggers())
def test_program_reads_the_terminal_while_it_runs(
    program: Path, tmp_path: Path, which: str
) -> None:
    terminal = _start(which, program, tmp_path)
    try:
        assert "Breakpoint 1 at " in terminal.command("break main")
        assert "Breakpoint 1, main" in terminal.command("run i")
        os.write(terminal.fd, b"continue\n")
        terminal.read_until(b"started", 20)
        time.sleep(0.2)  # (waiting in its read)
        os.write(terminal.fd, b"typed while it runs\n")
        went_on = terminal.read_until(PROMPT, 20).decode(errors="replace")
        assert "read: typed while it runs" in went_on and "exited normally]" in went_on, went_on
        _ctrl_c_at_prompt(terminal)  # the exit gave the terminal back
    finally:
        _end(terminal)


@pytest.mark.parametrize("which", debuggers())
def test_the_terminal_goes_back_to_the_program_when_its_holder_left(
    program: Path, tmp_path: Path, which: str
) -> None:
    """The program's child took the terminal and ended before the stop: the program gets
    it back when it runs on, and reads it (not stopped by SIGTTIN)."""
    terminal = _start(which, program, tmp_path)
    try:
        assert "Breakpoint 1 at " in terminal.command("break stop_here")
        assert "Breakpoint 1, stop_here" in terminal.command("run h")
        os.write(terminal.fd, b"continue\n")
        terminal.read_until(b"started", 20)
        time.sleep(0.2)  # (waiting in its read)
        os.write(terminal.fd, b"typed after the hand-off\n")
        went_on = terminal.read_until(PROMPT, 20).decode(errors="replace")
        assert "read: typed after the hand-off" in went_on and "exited normally]" in went_on, (
            went_on
        )
    finally:
        _end(terminal)


@pytest.mark.parametrize("which", debuggers())
def test_a_function_called_reads_the_terminal(program: Path, tmp_path: Path, which: str) -> None:
    """A function the debugger calls holds the terminal too (gdb's run_inferior_call):
    getchar() reads the line typed, not stopped by SIGTTIN. (gdb 13 on these machines then
    fails to restore the registers' extended state, said in its words: only the read and
    the prompt are asserted of it.)"""
    terminal = _start(which, program, tmp_path)
    try:
        assert "Breakpoint 1, main" in terminal.command("break main") + terminal.command("run")
        os.write(terminal.fd, b"print (int) getchar()\n")
        _wait_reading(program)  # (typed before, the line would be the debugger's next command)
        os.write(terminal.fd, b"x\n")
        called = terminal.read_until(PROMPT, 20).decode(errors="replace")
        assert "SIGTTIN" not in called, called
        if which == "aliceserver":
            assert "$1 = 120" in called, called
        _ctrl_c_at_prompt(terminal)  # the terminal is the debugger's again
    finally:
        _end(terminal)


_THREADS = r"""
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
static pthread_barrier_t together;
int hits;
static void handler(int sig) { (void)sig; __atomic_fetch_add(&hits, 1, __ATOMIC_RELAXED); }
static void *run(void *unused)
{
    (void)unused;
    pthread_barrier_wait(&together);
    for (int i = 0; i < 5; i++)
        raise(SIGUSR1);
    return NULL;
}
int main(void)
{
    pthread_t threads[4];
    signal(SIGUSR1, handler);
    pthread_barrier_init(&together, NULL, 4);
    for (int i = 0; i < 4; i++)
        pthread_create(&threads[i], NULL, run, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    printf("hits %d\n", hits);
    return 0;
}
"""


@pytest.mark.parametrize("which", debuggers())
def test_the_terminal_comes_back_at_each_stop_of_many_threads(tmp_path: Path, which: str) -> None:
    """Threads raising SIGUSR1 together: a stop told at a continue from those queued
    meanwhile gives the terminal back too (the next command is read)."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    (tmp_path / "threads.c").write_text(_THREADS)
    subprocess.run(["gcc", "-g", "-O0", "-pthread", "threads.c", "-o", "threads"], cwd=tmp_path, check=True,
                   timeout=120)  # fmt: skip
    terminal = _start(which, tmp_path / "threads", tmp_path)
    try:
        assert "received signal SIGUSR1" in terminal.command("run")
        for _ in range(12):
            assert "received signal SIGUSR1" in terminal.command("continue")
            assert "$" in terminal.command("print hits")  # read: the terminal is ours
    finally:
        _end(terminal)


@pytest.mark.parametrize("which", debuggers())
def test_mi_async_keeps_the_terminal(program: Path, tmp_path: Path, which: str) -> None:
    """With mi-async the program runs in the background, as in gdb: the debugger reads
    its commands from the terminal meanwhile (-exec-interrupt stops the program)."""
    argv, env = debugger_command(which, tmp_path)
    prompt = b"(gdb) \r\n"
    terminal = Terminal(
        [*argv, "-i=mi", "-nx", "-q", str(program)], env, program.parent, job_control=True
    )
    try:
        terminal.read_until(prompt)
        said = b""
        for line in ("-gdb-set mi-async on", "-exec-arguments s", "-exec-run"):
            os.write(terminal.fd, line.encode() + b"\n")
            said += terminal.read_until(prompt, 20)
            assert b"^" in said
        if b"started" not in (line.strip() for line in said.split(b"\n")):  # the program's line,
            terminal.read_until(b"started", 20)  # unless it came before the prompt
        time.sleep(0.2)  # (running its loop)
        os.write(terminal.fd, b"-exec-interrupt\n")
        terminal.read_until(b"*stopped", 20)
    finally:
        os.write(terminal.fd, b"-gdb-exit\n")
        assert terminal.close(20) == 0
