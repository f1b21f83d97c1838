"""Files written and deleted through a stub (`vFile:pwrite`, `vFile:unlink`, as remote.c's
remote_file_put and remote_file_delete): the data escaped and cut to the packet size, short
writes taken up where they stopped, and the stub's errors in gdb's words."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.stublink import StubLink
from aliceserver.errors import TargetError

# Every byte value, the ones RSP escapes among them, several packets' worth
_CONTENT = bytes(range(256)) * 4 + b"#$}*" * 60


class FakeStub:
    """A stub's vFile write side: files by path, each pwrite taking at most `take` bytes."""

    def __init__(self, take: int = 1000) -> None:
        self.packet_size = 200
        self.files: dict[str, bytearray] = {}
        self.fds: dict[int, str] = {}
        self.take = take
        self.bodies: list[bytes] = []

    def request(self, body: bytes) -> bytes:
        self.bodies.append(body)
        name, _, args = body[6:].partition(b":")
        if name == b"open":
            path_hex, flags, mode = args.split(b",")
            path = bytes.fromhex(path_hex.decode()).decode()
            if "/missing/" in path:
                return b"F-1,2"
            assert int(flags, 16) == 0x601 and int(mode, 16) == 0o700  # WRONLY|CREAT|TRUNC, gdb's mode
            self.files[path] = bytearray()
            self.fds[len(self.fds) + 3] = path
            return b"F%x" % (len(self.fds) + 2)
        if name == b"pwrite":
            fd, offset, data = args.split(b",", 2)
            written = packets.unescape(data)[: self.take]
            target = self.files[self.fds[int(fd, 16)]]
            assert int(offset, 16) == len(target)
            target += written
            return b"F%x" % len(written)
        if name == b"unlink":
            path = bytes.fromhex(args.decode()).decode()
            return b"F0" if self.files.pop(path, None) is not None else b"F-1,2"
        if name == b"close":
            return b"F0"
        return b""


def _direct(fn: Callable[[], object]) -> object:
    return fn()


def _reader(data: bytes) -> Callable[[int], bytes]:
    """A local file's reads: at most N bytes each, nothing at its end."""
    stream = io.BytesIO(data)
    return stream.read


@pytest.mark.parametrize("take", [1000, 37])
def test_a_file_is_written_whole_in_packets_that_fit(take: int) -> None:
    stub = FakeStub(take)
    StubLink(stub, _direct).write_file("/there/f", _reader(_CONTENT))  # type: ignore[arg-type]
    assert bytes(stub.files["/there/f"]) == _CONTENT
    writes = [body for body in stub.bodies if body.startswith(b"vFile:pwrite:")]
    assert len(writes) > 3 and all(len(body) <= stub.packet_size for body in writes)


def test_delete_and_the_stubs_errors_in_gdbs_words() -> None:
    stub = FakeStub()
    link = StubLink(stub, _direct)  # type: ignore[arg-type]
    link.write_file("/there/f", _reader(b"x"))
    link.delete_file("/there/f")
    assert stub.files == {}
    with pytest.raises(TargetError, match=r"^Remote I/O error: No such file or directory$"):
        link.delete_file("/there/f")
    with pytest.raises(TargetError, match=r"^Remote I/O error: No such file or directory$"):
        link.write_file("/missing/f", _reader(b"x"))
