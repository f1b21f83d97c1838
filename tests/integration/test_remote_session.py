"""`target remote` through the engine: real gdbserver debugs the program, and the console
and MI say what gdb 13 says over the same kind of stub (both with `set sysroot /`: the
libraries are read from this machine, so gdb prints no "Reading ... from remote target").
Every gdbserver and program ends with its test (tests/support/gdbserver.py)."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from aliceserver.debuggers.remote.targetfiles import SLOW_WARNING
from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdbserver import GdbServer, assert_gone, gdbserver, gdbserver_path
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _normalized(text: str) -> str:
    text = normalized(text)
    text = re.sub(r"Thread \d+\.\d+", "Thread P.T", text)
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    text = re.sub(r"pid = \d+", "pid = N", text)
    # `info inferiors` pads its Description column to the pid's digits: a stub's pid and
    # ours may have a different number of them
    text = re.sub(r"(process N) +", r"\1 ", text)
    return re.sub(r"=0x7ff[0-9a-f]+", "=0x7ff...", text)


def _both(program: Path, commands: Sequence[str], cwd: Path, *, args: Sequence[str] = (),
          multi: bool = False, gdb_only: Sequence[str] = ()) -> tuple[str, str]:  # fmt: skip
    """(gdb's, ours) normalized stdout + stderr of `-batch` COMMANDS, `{target}` standing for
    a fresh gdbserver's address each; `gdb_only`: settings only gdb needs."""
    said = []
    for run, extra in ((theirs, gdb_only), (ours, ())):
        with gdbserver(None if multi else program, args, multi=multi) as server:
            lines = ["set sysroot /", *extra, *(c.replace("{target}", server.address) for c in commands)]
            done = run(["-batch", "-nx", *ex(*lines), str(program)], cwd)
            said.append(_normalized(done.stdout + "\n--stderr--\n" + done.stderr))
    return said[0], said[1]


def test_break_continue_step_finish_inspect_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    loop = marker_line("mi_prog.c", "loop")
    gdb, alice = _both(program, [
        "target remote {target}", "break main", "continue", "bt", "info locals", "next", "next",
        f"break mi_prog.c:{loop}", "continue", "step", "bt", "up", "down", "finish", "print total",
        "ptype pt", "x/4dw arr", "info registers rip", "info threads", "kill",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "Breakpoint 1, main" in alice and "add (a=0, b=10)" in alice and "Value returned is $1 = 10" in alice


def test_pending_breakpoint_in_a_library_loaded_later_like_gdb(builder: Builder, tmp_path: Path) -> None:
    library = builder.build("lib_plugin", extra=["-shared", "-fPIC"])
    program = builder.build("dlopen_main", extra=["-ldl"])
    gdb, alice = _both(program, [
        "set breakpoint pending on", "target remote {target}", "break plugin_work", "continue", "bt 1",
        "print x", "continue",
    ], tmp_path, args=[str(library)])  # fmt: skip
    # stdout only: the warnings gdb adds on stderr (`Function "plugin_work" not defined.`, the
    # library's breakpoints disabled at dlclose) are missing from native debugging too
    assert _stdout(alice) == _stdout(gdb)
    assert "Breakpoint 1, plugin_work (x=20)" in alice and "exited normally" in alice


def _stdout(said: str) -> str:
    return said.split("--stderr--")[0]


def test_watchpoint_over_the_stub_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    gdb, alice = _both(program, ["target remote {target}", "break main", "continue", "watch counter",
                                 "continue", "continue"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "Hardware watchpoint 2: counter\n\nOld value = 5\nNew value = 6" in alice


def test_threads_over_the_stub_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """The threads as gdb numbers them (the stop's thread first, then the stub's list); the
    other threads' frames in libc are left out: they differ from gdb's natively too."""
    program = builder.build("gcore_threads", extra=["-pthread"])
    gdb, alice = _both(program, ["target remote {target}", "break report", "continue", "thread", "bt 1",
                                 "thread 2", "print index", "info threads 2", "kill"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert 'Thread 2 "gcore_threads" hit Breakpoint 1, report' in alice and alice.count("[New Thread P.T]") == 3


def test_detach_lets_the_program_finish_and_kill_ends_it(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    gdb, alice = _both(program, ["target remote {target}", "break add", "continue", "detach", "info threads"],
                       tmp_path)  # fmt: skip
    assert alice == gdb
    assert "detached]" in alice
    with gdbserver(program) as server:  # the program, left alone, exits and gdbserver with it
        done = ours(["-batch", "-nx", *ex(f"target remote {server.address}", "break add", "continue",
                                          "detach"), str(program)], tmp_path)  # fmt: skip
        assert "detached]" in done.stdout, done.stdout + done.stderr
        assert server.process.wait(timeout=20) == 0
        assert server.inferior_pid is not None
        assert_gone(server.inferior_pid)


def test_extended_remote_runs_the_program_twice(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    line = marker_line("mi_prog.c", "end")
    gdb, alice = _both(program, [
        f"set remote exec-file {program}", "target extended-remote {target}", f"break mi_prog.c:{line}", "run",
        "print counter", "kill", "run", "print counter", "continue",
    ], tmp_path, multi=True)  # fmt: skip
    assert alice == gdb
    assert alice.count("Breakpoint 1, main") == 2


def test_pipe_to_gdbserver_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    said = []
    for run in (theirs, ours):
        done = run(["-batch", "-nx", *ex("set sysroot /", f"target remote | {gdbserver_path()} - {program}",
                                         "break add", "continue", "bt", "kill"), str(program)], tmp_path)  # fmt: skip
        said.append(_normalized(done.stdout))
    assert said[1] == said[0]
    assert "Breakpoint 1, add" in said[1]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_bad_connections_and_commands_without_one(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    port = _closed_port()
    done = ours(["-batch", "-nx", *ex("set tcp auto-retry off", f"target remote 127.0.0.1:{port}", "monitor help",
                                      "disconnect", "target remote"), str(program)], tmp_path)  # fmt: skip
    assert done.stderr.splitlines() == [
        f"127.0.0.1:{port}: Connection refused.",
        '"monitor" command not supported by this target.',
        "You can't do that when your target is `exec'",
        "To open a remote debug connection, you need to specify what",
        "serial device is attached to the remote system",
        "(e.g. /dev/ttyS0, /dev/ttya, COM1, etc.).",
    ]
    # gdb says the same but for the refused port (refused at once with tcp auto-retry off)
    expected = theirs(["-batch", "-nx", *ex("monitor help", "disconnect", "target remote"), str(program)], tmp_path)
    assert done.stderr.splitlines()[1:] == expected.stderr.splitlines()


def test_target_remote_while_connected_and_monitor_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    with gdbserver(program) as first, gdbserver(program) as second:
        done = ours(["-batch", "-nx", *ex(f"target remote {first.address}", "monitor set debug 0",
                                          f"target remote {second.address}", "info threads", "kill"),
                     str(program)], tmp_path)  # fmt: skip
    assert "Debug output disabled." in done.stdout
    assert "Already connected to a remote target.  Disconnect? (y or n) [answered Y; input not from terminal]" \
        in done.stdout
    assert f"Thread {second.inferior_pid}.{second.inferior_pid}" in done.stdout, done.stdout + done.stderr


@contextmanager
def _mi_on(server: GdbServer, program: Path, cwd: Path, *, gdb: bool) -> Iterator[tuple[MiClient, list[str]]]:
    """An MI session, gdb's or ours, connected to `server` by -target-select remote, and the
    lines the connection printed; closed at the end."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-gdb-set sysroot /")
        mi.ok("-gdb-set mi-async on")  # commands are read while the program runs
        result, lines = mi.command(f"-target-select remote {server.address}")
        assert result.cls == "connected", lines
        yield mi, lines
    finally:
        mi.close()


def test_mi_target_select_and_interrupt_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("longrun")
    seen = []
    for gdb in (True, False):
        with gdbserver(program) as server, _mi_on(server, program, tmp_path, gdb=gdb) as (mi, lines):
            first = [line for line in lines if line.startswith(("*stopped", "=thread-group-started"))]
            mi.ok("-exec-continue")
            time.sleep(0.3)
            mi.ok("-exec-interrupt")
            stop = mi.stopped()
            result, _ = mi.command("-thread-info")
            seen.append((len(first), stop.results.get("reason"), stop.results.get("signal-name"),
                         result.results["current-thread-id"]))  # fmt: skip
    assert seen[1] == seen[0]
    assert seen[1][1:3] == ("signal-received", "SIGINT")


def _wait_ticking(pid: int, switches: int = 15) -> None:
    """Until longrun has ticked a while: each tick sleeps (a voluntary context switch; its
    stops at the loader's events are a few), so its libraries are loaded and their symbols
    read. gdb 13 killed in that reading by the stub's end crashes (Fatal signal:
    Segmentation fault): 0.3 s did not always cover it under load."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = Path(f"/proc/{pid}/status").read_text()
        found = re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M)
        if found and int(found.group(1)) >= switches:
            return
        time.sleep(0.02)
    raise AssertionError(f"program {pid} did not run on: {status}")


def test_mi_stub_killed_mid_session_says_the_connection_closed(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("longrun")
    said = []
    for gdb in (True, False):
        with gdbserver(program) as server:
            with _mi_on(server, program, tmp_path, gdb=gdb) as (mi, _lines):
                mi.ok("-exec-continue")
                assert server.inferior_pid is not None
                _wait_ticking(server.inferior_pid)
                server.process.send_signal(signal.SIGTERM)
                lines = mi.read_until(lambda line: "Remote connection closed" in line)
                exits = [line for line in lines if line.startswith(("=thread-exited", "=thread-group-exited"))]
                message = mi.error("-stack-list-frames")
                result, _ = mi.command("-thread-info")
                said.append((exits, message, result.results["threads"]))
            assert server.inferior_pid is not None
            assert_gone(server.inferior_pid)
    assert said[1] == said[0]



def test_conditions_and_dprintf_over_the_stub_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("mi_prog")
    line = marker_line("mi_prog.c", "add_return")
    gdb, alice = _both(program, ["target remote {target}", "break add if a == 30",
                                 f'dprintf mi_prog.c:{line},"sum %d\\n", sum', "continue", "continue"],
                       tmp_path)  # fmt: skip
    assert alice == gdb
    assert "sum 30\n\nBreakpoint 1, add (a=30, b=30)" in alice and "sum 100" in alice


def test_what_only_a_local_process_allows_is_refused_over_the_stub(builder: Builder, tmp_path: Path) -> None:
    """gdb does these over gdbserver; aliceserver refuses them in gdb's words for a target
    that lacks an operation, and the session goes on (a refused catchpoint takes no number)."""
    program = builder.build("mi_prog")
    with gdbserver(program) as server:
        done = ours(["-batch", "-nx", *ex(f"target remote {server.address}", "break add", "continue",
                                          f"gcore {tmp_path / 'core'}", "catch syscall write", "catch throw",
                                          "run", "start", "break main", "info breakpoints", "kill"),
                     str(program)], tmp_path)  # fmt: skip
    refused = "You can't do that when your target is `remote'"
    no_run = 'The "remote" target does not support "run".  Try "help target" or "continue".'
    slow = f"warning: {SLOW_WARNING}"  # gdb's too: the libraries are read through the stub
    assert done.stderr.splitlines() == [slow, refused, refused, refused, no_run, no_run], done.stderr
    assert "Breakpoint 2 at" in done.stdout and "[Inferior 1 (process" in done.stdout
    assert not (tmp_path / "core").exists()


def test_mi_kill_and_detach_while_the_program_runs(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("longrun")
    for command, said in (("kill", "killed]"), ("detach", "detached]")):
        with gdbserver(program) as server:
            with _mi_on(server, program, tmp_path, gdb=False) as (mi, _lines):
                mi.ok("-exec-continue")
                time.sleep(0.2)
                _, lines = mi.command(command)
                assert any(said in line for line in lines), lines
                assert any(line.startswith("=thread-group-exited") for line in lines), lines
            if command == "detach":  # it runs on without us, to its end
                server.process.send_signal(signal.SIGTERM)


def test_extended_remote_attach_then_detach(builder: Builder, tmp_path: Path) -> None:
    """`attach PID` through `gdbserver --multi` (vAttach): the frame line as on connecting,
    breakpoints work, and after detach the program runs on."""
    program = builder.build("longrun")
    running = subprocess.Popen([str(program)], stdout=subprocess.DEVNULL)
    try:
        with gdbserver(None, multi=True) as server:
            done = ours(["-batch", "-nx", *ex(f"target extended-remote {server.address}", f"attach {running.pid}",
                                              "break tick", "continue", "bt 1", "detach"), str(program)],
                        tmp_path)  # fmt: skip
        assert "Program stopped." not in done.stdout
        assert "Breakpoint 1, tick () at" in done.stdout and "#0  tick () at" in done.stdout, done.stdout + done.stderr
        assert f"[Inferior 1 (process {running.pid}) detached]" in done.stdout
        assert running.poll() is None  # detached: it runs on
    finally:
        running.kill()
        running.wait()
