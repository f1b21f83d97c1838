"""A signal handler's stack against gdb 13: the kernel's return trampoline between the
handler and the frame the signal interrupted is gdb's SIGTRAMP_FRAME, shown as
`<signal handler called>` (bt, frame, up, info frame with the sigcontext's slots, finish
out of it, MI's frame tuples), and the interrupted frame's pc is exact: no `0x... in`
where it starts a line, its line looked up at the pc itself. Programs built here: a
raise() (SIGUSR1), a SIGSEGV and a SIGALRM handler, nested signals, a handler on an
alternate stack, a handler in a second thread."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, ex, needs_gdb, ours, theirs
from tests.support.gdb import gdb_path
from tests.support.gdbserver import gdbserver
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(600)]

_SOURCE = r"""
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

volatile int hits;
static sigjmp_buf back;

void handler(int s) {
  hits += s;
}

void on_segv(int s) {
  hits += s;
  siglongjmp(back, 1);
}

void outer(int s) {
  hits += s;
  raise(SIGUSR2);
}

void on_alt(int s) {
  int local = s * 2;
  hits += local;
}

int crash(int *p) {
  return *p + 1;
}

int work(int n) {
  raise(SIGUSR1);
  return n + hits;
}

void *worker(void *arg) {
  raise(SIGUSR1);
  return arg;
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  if (mode == 0) {
    signal(SIGUSR1, handler);
    return work(3) > 100;
  } else if (mode == 1) {
    signal(SIGSEGV, on_segv);
    if (!sigsetjmp(back, 1))
      crash(0);
  } else if (mode == 2) {
    signal(SIGALRM, handler);
    alarm(1);
    while (!hits)
      ;
  } else if (mode == 3) {
    signal(SIGUSR1, outer);
    signal(SIGUSR2, handler);
    raise(SIGUSR1);
  } else if (mode == 4) {
    stack_t ss;
    ss.ss_sp = malloc(SIGSTKSZ);
    ss.ss_size = SIGSTKSZ;
    ss.ss_flags = 0;
    sigaltstack(&ss, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alt;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, 0);
    raise(SIGUSR1);
  } else {
    pthread_t t;
    signal(SIGUSR1, handler);
    pthread_create(&t, 0, worker, 0);
    pthread_join(t, 0);
  }
  return hits == 0;
}
"""

_QUIET = ex(*(f"handle {name} nostop noprint" for name in ("SIGUSR1", "SIGUSR2", "SIGALRM")))


@pytest.fixture(scope="module")
def sigs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("sigframes")
    (where / "sigs.c").write_text(_SOURCE)
    subprocess.run(["gcc", "-g", "-O0", "-pthread", "-o", "sigs", "sigs.c"], cwd=where, check=True)
    return where / "sigs"


def _normalized(text: str) -> str:
    """What differs between gdb's run and ours: stack addresses (gdb adds LINES and COLUMNS
    to the environment; the kernel aligns a signal frame on its own), pids and LWPs, and
    gdb's libthread_db lines."""
    lines = [line for line in text.splitlines() if "libthread_db" not in line]
    text = "\n".join(lines)
    text = re.sub(r"0x7ffffff[0-9a-f]{5}", "0xSTACK", text)
    text = re.sub(r"argv=0x[0-9a-f]+", "argv=0x...", text)
    text = re.sub(r"LWP \d+", "LWP N", text)
    text = re.sub(r'core="\d+"', 'core="N"', text)
    return re.sub(r"process \d+", "process N", text)


def _like_gdb(sigs: Path, mode: int, *commands: str, any_pc: bool = False) -> str:
    """`any_pc`: the program's code addresses masked, where a signal interrupts a busy loop
    at whichever of its instructions runs then (a race, in gdb's run as in ours)."""
    args = ["-batch", "-nx", *_QUIET, *ex(*commands), "--args", str(sigs), str(mode)]
    expected, got = theirs(args, sigs.parent), ours(args, sigs.parent)

    def shown(text: str) -> str:
        text = _normalized(text)
        return re.sub(r"0x0*5555555[0-9a-f]{5}", "0xCODE", text) if any_pc else text

    assert shown(got.stdout) == shown(expected.stdout)
    assert shown(got.stderr) == shown(expected.stderr)
    return got.stdout


