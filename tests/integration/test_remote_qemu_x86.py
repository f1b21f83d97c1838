"""x86-64 programs under qemu-user's gdb stub (`qemu-x86_64 -g PORT`), debugged through
`target remote` by `aliceserver -batch` / MI and by gdb 13 over a stub of their own. qemu's
stub offers another packet set than gdbserver's: no qXfer:libraries-svr4 nor
qXfer:threads:read (threads by qfThreadInfo, names by qThreadExtraInfo), no
QStartNoAckMode (acks throughout), no vCont;r (a `next` steps an instruction at a time),
its process is `process 1` and its threads are host tids.

A static program shows the same under both. With a dynamic one gdb 13 finds no
libraries over this stub (`?? ()` at the loader's first instruction, "No shared libraries
loaded"), where we read the loader's list from memory as over any stub without
libraries-svr4; the program's own lines are compared."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient
from tests.support.qemu import qemu_stub

pytestmark = [needs_gdb, pytest.mark.timeout(300)]
EMULATOR = "qemu-x86_64"


def _normalized(text: str) -> str:
    text = re.sub(r"Thread 1\.\d+", "Thread 1.T", text)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)


def _both(program: Path, commands: Sequence[str], cwd: Path) -> tuple[str, str]:
    """(gdb's, ours) normalised stdout and stderr of `-batch` COMMANDS after `set sysroot /`
    and `target remote` to a fresh qemu-x86_64 stub running `program`."""
    said = []
    for run in (theirs, ours):
        with qemu_stub(program, emulator=EMULATOR, sysroot=None) as stub:
            done = run(["-batch", "-nx", *ex("set sysroot /", f"target remote {stub.address}", *commands),
                        str(program)], cwd)  # fmt: skip
        said.append(_normalized(done.stdout + "\n--stderr--\n" + done.stderr))
    return said[0], said[1]


@pytest.fixture
def static(builder: Builder) -> Path:
    return builder.build("mi_prog", extra=["-static"])


def test_break_step_finish_inspect_like_gdb(static: Path, tmp_path: Path) -> None:
    loop = marker_line("mi_prog.c", "loop")
    gdb, alice = _both(static, [
        "info sharedlibrary", "break main", "continue", "bt", "info locals", "next", "next",
        f"break mi_prog.c:{loop}", "continue", "step", "bt", "up", "info frame", "down", "finish", "stepi",
        "x/2i $pc", "info registers rip", "print pt", "ptype pt", "print *pp", "info threads", "delete",
        "continue",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "add (a=0, b=10)" in alice and "Value returned is $1 = 10" in alice
    assert "[Inferior 1 (process 1) exited normally]" in alice


def test_a_watch_the_stub_cannot_place_refuses_each_resume_like_gdb(static: Path, tmp_path: Path) -> None:
    """qemu-user's stub has no Z2: gdb sets the watchpoint, then refuses to resume while
    it cannot be inserted (\"Could not insert hardware watchpoint\"); a step too, until
    it is deleted."""
    loop = marker_line("mi_prog.c", "loop")
    gdb, alice = _both(static, [
        f"break mi_prog.c:{loop}", "continue", "continue", "print total", "print arr", "until", "until",
        "watch counter", "watch total", "continue", "stepi", "info breakpoints", "delete 2", "next", "delete 3",
        "next", "kill",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "Hardware watchpoint 2: counter" in alice
    assert alice.count("Could not insert hardware watchpoint 3.") == 3 and "Command aborted." in alice


def test_threads_by_qfthreadinfo_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("gcore_threads", extra=["-pthread", "-static"])
    gdb, alice = _both(program, ["break report", "continue", "thread", "bt 1", "info threads", "thread 2",
                                 "print index", "continue", "info threads", "kill"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "(CPU#0 [running])" in alice  # qemu's qThreadExtraInfo, as gdb shows it


def test_dynamic_program_lines_like_gdb_and_its_libraries_found(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    gdb, alice = _both(program, ["break add", "continue", "bt", "print a", "next", "finish", "info threads",
                                 "info sharedlibrary", "kill"], tmp_path)  # fmt: skip
    first = re.compile(r"\A0x[0-9a-f]+ in .*\n")
    libraries = re.compile(r"^(From .*|0x\w+ +0x\w+ +Yes .*|No shared libraries loaded at this time\.)\n", re.M)
    assert libraries.sub("", first.sub("", alice)) == libraries.sub("", first.sub("", gdb))
    assert re.match(r"0x[0-9a-f]+ in \?\? \(\)\n", gdb)  # gdb 13 over qemu-x86_64: no loader
    assert re.match(r"0x[0-9a-f]+ in _start \(\) from /\S*ld-linux-x86-64\.so\.2\n", alice)
    assert re.search(r"^0x\w+ +0x\w+ +Yes +/\S*libc\.so\.6$", alice, re.M)
    assert "Breakpoint 1, add (a=0, b=10)" in alice and "Value returned is $2 = 10" in alice


def _mi_session(program: Path, cwd: Path, *, gdb: bool) -> list[str]:
    seen: list[str] = []
    with qemu_stub(program, emulator=EMULATOR, sysroot=None) as stub:
        mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
        try:
            mi.prompt()
            for command in ("-gdb-set sysroot /", f"-target-select remote {stub.address}", "-break-insert add",
                            "-exec-continue", "-stack-list-frames", "-stack-list-variables --all-values",
                            "-var-create - * pt", "-exec-next", "-exec-finish", "-thread-info",
                            "-exec-continue"):  # fmt: skip
                _, lines = mi.command(command)
                seen += lines
                if command.startswith("-exec"):
                    seen += mi.read_until(lambda line: line.startswith(("*stopped", "=thread-group-exited")))
        finally:
            mi.close()
    return [_normalized(line) for line in seen if line != "(gdb) "]


def test_mi_session_like_gdb(static: Path, tmp_path: Path) -> None:
    gdb = _mi_session(static, tmp_path, gdb=True)
    alice = _mi_session(static, tmp_path, gdb=False)
    assert alice == gdb
    assert any(line.startswith('*stopped,reason="function-finished"') for line in alice)


def test_no_stray_qemu_left(static: Path) -> None:
    with qemu_stub(static, emulator=EMULATOR, sysroot=None) as stub:
        pid = stub.process.pid
    assert subprocess.run(["kill", "-0", str(pid)], capture_output=True).returncode != 0
