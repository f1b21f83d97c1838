"""The console and MI on a program behind gdbserver, through a fault-injecting proxy
(tests/support/rsp_proxy.py): corrupted checksums are asked for again and the session
goes on as a clean one; dropped acks, delays and duplicates end well or with a clear
error within the time limit; a stub that answers garbage or dies (while connecting,
stopped, running, stepping) is an error in gdb's words, after which the session answers
the next command and can `target remote` again. No gdbserver or program is left behind
(tests/support/gdbserver.py checks it)."""

from __future__ import annotations

import re
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from tests.support.batch import ex, ours
from tests.support.build import Builder
from tests.support.gdbserver import GdbServer, gdbserver
from tests.support.mi_client import MiClient
from tests.support.rsp_proxy import Mangle, checksummed, rsp_proxy, same

pytestmark = pytest.mark.timeout(120)

SESSION = ["break add", "continue", "bt", "next", "print sum", "info threads", "next", "next", "bt 1", "kill"]


def _normalized(text: str) -> str:
    text = re.sub(r"\d+\.\d+", "P.T", text)
    # `info threads` pads its Target Id column to the longest id, whose pid and tid digits
    # differ between gdb's run and ours (4 or 5 digits): the header's spacing goes with them.
    text = re.sub(r"(Target Id) +(Frame)", r"\1 \2", text)
    text = re.sub(r"process \d+", "process N", text)
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)


def _batch(program: Path, cwd: Path, address: str, commands: Sequence[str]) -> tuple[str, str]:
    """(stdout, stderr) of `-batch`: connect to `address`, then COMMANDS."""
    done = ours(["-batch", "-nx", *ex("set sysroot /", f"target remote {address}", *commands), str(program)], cwd)
    return _normalized(done.stdout), _normalized(done.stderr)


def _clean(program: Path, cwd: Path) -> tuple[str, str]:
    with gdbserver(program) as server:
        said = _batch(program, cwd, server.address, SESSION)
    assert "Breakpoint 1, add (a=0, b=10)" in said[0] and "$1 = 10" in said[0], said
    return said


def _acks_kept(then: Mangle = same) -> Mangle:
    """The stub's qSupported reply without QStartNoAckMode (acks stay on for the whole
    session), and `then` applied to every packet."""

    def mangle(unit: bytes) -> bytes:
        if b"QStartNoAckMode+" in unit:
            unit = checksummed(unit[1:-3].replace(b"QStartNoAckMode+;", b"").replace(b";QStartNoAckMode+", b""))
        return then(unit)

    return mangle


class EveryNth:
    """Change every `n`th packet of the stub with `change`."""

    def __init__(self, n: int, change: Callable[[bytes], bytes]) -> None:
        self.n, self.change, self.seen, self.changed = n, change, 0, 0

    def __call__(self, unit: bytes) -> bytes:
        if not unit.startswith(b"$"):
            return unit
        self.seen += 1
        if self.seen % self.n:
            return unit
        self.changed += 1
        return self.change(unit)


class FirstAckLost:
    """Drop the first `+` (an ack) passed on; `lost` says it happened."""

    def __init__(self) -> None:
        self.lost = False

    def __call__(self, unit: bytes) -> bytes:
        if unit == b"+" and not self.lost:
            self.lost = True
            return b""
        return unit


def _corrupt(unit: bytes) -> bytes:
    return unit[:1] + bytes([unit[1] ^ 0x01]) + unit[2:]


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("mi_prog")


def test_corrupted_replies_are_asked_again_and_the_session_is_a_clean_ones(program: Path, tmp_path: Path) -> None:
    clean = _clean(program, tmp_path)
    corrupt = EveryNth(4, _corrupt)
    with gdbserver(program) as server, rsp_proxy(server.address, _acks_kept(corrupt)) as proxy:
        said = _batch(program, tmp_path, proxy.address, SESSION)
    assert corrupt.changed > 10 and proxy.from_client.count(b"-") >= corrupt.changed  # a NAK for each
    assert said == clean


def test_delayed_replies_and_dropped_stub_acks_change_nothing(program: Path, tmp_path: Path) -> None:
    clean = _clean(program, tmp_path)

    def slow(unit: bytes) -> bytes:
        time.sleep(0.01)  # every unit late; the session's limit is seconds
        return unit

    with gdbserver(program) as server, rsp_proxy(server.address, _acks_kept(slow)) as proxy:
        assert _batch(program, tmp_path, proxy.address, SESSION) == clean
    # acks kept on and the stub's first `+` lost: its reply is taken for a resend, and
    # our packet is sent again when no `+` comes
    drop_first_ack = FirstAckLost()
    with gdbserver(program) as server, rsp_proxy(server.address, _acks_kept(drop_first_ack)) as proxy:
        assert _batch(program, tmp_path, proxy.address, SESSION) == clean
    assert drop_first_ack.lost and proxy.from_client.count(b"$qSupported") == 2


