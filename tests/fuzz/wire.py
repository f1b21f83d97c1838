"""A raw DAP peer: writes any bytes, parses the adapter's Content-Length frames in a thread.

Unlike tests.support.dap_client it never assumes its own input is well formed, so the fuzz
targets can send garbage and still read (and schema-check) every reply.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

from tests.support.dap_schema import DapSchema

Message = dict[str, Any]


class RawWire:
    """`recv(n)` returns b"" at the end; `send(data)` writes all of it."""

    def __init__(
        self,
        recv: Callable[[int], bytes],
        send: Callable[[bytes], None],
        close: Callable[[], None],
        schema: DapSchema | None = None,
    ) -> None:
        self._recv = recv
        self._send = send
        self._close = close
        self.schema = schema
        self.messages: list[Message] = []
        self.problems: list[str] = []  # unparsable output, schema violations, seq gaps
        self.closed = False
        self.sock: socket.socket | None = None
        self._cond = threading.Condition()
        self._last_seq = 0
        self._thread = threading.Thread(target=self._read_loop, name="raw-dap", daemon=True)
        self._thread.start()

    @classmethod
    def connect(cls, port: int, schema: DapSchema | None = None) -> RawWire:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.settimeout(None)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def close() -> None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            sock.close()

        wire = cls(sock.recv, sock.sendall, close, schema)
        wire.sock = sock
        return wire

    def abort(self) -> None:
        """End a TCP connection with a reset (RST), as a crashed or killed client would."""
        assert self.sock is not None, "not a TCP connection"
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        try:
            self.sock.shutdown(socket.SHUT_RD)  # wakes our reader; sends nothing
        except OSError:
            pass
        self.sock.close()
        self._thread.join(timeout=5)

    # --- sending -------------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        self._send(data)

    def request(self, seq: int, command: str, arguments: Any = None) -> None:
        message: Message = {"seq": seq, "type": "request", "command": command}
        if arguments is not None:
            message["arguments"] = arguments
        self.send(frame(json.dumps(message).encode()))

    # --- receiving -----------------------------------------------------------------------
    def mark(self) -> int:
        with self._cond:
            return len(self.messages)

    def wait(
        self, predicate: Callable[[Message], bool], timeout: float, since: int = 0
    ) -> Message | None:
        """The first message from index `since` that matches, or None (timeout or end)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            index = since
            while True:
                while index < len(self.messages):
                    if predicate(self.messages[index]):
                        return self.messages[index]
                    index += 1
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    return None
                self._cond.wait(left)

    def response_to(self, seq: int, timeout: float, since: int = 0) -> Message | None:
        return self.wait(
            lambda m: m.get("type") == "response" and m.get("request_seq") == seq, timeout, since
        )

    def close(self) -> None:
        self._close()
        self._thread.join(timeout=5)

    def _read_loop(self) -> None:
        buffer = b""
        try:
            while True:
                end = buffer.find(b"\r\n\r\n")
                if end >= 0:
                    header = buffer[:end].decode("ascii", "replace")
                    length = -1
                    for line in header.split("\r\n"):
                        name, _, value = line.partition(":")
                        if name.strip().lower() == "content-length":
                            length = int(value)
                    if length < 0:
                        self._problem(f"adapter sent a header without length: {header!r}")
                        return
                    if len(buffer) >= end + 4 + length:
                        body = buffer[end + 4 : end + 4 + length]
                        buffer = buffer[end + 4 + length :]
                        self._received(body)
                        continue
                chunk = self._recv(65536)
                if not chunk:
                    return
                buffer += chunk
        except OSError:
            return
        finally:
            with self._cond:
                self.closed = True
                self._cond.notify_all()

    def _received(self, body: bytes) -> None:
        try:
            message = json.loads(body.decode("utf-8"))
        except ValueError as error:
            self._problem(f"adapter sent invalid JSON ({error}): {body[:200]!r}")
            return
        if not isinstance(message, dict):
            self._problem(f"adapter sent a non-object: {body[:200]!r}")
            return
        seq = message.get("seq")
        if seq != self._last_seq + 1:
            self._problem(f"adapter seq {seq} after {self._last_seq}")
        if isinstance(seq, int):
            self._last_seq = seq
        if self.schema is not None:
            checked = message
            if message.get("type") == "response" and not _plain_seq(message.get("request_seq")):
                # The adapter echoes the client's own seq (0 when it had none usable): an
                # out-of-range request_seq is the hostile client's, not a fault of the reply.
                checked = dict(message, request_seq=1)
            for violation in self.schema.validate(checked):
                self._problem(f"{violation}: {json.dumps(message)[:300]}")
        with self._cond:
            self.messages.append(message)
            self._cond.notify_all()

    def _problem(self, text: str) -> None:
        with self._cond:
            self.problems.append(text)


def _plain_seq(value: object) -> bool:
    return isinstance(value, int) and 1 <= value < 2**31


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body
