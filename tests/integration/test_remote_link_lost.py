"""A stub killed under a stopped program, then `next`: gdb's proceed says the loss, then
"Command aborted." (the command's own error, after its ^running in MI); killed while the
program runs: the loss alone. Console and MI, against gdb 13 over the same gdbserver."""

from __future__ import annotations

import re
import signal
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, ours, theirs
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver
from tests.support.mi_client import MiClient
from tests.support.rsp_proxy import Mangle, rsp_proxy, same

pytestmark = [pytest.mark.timeout(120), needs_gdb]

# gdb says either, as the kernel tells the closed socket
LOSS = (
    "Remote connection closed",
    "Remote communication error.  Target disconnected.: Connection reset by peer.",
)


def _console(
    program: Path, cwd: Path, *, gdb: bool, commands: list[str], proxy_kill: bool
) -> list[str]:
    """stderr lines of `-batch`: connect, stop at add, then COMMANDS; the stub is killed
    under the stopped program (`shell kill`), or as it is resumed (`proxy_kill`)."""
    with gdbserver(program) as server:
        kill_at_resume = _killer(server.process) if proxy_kill else same
        with rsp_proxy(server.address, to_stub=kill_at_resume) as proxy:
            kill = [] if proxy_kill else [f"shell kill -9 {server.process.pid}"]
            lines = [
                "set sysroot /",
                f"target remote {proxy.address}",
                "break add",
                "continue",
                *kill,
                *commands,
            ]
            run = theirs if gdb else ours
            extra = [] if gdb else ["--enable-shell"]
            done = run([*extra, "-batch", "-nx", *ex(*lines), str(program)], cwd)
    return done.stderr.splitlines()


def _killer(stub: subprocess.Popen[bytes]) -> Mangle:
    """The stub killed as the client resumes the program stopped at add."""
    armed = [False]

    def watch(unit: bytes) -> bytes:
        armed[0] = armed[0] or unit.startswith(b"$Z0,5")  # the breakpoint at add is in
        if armed[0] and unit.startswith(b"$vCont;c") and stub.poll() is None:
            stub.send_signal(signal.SIGKILL)
        return unit

    return watch


def test_next_after_the_stub_died_is_aborted_only_where_the_program_was_stopped_like_gdb(
    builder: Builder, tmp_path: Path
) -> None:
    """Killed under the stopped program: `next` says the loss, then "Command aborted.";
    killed as `continue` resumes it: the loss alone, and `next` finds no program."""
    program = builder.build("mi_prog")
    for proxy_kill, commands, then in (
        (
            False,
            ["next", "next", "info threads"],
            ["Command aborted.", "The program is not being run."],
        ),
        (True, ["next", "bt"], ["The program is not being run.", "No stack."]),
    ):
        gdb = _console(program, tmp_path, gdb=True, commands=commands, proxy_kill=proxy_kill)
        alice = _console(program, tmp_path, gdb=False, commands=commands, proxy_kill=proxy_kill)
        assert gdb[0] in LOSS and alice[0] in LOSS, (gdb, alice)
        assert alice[1:] == gdb[1:] == then


def _mi_next_after_kill(program: Path, cwd: Path, *, gdb: bool) -> list[str]:
    """What `-exec-next`, `-exec-next` and `-stack-list-frames` say once the stub died
    under the program stopped at add; ours then connects to a new stub and debugs on."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-gdb-set sysroot /")
        with gdbserver(program) as server:
            assert mi.command(f"-target-select remote {server.address}")[0].cls == "connected"
            mi.ok("-break-insert add")
            mi.ok("-exec-continue")
            mi.stopped()
            server.process.send_signal(signal.SIGKILL)
            server.process.wait()
            mi.send("50-exec-next")
            said = mi.read_until(lambda line: line.startswith("50^error"))
            said += mi.prompt()
            _, after = mi.command("-exec-next")
            _, frames = mi.command("-stack-list-frames")
        if not gdb:
            with gdbserver(program) as second:
                assert mi.command(f"-target-select remote {second.address}")[0].cls == "connected"
                mi.ok("-exec-continue")
                assert mi.stopped().results["reason"] == "breakpoint-hit"
                mi.ok("-exec-next")
                mi.stopped()
                mi.command("kill")
        return [re.sub(r"^\d+\^", "N^", line) for line in said + after + frames]
    finally:
        mi.close()


def test_mi_next_after_the_stub_died_runs_then_fails_like_gdb(
    builder: Builder, tmp_path: Path
) -> None:
    program = builder.build("mi_prog")
    gdb = _mi_next_after_kill(program, tmp_path, gdb=True)
    alice = _mi_next_after_kill(program, tmp_path, gdb=False)
    normal = [line.replace(LOSS[1], LOSS[0]) for line in gdb]
    assert [line.replace(LOSS[1], LOSS[0]) for line in alice] == normal
    assert normal.index("N^running") < normal.index('N^error,msg="Command aborted."'), normal
    assert normal[-2:] == ['N^error,msg="No registers."', "(gdb) "], normal
