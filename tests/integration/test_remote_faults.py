"""The remote backend against gdbserver through a fault-injecting proxy: a corrupted
reply is asked for again while acks are on, and a stub that turns silent or answers
garbage gives a typed error within the time limit, never a hang."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.remote.errors import RemoteError, RemoteTimeout
from aliceserver.debuggers.remote.process import RemoteProcess
from tests.support.build import Builder
from tests.support.gdbserver import gdbserver
from tests.support.rsp_proxy import rsp_proxy


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("remote_target")


class CorruptFirstReply:
    """Flip one payload byte of the stub's first packet (its qSupported reply, sent while
    acks are still on): its checksum no longer matches."""

    def __init__(self) -> None:
        self.done = False

    def __call__(self, data: bytes) -> bytes:
        start = data.find(b"$")
        if self.done or start < 0 or start + 1 >= len(data):
            return data
        self.done = True
        return data[: start + 1] + bytes([data[start + 1] ^ 0x01]) + data[start + 2 :]


def test_a_corrupted_reply_is_asked_for_again(program: Path) -> None:
    corrupt = CorruptFirstReply()
    with gdbserver(program) as server, rsp_proxy(server.address, corrupt) as proxy:
        process = RemoteProcess.connect(proxy.address, timeout=10)
        try:
            assert corrupt.done
            assert b"-" in proxy.from_client  # our NAK; gdbserver sent the reply again
            stop = process.last_stop()
            assert stop is not None and stop.reason is StopReason.ENTRY
            assert process.thread_ids() == [server.inferior_pid]
        finally:
            process.kill()
            process.close()


def test_a_stub_gone_silent_times_out(program: Path) -> None:
    silent = False

    def maybe_drop(data: bytes) -> bytes:
        return b"" if silent else data

    with gdbserver(program) as server, rsp_proxy(server.address, maybe_drop) as proxy:
        process = RemoteProcess.connect(proxy.address, timeout=10)
        try:
            silent = True
            process.client.connection.timeout = 0.5
            started = time.monotonic()
            with pytest.raises(RemoteTimeout):
                process.read_memory(process.general_registers(process.pid)["rsp"], 8)
            assert time.monotonic() - started < 3
        finally:
            process.close()


def test_garbage_after_no_ack_mode_is_an_error(program: Path) -> None:
    garbage = False

    def spoil(data: bytes) -> bytes:
        return b"$this is not a reply#00" if garbage else data

    with gdbserver(program) as server, rsp_proxy(server.address, spoil) as proxy:
        process = RemoteProcess.connect(proxy.address, timeout=10)
        try:
            assert not process.client.connection.acks
            garbage = True
            with pytest.raises(RemoteError, match="checksum"):
                process.client.ask(b"qC")
        finally:
            process.close()
