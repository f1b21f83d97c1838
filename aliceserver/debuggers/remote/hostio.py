"""gdb's host I/O over a stub (`vFile:` packets, remote.c's remote_hostio_*): the target's
files opened, read and closed through the link, as gdb reads the program and its
libraries under its default sysroot `target:`; written and deleted for `remote put` and
`remote delete` (stublink.py).

A reply is `F RESULT [, ERRNO] [; ATTACHMENT]`: RESULT -1 with one of the File-I/O errno
values (gdb's fileio_error) on failure; `pread` and `fstat` attach binary data, escaped.
"""

from __future__ import annotations

import errno as host_errno
import os
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.client import RemoteClient

O_RDONLY = 0
O_WRITE_NEW = 0x1 | 0x200 | 0x400  # File-I/O's O_WRONLY | O_CREAT | O_TRUNC
_HEADROOM = 32  # `F` + count + `;` and a little, within the packet size
# The File-I/O protocol's errno values that differ from Linux's (gdbsupport/fileio.h)
_FILEIO_ERRNO = {91: host_errno.ENAMETOOLONG, 9999: 0}
# gdb's struct fio_stat: big-endian dev, ino, mode, nlink, uid, gid, rdev (4 bytes each),
# size, blksize, blocks (8 each), atime, mtime, ctime (4 each)
_FIO_STAT = struct.Struct(">7I3Q3I")


class RemoteFileError(RemoteError):
    """The stub could not do a file operation; `errno` is this machine's number."""


@dataclass(frozen=True, slots=True)
class RemoteFileStat:
    size: int
    mtime: int  # seconds


class HostIO:
    """The `vFile:` requests of one link; `setfs` chooses whose filesystem they see."""

    def __init__(self, client: RemoteClient) -> None:
        self.client = client
        self._filesystem: int | None = None  # the pid whose mount namespace is used

    def supported(self) -> bool:
        """Whether the stub transfers files (gdb's filesystem_is_local probe: an open the
        stub does not know means its files are this machine's)."""
        try:
            self.close(self.open("just probing"))
        except RemoteUnsupported:
            return False
        except RemoteFileError:
            pass
        return True

    def setfs(self, pid: int) -> None:
        """Open files as process `pid` sees them (its mount namespace; 0: the stub's own)."""
        if self._filesystem == pid:
            return
        reply = self.client.request(b"vFile:setfs:%x" % pid)
        if reply:  # a stub without setfs sees its own files: that is all we can do
            _result(b"vFile:setfs", reply)
        self._filesystem = pid

    def open(self, path: str, flags: int = O_RDONLY, mode: int = 0) -> int:
        body = b"vFile:open:" + packets.hex_bytes(os.fsencode(path)) + b",%x,%x" % (flags, mode)
        return _result(body, self.client.request(body))[0]

    def pread(self, fd: int, count: int, offset: int) -> bytes:
        body = b"vFile:pread:%x,%x,%x" % (fd, count, offset)
        size, data = _result(body, self.client.request(body))
        data = packets.unescape(data)
        if len(data) != size:
            raise RemoteError(f"vFile:pread returned {len(data)} bytes where it said {size}.")
        return data

    def fstat(self, fd: int) -> RemoteFileStat:
        body = b"vFile:fstat:%x" % fd
        _, data = _result(body, self.client.request(body))
        data = packets.unescape(data)
        if len(data) < _FIO_STAT.size:
            raise RemoteError(f"vFile:fstat returned {len(data)} bytes.")
        fields = _FIO_STAT.unpack_from(data)
        return RemoteFileStat(size=fields[7], mtime=fields[11])

    def pwrite(self, fd: int, data: bytes, offset: int) -> int:
        """Bytes written (remote.c's remote_hostio_pwrite: the data escaped, cut to the packet)."""
        head = b"vFile:pwrite:%x,%x," % (fd, offset)
        room = max(self.client.packet_size - _HEADROOM - len(head), 16)
        body = head + _escaped_within(data, room)
        return _result(body, self.client.request(body))[0]

    def unlink(self, path: str) -> None:
        body = b"vFile:unlink:" + packets.hex_bytes(os.fsencode(path))
        _result(body, self.client.request(body))

    def close(self, fd: int) -> None:
        body = b"vFile:close:%x" % fd
        _result(body, self.client.request(body))

    def read_all(self, fd: int, size: int) -> bytes:
        """The file's bytes from its start, in chunks the packet size allows (the stub
        may send fewer than asked: escapes must fit too)."""
        chunk = max(self.client.packet_size - _HEADROOM, 256)
        data = bytearray()
        while True:
            piece = self.pread(fd, chunk, len(data))
            if not piece:
                break
            data += piece
            if len(data) >= size:
                break  # no round trip to learn what fstat told
        return bytes(data)


def _escaped_within(data: bytes, room: int) -> bytes:
    """As many of `data`'s first bytes as fit in `room` once escaped (the stub says how
    many it wrote, as gdb's remote_escape_output leaves the rest for the next write)."""
    count = min(len(data), room)
    escaped = packets.escape(data[:count])
    while len(escaped) > room:  # each byte dropped saves 1 or 2: drop half the excess, rounded up
        count -= (len(escaped) - room + 1) // 2
        escaped = packets.escape(data[:count])
    return escaped


def _result(body: bytes, reply: bytes) -> tuple[int, bytes]:
    """(RESULT, ATTACHMENT) of an `F` reply; RemoteFileError for `F-1,ERRNO`."""
    if not reply:
        raise RemoteUnsupported(f"The stub does not support {body.split(b':')[1].decode()}.")
    if not reply.startswith(b"F"):
        raise RemoteError(f"Unexpected reply to {body[:24]!r}: {reply[:40]!r}.")
    head, _, attachment = reply[1:].partition(b";")
    parts = head.split(b",")
    try:
        result = int(parts[0], 16)
        number = int(parts[1], 16) if len(parts) > 1 else 0
    except ValueError:
        raise RemoteError(f"Unexpected reply to {body[:24]!r}: {reply[:40]!r}.") from None
    if result == -1:
        number = _FILEIO_ERRNO.get(number, number)
        raise RemoteFileError(os.strerror(number) if number else "Unknown remote I/O error", errno=number)
    return result, attachment