def test_our_lost_ack_has_the_stub_resend_and_the_session_goes_on(program: Path, tmp_path: Path) -> None:
    """gdbserver sends its reply again for each byte it reads instead of our `+` (our
    next packet): those copies are acknowledged and dropped, our packet is sent again when
    no `+` comes, and the session is a clean one's."""
    clean = _clean(program, tmp_path)
    drop_first_ack = FirstAckLost()
    with gdbserver(program) as server, rsp_proxy(server.address, _acks_kept(), drop_first_ack) as proxy:
        assert _batch(program, tmp_path, proxy.address, SESSION) == clean
    assert drop_first_ack.lost and proxy.from_stub.count(b"$" + proxy.from_stub.split(b"$")[1]) > 1  # it sent its reply again


def _second_session(program: Path, cwd: Path, first: str, commands: Sequence[str]) -> tuple[str, str]:
    """COMMANDS on `first`, then `target remote` to a fresh gdbserver where the session
    goes on: a breakpoint hit and the program killed."""
    with gdbserver(program) as second:
        return _batch(program, cwd, first, [*commands, f"target remote {second.address}", "break add",
                                            "continue", "bt 1", "kill"])  # fmt: skip


def _again_ok(stdout: str) -> None:
    assert stdout.count("Breakpoint 1, add (a=0, b=10)") >= 1 and "[Inferior 1 (process N) killed]" in stdout, stdout


def test_a_stub_that_drops_our_acks_times_out_with_a_clear_error(program: Path, tmp_path: Path) -> None:
    """gdbserver waits for our `+` for ever; we wait for its answer the session's limit
    (three tries of gdb's remotetimeout, 2 s: 6 s), say so, and serve on."""
    with gdbserver(program) as server, rsp_proxy(server.address, to_stub=lambda u: b"" if u == b"+" else u) as proxy:
        started = time.monotonic()
        stdout, stderr = _second_session(program, tmp_path, proxy.address, ["info threads", "print 1 + 1"])
        assert time.monotonic() - started < 40
    assert stderr.splitlines()[0] == "The remote stub did not answer in 6 s.", stderr
    assert "No threads.\n$1 = 2\n" in stdout
    _again_ok(stdout)


def test_a_stub_that_answers_garbage_is_an_error_and_the_session_serves_on(program: Path, tmp_path: Path) -> None:
    with gdbserver(program) as server, rsp_proxy(server.address, lambda u: checksummed(b"nonsense!") if u[:1] == b"$"
                                                 else u) as proxy:  # fmt: skip
        stdout, stderr = _second_session(program, tmp_path, proxy.address, ["info threads", "print 1 + 1"])
    assert stderr.splitlines()[0] == "A stop reply we cannot read: 'nonsense!'.", stderr
    assert "No threads.\n$1 = 2\n" in stdout
    _again_ok(stdout)


def test_a_stub_that_turns_to_garbage_in_a_step_is_given_up_and_the_session_serves_on(
    program: Path, tmp_path: Path
) -> None:
    """The stop reply of a step is garbage (no copy of the reply before it): the stub's
    state is unknown, the link is given up and said closed, never a `next` waiting for ever."""
    spoiled: list[bytes] = []

    def spoil(unit: bytes) -> bytes:
        return checksummed(b"nonsense!") if spoiled and unit[:1] == b"$" else unit

    def watch(unit: bytes) -> bytes:
        if unit.startswith(b"$vCont;r"):
            spoiled.append(unit)
        return unit

    with gdbserver(program) as server, rsp_proxy(server.address, spoil, watch) as proxy:
        started = time.monotonic()
        stdout, stderr = _second_session(program, tmp_path, proxy.address,
                                         ["break add", "continue", "next", "bt", "info threads"])  # fmt: skip
        assert time.monotonic() - started < 60
    assert spoiled
    assert stderr.splitlines() == ["Remote connection closed", "No stack."], stderr
    assert "No threads.\n" in stdout
    _again_ok(stdout)


def test_duplicated_replies_with_acks_are_dropped_and_the_session_is_a_clean_ones(
    program: Path, tmp_path: Path
) -> None:
    """With acks (a link that can fail), a copy comes where our next `+` is awaited: it is
    acknowledged and dropped, as gdb does; one that comes while a stop is awaited after a
    packet sent with the resume is passed over with gdb's "Invalid remote reply"."""
    clean = _clean(program, tmp_path)
    twice = EveryNth(2, lambda unit: unit + unit)
    with gdbserver(program) as server, rsp_proxy(server.address, _acks_kept(twice)) as proxy:
        said = _batch(program, tmp_path, proxy.address, SESSION)
    assert twice.changed > 10
    assert said == clean


