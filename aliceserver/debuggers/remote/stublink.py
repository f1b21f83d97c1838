"""A connected stub's services besides debugging (debuggers/stubservices.py): its OS
tables through `qXfer:osdata:read`, its files through `vFile:` (remote.c's
remote_file_get, remote_file_put and remote_file_delete), each request on the engine's
thread, errors in gdb's words ("Remote I/O error: ...")."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Callable, TypeVar, cast

from aliceserver.debuggers.remote.errors import RemoteUnsupported
from aliceserver.debuggers.remote.hostio import O_RDONLY, O_WRITE_NEW, HostIO, RemoteFileError
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.client import RemoteClient

T = TypeVar("T")
_MODE = 0o700  # gdb's for a file it puts


class StubLink:
    def __init__(self, client: RemoteClient, call: Callable[[Callable[[], object]], object]) -> None:
        self._client = client
        self._call = call

    def _files(self, fn: Callable[[HostIO], T]) -> T:
        def run() -> object:
            try:
                return fn(HostIO(self._client))
            except RemoteUnsupported:
                raise TargetError("Target does not support this operation.") from None
            except RemoteFileError as error:
                raise TargetError(f"Remote I/O error: {error}", errno=error.errno) from None

        return cast(T, self._call(run))

    def osdata(self, kind: str) -> bytes | None:
        def read() -> bytes | None:
            try:
                return self._client.xfer_read("osdata", kind)
            except RemoteUnsupported:
                return None

        return cast("bytes | None", self._call(read))

    def read_file(self, path: str, opened: Callable[[], None], write: Callable[[bytes], None]) -> None:
        """remote_file_get: the stub's file opened, then `opened()` (the local file is made
        then), then its bytes to `write` in the largest pieces a packet holds."""
        def get(hostio: HostIO) -> None:
            fd = hostio.open(path, O_RDONLY)
            with _closing(hostio, fd):
                opened()
                offset = 0
                while piece := _pread(hostio, fd, self._client.packet_size, offset):
                    write(piece)
                    offset += len(piece)

        self._files(get)

    def write_file(self, path: str, read: Callable[[int], bytes]) -> None:
        """remote_file_put: the stub's file made (mode 0700), then what `read(N)` gives
        until it gives nothing, written where each write stopped."""
        def put(hostio: HostIO) -> None:
            fd = hostio.open(path, O_WRITE_NEW, _MODE)
            with _closing(hostio, fd):
                offset, pending = 0, b""
                while chunk := pending or read(self._client.packet_size):
                    written = hostio.pwrite(fd, chunk, offset)
                    if written <= 0:
                        raise TargetError(f"Remote write of {len(chunk)} bytes returned 0!")
                    offset, pending = offset + written, chunk[written:]

        self._files(put)

    def delete_file(self, path: str) -> None:
        self._files(lambda hostio: hostio.unlink(path))


def _pread(hostio: HostIO, fd: int, count: int, offset: int) -> bytes:
    try:
        return hostio.pread(fd, count, offset)
    except RemoteFileError:
        # gdb expects an attachment with every pread reply; an error has none, which it
        # reports as the reply's own fault: always "Invalid argument"
        raise RemoteFileError(os.strerror(errno.EINVAL), errno=errno.EINVAL) from None


@contextmanager
def _closing(hostio: HostIO, fd: int) -> Iterator[None]:
    """The stub's file closed after use: an error closing it is gdb's after a transfer
    that went well, and is passed over after one that failed (its scoped_remote_fd)."""
    try:
        yield
    except BaseException:
        try:
            hostio.close(fd)
        except (RemoteFileError, RemoteUnsupported):
            pass
        raise
    hostio.close(fd)