def test_raise_handler_frames_like_gdb(sigs: Path) -> None:
    """bt (full, -frame-info), frame/up/down onto the trampoline and the interrupted frame,
    info frame at both, info args and locals at the trampoline, frame function."""
    out = _like_gdb(sigs, 0, "break handler", "run", "bt", "bt full", "bt -frame-info short-location",
                    "bt -frame-info source-line", "bt -frame-info location-and-address", "frame 1",
                    "info frame", "info args", "info locals", "up", "info frame", "down", "down",
                    "frame function work", "frame function handler")
    assert "#1  <signal handler called>\n" in out


def test_finish_out_of_the_trampoline_like_gdb(sigs: Path) -> None:
    """finish at the trampoline stops in the interrupted frame, with no value (gdb knows no
    function there); finish from the interrupted frame returns as from any."""
    _like_gdb(sigs, 0, "break handler", "run", "frame 1", "finish", "bt", "finish")
    _like_gdb(sigs, 0, "break handler", "run", "finish", "finish", "p $", "bt 1")  # the trampoline as frame 0


def test_finish_out_of_the_handler_and_next_like_gdb(sigs: Path) -> None:
    """finish from the handler stops at the trampoline (frame 0: `<signal handler called>`);
    next there says gdb's 'Single stepping until exit from function __restore_rt' and
    stops in the interrupted frame."""
    _like_gdb(sigs, 0, "break handler", "run", "finish", "bt", "info frame", "frame", "next", "bt 2", "step")


def test_stepi_through_the_trampoline_like_gdb(sigs: Path) -> None:
    """stepi in the trampoline keeps its name (__restore_rt+7 is no `sigaction`), and the
    step over its rt_sigreturn `syscall` (a TRAP_BRKPT SIGTRAP) lands in the interrupted
    frame, as any step over a system call (it said 'Program received signal SIGTRAP')."""
    _like_gdb(sigs, 0, "break handler", "run", "finish", "stepi", "info frame", "bt 2", "stepi", "bt 2", "stepi")


def test_next_in_a_function_without_lines_like_gdb(tmp_path: Path) -> None:
    """The same note for any function without line info (an object built without -g)."""
    (tmp_path / "nod.c").write_text("int nodebug(int x) { int y = x * 2; for (int i = 0; i < 3; i++) y += i; return y; }\n")
    (tmp_path / "use.c").write_text("int nodebug(int x);\nint main(void) {\n  return nodebug(3) != 9;\n}\n")
    subprocess.run(["gcc", "-O0", "-c", "nod.c"], cwd=tmp_path, check=True)
    subprocess.run(["gcc", "-g", "-O0", "-o", "use", "use.c", "nod.o"], cwd=tmp_path, check=True)
    args = ["-batch", "-nx", *ex("break nodebug", "run", "next", "bt", "next"), str(tmp_path / "use")]
    expected, got = theirs(args, tmp_path), ours(args, tmp_path)
    assert _normalized(got.stdout) == _normalized(expected.stdout)
    assert "Single stepping until exit from function nodebug," in got.stdout


def test_segv_and_alarm_handlers_like_gdb(sigs: Path) -> None:
    """A fault's handler: the interrupted frame is the faulting one, shown with its pc
    (mid-line), reached after the fault's stop or straight under `handle SIGSEGV nostop`
    (which stopped at the fault before); a SIGALRM in a busy loop: finish out of the trampoline stops mid-line."""
    _like_gdb(sigs, 1, "break on_segv", "run", "continue", "bt full", "frame 1", "info frame", "frame 2",
              "info frame", "finish")
    _like_gdb(sigs, 2, "break handler", "run", "bt", "up", "up", "info frame", "frame 1", "finish", any_pc=True)
    for policy in ("nostop noprint", "nostop print"):  # the fault goes to its handler unreported
        out = _like_gdb(sigs, 1, f"handle SIGSEGV {policy}", "break on_segv", "run", "bt", "continue")
        assert "#1  <signal handler called>" in out


