"""The daemon's wire format: one JSON object per line, one request and one reply per
connection (a Unix stream socket)."""

from __future__ import annotations

import json
import socket
from typing import Any

MAX_MESSAGE = 64 << 20  # bytes: far above any reply (replies have a size budget)


class WireError(Exception):
    """The peer closed the connection early or sent something that is not a message."""


def send(connection: socket.socket, message: dict[str, Any]) -> None:
    connection.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")


def receive(connection: socket.socket) -> dict[str, Any]:
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = connection.recv(65536)
        if not chunk:
            raise WireError("the connection closed before a whole message came")
        chunks.append(chunk)
        size += len(chunk)
        if chunk.endswith(b"\n"):
            break
        if size > MAX_MESSAGE:
            raise WireError("message too large")
    try:
        message = json.loads(b"".join(chunks))
    except ValueError as error:
        raise WireError(f"not JSON: {error}") from None
    if not isinstance(message, dict):
        raise WireError("a message must be a JSON object")
    return message