@pytest.mark.parametrize("every", [2, 3, 4, 5, 7])
def test_duplicated_replies_without_acks_never_hang(program: Path, tmp_path: Path, every: int) -> None:
    """In no-ack mode (TCP, whose bytes come once) a copy of a reply is told apart where
    no other reply is owed (dropped before the next request), where it has not the shape
    of the answer awaited (remote/replyshape.py) and where a stop reply is awaited; the
    session goes to its end within the limit, the program killed."""
    twice = EveryNth(every, lambda unit: unit + unit)
    with gdbserver(program) as server, rsp_proxy(server.address, twice) as proxy:
        started = time.monotonic()
        stdout, _ = _batch(program, tmp_path, proxy.address, SESSION)
        assert time.monotonic() - started < 60
    assert twice.changed > 5
    assert "[Inferior 1 (process N) killed]" in stdout, stdout


def _kill_on(server: GdbServer, trigger: bytes, after: bytes = b"") -> Mangle:
    """gdbserver killed as the client sends a packet starting with `trigger` (once it has
    sent one starting with `after`), that packet passed on first."""
    armed = not after

    def watch(unit: bytes) -> bytes:
        nonlocal armed
        armed = armed or unit.startswith(b"$" + after)
        if armed and unit.startswith(b"$" + trigger) and server.process.poll() is None:
            server.process.send_signal(signal.SIGKILL)
        return unit

    return watch


@pytest.mark.parametrize(("phase", "trigger", "commands", "said"), [
    ("connecting", b"qXfer:auxv:read", ["info threads", "bt"], ["No stack."]),
    ("running", b"vCont;c#", ["continue", "bt", "next", "info threads"], ["No stack.", "The program is not being run."]),
    ("stepping", b"vCont;r", ["break add", "continue", "next", "bt", "info threads"], ["No stack."]),
])  # fmt: skip
def test_a_stub_that_dies_is_said_and_the_session_serves_on(
    program: Path, tmp_path: Path, phase: str, trigger: bytes, commands: list[str], said: list[str]
) -> None:
    with gdbserver(program) as server, rsp_proxy(server.address, to_stub=_kill_on(server, trigger)) as proxy:
        stdout, stderr = _second_session(program, tmp_path, proxy.address, ["print 1 + 1", *commands])
        assert server.process.poll() is not None, phase  # it was killed there
    lines = stderr.splitlines()
    assert lines[0] in ("Remote connection closed", "Remote communication error.  Target disconnected.: "
                        "Connection reset by peer."), stderr  # fmt: skip
    assert lines[1:] == said, stderr  # and nothing from the second session
    assert "No threads.\n" in stdout
    _again_ok(stdout)


def test_a_stub_that_dies_while_stopped(program: Path, tmp_path: Path) -> None:
    with gdbserver(program) as server:
        done = ours(["-batch", "-nx", "--enable-shell", *ex(
            "set sysroot /", f"target remote {server.address}", "break add", "continue",
            f"shell kill -9 {server.process.pid}", "bt", "next", "next", "info threads"), str(program)], tmp_path)
    lines = _normalized(done.stderr).splitlines()
    assert lines[0] in ("Remote connection closed", "Remote communication error.  Target disconnected.: "
                        "Broken pipe."), done.stderr  # fmt: skip
    # The loss is said once, by bt: it reads stack the stop did not (main's caller), as
    # gdb 13's does (it reads the link there, and aborts on an internal error). Then each
    # next says gdb's "The program is not being run.", as gdb's do after a lost link.
    assert lines[1:] == ["The program is not being run."] * 2, done.stderr
    assert "No threads." in done.stdout


def _mi(program: Path, cwd: Path) -> MiClient:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd)
    mi.prompt()
    mi.ok("-gdb-set sysroot /")
    return mi


def test_mi_over_a_corrupting_link_is_as_over_a_clean_one(program: Path, tmp_path: Path) -> None:
    def frames(address: str) -> list[str]:
        mi = _mi(program, tmp_path)
        try:
            result, _ = mi.command(f"-target-select remote {address}")
            assert result.cls == "connected"
            mi.ok("-break-insert add")
            mi.ok("-exec-continue")
            stop = mi.stopped()
            _, lines = mi.command("-stack-list-frames")
            _, values = mi.command("-stack-list-arguments 1")
            return [str(stop.results.get("frame")), *lines, *values]
        finally:
            mi.close()

    with gdbserver(program) as server:
        clean = frames(server.address)
    corrupt = EveryNth(3, _corrupt)
    with gdbserver(program) as server, rsp_proxy(server.address, _acks_kept(corrupt)) as proxy:
        assert frames(proxy.address) == clean
    assert corrupt.changed > 10