def test_nested_altstack_and_thread_handlers_like_gdb(sigs: Path) -> None:
    """Two trampolines in one stack, one on a sigaltstack, one in a second thread."""
    out = _like_gdb(sigs, 3, "break handler", "run", "bt", "frame 3", "info frame", "frame 1", "finish", "bt")
    assert out.count("<signal handler called>") >= 2
    # (not info locals up there: libc's uninitialized sigset shows stack bytes that differ with
    # the environment, and gdb adds LINES and COLUMNS to it)
    _like_gdb(sigs, 4, "break on_alt", "run", "bt", "frame 1", "info frame", "up", "info frame", "info args")
    _like_gdb(sigs, 5, "break handler", "run", "bt", "frame 1", "info frame", "frame 2", "finish")


def test_signal_frames_over_gdbserver_like_gdb(sigs: Path) -> None:
    """The same frames, unwound from a stub's registers and memory."""
    runs = []
    for run in (theirs, ours):
        with gdbserver(sigs, ["0"]) as server:
            args = ["-batch", "-nx", *ex(f"target remote {server.address}"), *_QUIET,
                    *ex("break handler", "continue", "bt", "frame 1", "info frame", "info args", "up", "finish",
                        "bt 2"), str(sigs)]  # fmt: skip
            runs.append(run(args, sigs.parent))
    expected, got = ([line for line in _normalized(r.stdout + r.stderr).splitlines() if "from remote target" not in line
                      and not line.startswith("warning: File transfers")] for r in runs)  # fmt: skip
    assert got == expected
    assert "#1  <signal handler called>" in got


_MI = """\
-interpreter-exec console "handle SIGUSR1 nostop noprint"
-break-insert handler
-exec-run
-stack-list-frames
-stack-list-arguments 1
-stack-list-arguments --simple-values 1 1
-stack-list-locals --thread 1 --frame 1 1
-stack-list-variables --thread 1 --frame 1 1
-stack-list-variables --thread 1 --frame 2 1
-stack-info-frame --thread 1 --frame 1
-stack-select-frame 1
-stack-info-frame
-interpreter-exec console "frame"
-interpreter-exec console "bt 3"
-exec-finish
-stack-list-frames
-gdb-exit
"""

_MI_OUT = """\
-interpreter-exec console "handle SIGUSR1 nostop noprint"
-break-insert handler
-exec-run
-exec-finish
-stack-list-frames 0 1
-gdb-set print address off
-stack-list-frames 0 1
-stack-info-frame
-gdb-set print address on
-stack-list-arguments 1 0 0
-stack-list-locals 1
-exec-next
-stack-list-frames 0 1
-gdb-exit
"""


def _mi(command: list[str], sigs: Path, script: str) -> list[str]:
    """The records after the run, as their commands answer them one at a time."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([*command, "-nx", "-q", "-i=mi", "--args", str(sigs), "0"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=sigs.parent, env=env)
    assert process.stdin is not None and process.stdout is not None
    lines: list[str] = []
    for command_line in script.splitlines():
        process.stdin.write(command_line + "\n")
        process.stdin.flush()
        while not command_line.startswith("-gdb-exit"):  # up to its answer, or the stop after ^running
            line = process.stdout.readline()
            assert line, lines
            lines.append(line.rstrip("\n"))
            if line.startswith(("^done", "^error")) or line.startswith("*stopped"):
                break
    process.communicate(timeout=PATIENCE)
    kept = [line for line in lines if line[:1] in "^*~&" and "libthread_db" not in line]
    return [_normalized(line) for line in kept[kept.index("^running"):]]


def test_mi_signal_frames_like_gdb(sigs: Path) -> None:
    """frame={level="1",addr=...,func="<signal handler called>"} in every frame list (its
    addr even under `print address off`), no arguments or variables for it, and a finish
    out of it stops without a reason."""
    gdb = gdb_path()
    assert gdb is not None
    for script in (_MI, _MI_OUT):  # finish out of the trampoline; out of the handler, then next
        got, expected = _mi([sys.executable, "-m", "aliceserver"], sigs, script), _mi([gdb], sigs, script)
        assert got == expected
        assert any('func="<signal handler called>"' in line for line in got)
