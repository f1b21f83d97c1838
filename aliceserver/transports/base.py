"""The transport contract: move whole messages (bytes) in and out, know no protocol."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from aliceserver.errors import AliceError, ProtocolError

# Wire traffic goes to this logger at DEBUG (see ARCHITECTURE.md, conventions).
WIRE_LOGGER = "aliceserver.wire"


class TransportClosed(AliceError):
    """A write on a transport whose stream is closed or broken."""


class FramingError(ProtocolError):
    """Bytes that do not form a message: bad header, oversized line or frame.

    The transport skips to the next plausible message boundary, so the caller may answer
    with an error and keep reading.
    """


@runtime_checkable
class Transport(Protocol):
    def read_message(self) -> bytes | None:
        """The next whole message, or None at end of stream (and after `close`).

        Raises `FramingError` for malformed input; the next call goes on after it.
        Meant to be called from one reader thread at a time.
        """
        ...

    def write_message(self, data: bytes) -> None:
        """Send one message. Thread-safe: messages from several threads never interleave.

        Raises `TransportClosed` when the other side is gone.
        """
        ...

    def close(self) -> None:
        """Close both directions; idempotent; never waits for a reader.

        A `read_message` blocked in another thread returns None when its stream ends: socket
        and in-memory transports end it themselves, a pipe ends when its writer closes it.
        """
        ...


class ByteReader(Protocol):
    """What a transport needs of its input stream (a BinaryIO, a socket file, a test fake)."""

    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


class ByteWriter(Protocol):
    """What a transport needs of its output stream."""

    def write(self, data: bytes, /) -> object: ...

    def flush(self) -> None: ...

    def close(self) -> None: ...
