"""A connected stub's services besides debugging (debuggers/stubservices.py): its OS
tables through `qXfer:osdata:read`, its files through `vFile:` (remote.c's
remote_file_get, remote_file_put and remote_file_delete), each request on the engine's
thread, errors in gdb's words ("Remote I/O error: ...")."""

from __future__ import annotations

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

    def read_file(self, path: str) -> bytes:
        def get(hostio: HostIO) -> bytes:
            fd = hostio.open(path, O_RDONLY)
            try:
                data = bytearray()
                while piece := hostio.pread(fd, max(self._client.packet_size - 32, 256), len(data)):
                    data += piece
                return bytes(data)
            finally:
                hostio.close(fd)

        return self._files(get)

    def write_file(self, path: str, data: bytes) -> None:
        def put(hostio: HostIO) -> None:
            fd = hostio.open(path, O_WRITE_NEW, _MODE)
            try:
                offset = 0
                while offset < len(data):
                    written = hostio.pwrite(fd, data[offset:], offset)
                    if written <= 0:
                        raise TargetError(f"Remote write of {len(data) - offset} bytes returned 0!")
                    offset += written
            finally:
                hostio.close(fd)

        self._files(put)

    def delete_file(self, path: str) -> None:
        self._files(lambda hostio: hostio.unlink(path))
