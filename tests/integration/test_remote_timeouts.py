"""gdb's `remotetimeout`, `tcp connect-timeout` and `tcp auto-retry` over a real gdbserver:
shown and set in gdb's words, a reply later than the limit gives the link up (and the
session serves on), a stub that starts listening late is waited for."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, ours
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver
from tests.support.mi_client import MiClient
from tests.support.rsp_proxy import rsp_proxy

pytestmark = pytest.mark.timeout(120)

SETTINGS = ["show remotetimeout", "set remotetimeout 3", "show remotetimeout", "set remotetimeout unlimited",
            "show remotetimeout", "set remotetimeout -5", "set remotetimeout", "set remotetimeout -1",
            "show remotetimeout", "show tcp connect-timeout", "set tcp connect-timeout 0", "show tcp connect-timeout",
            "set tcp connect-timeout 4", "show tcp connect-timeout", "show tcp auto-retry", "set tcp auto-retry off",
            "show tcp auto-retry", "show tcp nosuch", "set tcp", "show tcp"]  # fmt: skip


@needs_gdb
def test_the_settings_show_and_refuse_like_gdb(tmp_path: Path) -> None:
    got = assert_like_gdb(ex(*SETTINGS), tmp_path)
    assert "Timeout limit to wait for target to respond is unlimited." in got.stdout


class LateReply:
    """Holds back, by `delay` seconds, the stub's first reply after the client's `continue`
    other than the stop itself."""

    def __init__(self, delay: float) -> None:
        self.delay, self.resumed, self.delayed = delay, False, False

    def to_stub(self, unit: bytes) -> bytes:
        if unit.startswith(b"$vCont;c"):
            self.resumed = True
        return unit

    def to_client(self, unit: bytes) -> bytes:
        if (
            self.resumed
            and not self.delayed
            and unit.startswith(b"$")
            and not unit.startswith(b"$T")
        ):
            self.delayed = True
            time.sleep(self.delay)
        return unit


def test_a_reply_later_than_remotetimeout_gives_the_link_up_and_the_session_serves_on(
    builder: Builder, tmp_path: Path
) -> None:
    """Three tries of one second (gdb's) pass before the reply that comes in five: the link
    is given up, the program is gone, and the session connects again."""
    program = builder.build("mi_prog")
    late = LateReply(5.0)
    with gdbserver(program) as server, gdbserver(program) as second, \
            rsp_proxy(server.address, late.to_client, late.to_stub) as proxy:  # fmt: skip
        done = ours(["-batch", "-nx", *ex("set sysroot /", "set remotetimeout 1", f"target remote {proxy.address}",
                                          "break add", "continue", "print sum", f"target remote {second.address}",
                                          "continue", "bt 1", "kill"), str(program)], tmp_path)  # fmt: skip
    assert late.delayed
    assert done.stderr.splitlines()[:2] == ["Remote connection closed", 'No symbol "sum" in current context.'], \
        done.stderr  # fmt: skip
    assert "Breakpoint 1, add (a=0, b=10)" in done.stdout and "killed]" in done.stdout, done.stdout


def test_remotetimeout_set_while_connected_applies_to_the_next_wait(builder: Builder, tmp_path: Path) -> None:
    """Set after `target remote` (connected with gdb's 2 s, three tries: 6 s), one second
    applies from the next request on: the reply that comes in five gives the link up."""
    program = builder.build("mi_prog")
    late = LateReply(5.0)
    with gdbserver(program) as server, rsp_proxy(server.address, late.to_client, late.to_stub) as proxy:
        done = ours(["-batch", "-nx", *ex("set sysroot /", f"target remote {proxy.address}", "set remotetimeout 1",
                                          "break add", "continue", "print sum"), str(program)], tmp_path)  # fmt: skip
    assert late.delayed
    assert done.stderr.splitlines()[:2] == ["Remote connection closed", 'No symbol "sum" in current context.'], \
        done.stderr  # fmt: skip


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _relay_later(port: int, upstream: str, ready: threading.Event) -> threading.Thread:
    """Listen on `port` once `ready` is set and join the first client to `upstream`, both
    ways, until either end closes."""

    def pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def serve() -> None:
        ready.wait()
        with socket.create_server(("127.0.0.1", port)) as listener:
            listener.settimeout(30)
            client, _ = listener.accept()
        host, _, stub_port = upstream.rpartition(":")
        with client, socket.create_connection((host, int(stub_port))) as stub:
            back = threading.Thread(target=pump, args=(stub, client))
            back.start()
            pump(client, stub)
            back.join()

    relay = threading.Thread(target=serve, daemon=True)
    relay.start()
    return relay


def test_tcp_auto_retry_waits_for_a_stub_that_listens_late(
    builder: Builder, tmp_path: Path
) -> None:
    """`target remote` to a port nobody listens on yet: refused and tried again until the
    stub listens (gdb's tcp auto-retry); with auto-retry off, refused at once."""
    program = builder.build("mi_prog")
    port = _free_port()
    with gdbserver(program) as server:
        ready = threading.Event()
        relay = _relay_later(port, server.address, ready)
        mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=tmp_path)
        try:
            mi.prompt()
            mi.ok("-gdb-set tcp auto-retry off")
            assert (
                mi.error(f"-target-select remote 127.0.0.1:{port}")
                == f"127.0.0.1:{port}: Connection refused."
            )
            mi.ok("-gdb-set tcp auto-retry on")
            mi.send(f"-target-select remote 127.0.0.1:{port}")
            time.sleep(1.0)  # a try or more refused first
            ready.set()
            lines = mi.read_until(lambda line: line.startswith(("^connected", "^error")))
            assert lines[-1] == "^connected", lines
            mi.prompt()
            mi.ok("-interpreter-exec console disconnect")
        finally:
            ready.set()
            mi.close()
            relay.join(timeout=30)
