"""The DAP adapter over the in-memory transport, with a FakeDebugger behind it.

`dap` is a tests.support DapClient (schema-validating every message the adapter sends),
`raw` a bare peer for input no well-behaved client would send (bad JSON, wrong types).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from aliceserver.adapters.dap import DapServerConfig, build_dap_server
from aliceserver.transports.base import Transport, TransportClosed
from aliceserver.transports.memory import memory_pair
from tests.support.dap_client import DapClient
from tests.support.dap_schema import DapSchema, require_schema
from tests.support.fake_debugger import FakeDebugger


class MemoryReader:
    """Byte-stream view (readline/read) of messages arriving on a memory transport,
    re-framed with Content-Length headers as they would be on a pipe."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._buffer = b""
        self._eof = False

    def _fill(self) -> bool:
        if self._eof:
            return False
        message = self._transport.read_message()
        if message is None:
            self._eof = True
            return False
        self._buffer += b"Content-Length: %d\r\n\r\n" % len(message) + message
        return True

    def readline(self) -> bytes:
        while b"\n" not in self._buffer and self._fill():
            pass
        end = self._buffer.find(b"\n")
        end = len(self._buffer) if end < 0 else end + 1
        line, self._buffer = self._buffer[:end], self._buffer[end:]
        return line

    def read(self, size: int) -> bytes:
        while len(self._buffer) < size and self._fill():
            pass
        data, self._buffer = self._buffer[:size], self._buffer[size:]
        return data

    def close(self) -> None:
        self._transport.close()


class MemoryWriter:
    """Byte-stream writer that un-frames Content-Length messages onto a memory transport."""

    def __init__(self, transport: Transport) -> None:
        self._transport = transport
        self._buffer = b""

    def write(self, data: bytes) -> int:
        self._buffer += data
        while True:
            head, separator, rest = self._buffer.partition(b"\r\n\r\n")
            if not separator:
                break
            length = int(head.split(b":", 1)[1])
            if len(rest) < length:
                break
            try:
                self._transport.write_message(rest[:length])
            except TransportClosed as error:  # what a pipe says when its reader is gone
                raise BrokenPipeError(str(error)) from error
            self._buffer = rest[length:]
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self._transport.close()


@dataclass
class Served:
    fake: FakeDebugger
    client_end: Transport
    thread: threading.Thread

    def finish(self) -> None:
        self.client_end.close()
        self.thread.join(timeout=10)
        assert not self.thread.is_alive(), "the session did not end with its transport"


def serve(fake: FakeDebugger) -> Served:
    client_end, server_end = memory_pair()
    server = build_dap_server(DapServerConfig(debugger_factory=lambda: fake))
    thread = threading.Thread(target=server.serve, args=(server_end,), daemon=True)
    thread.start()
    return Served(fake, client_end, thread)


@pytest.fixture
def schema() -> DapSchema:
    return require_schema()


@pytest.fixture
def fake() -> FakeDebugger:
    return FakeDebugger()


@pytest.fixture
def served(fake: FakeDebugger) -> Iterator[Served]:
    served = serve(fake)
    yield served
    served.finish()


@pytest.fixture
def dap(served: Served, schema: DapSchema) -> Iterator[DapClient]:
    end = served.client_end
    client = DapClient(
        MemoryReader(end),
        MemoryWriter(end),
        schema=schema,
        name="memory",  # type: ignore[arg-type]
    )
    yield client
    client.close()
    served.finish()
    client.assert_valid()


class RawPeer:
    """Sends anything; reads each message and checks it against the schema."""

    def __init__(self, transport: Transport, schema: DapSchema) -> None:
        self.transport = transport
        self.schema = schema
        self.received: list[dict[str, Any]] = []

    def send(self, message: bytes | dict[str, Any]) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode()
        self.transport.write_message(data)

    def recv(self, *, check: bool = True) -> dict[str, Any]:
        data = self.transport.read_message()
        assert data is not None, "the adapter closed the session"
        message: dict[str, Any] = json.loads(data)
        if check:
            self.schema.check(message)
        self.received.append(message)
        return message

    def response(self, *, check: bool = True) -> dict[str, Any]:
        """The next response (events before it are kept in `received`)."""
        while True:
            message = self.recv(check=check)
            if message["type"] == "response":
                return message

    def request(self, seq: int, command: str, arguments: Any = None) -> dict[str, Any]:
        message: dict[str, Any] = {"seq": seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        self.send(message)
        return self.response()


@pytest.fixture
def raw(served: Served, schema: DapSchema) -> RawPeer:
    return RawPeer(served.client_end, schema)
