"""gdb's host I/O (`vFile:`) over a fake stub: files read in escaped chunks, the File-I/O
errors, a stub without it, and the copies kept in the cache and read again by a later
session with the same host's stub without a transfer."""

from __future__ import annotations

import errno
import struct
from pathlib import Path

import pytest

from aliceserver.debuggers.events import Event, Output
from aliceserver.debuggers.librarypaths import LibraryPaths
from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.errors import RemoteUnsupported
from aliceserver.debuggers.remote.hostio import HostIO, RemoteFileError
from aliceserver.debuggers.remote.targetfiles import (
    NO_TRANSFERS,
    SLOW_WARNING,
    StubFiles,
    TargetFiles,
)

# Every byte value, the ones RSP escapes among them, and more than one packet's worth
_CONTENT = bytes(range(256)) * 5 + b"#$}*" * 40


class FakeFiles:
    """A stub's vFile side over `files` (path -> bytes): what a RemoteClient sends it."""

    def __init__(self, files: dict[str, bytes], *, supported: bool = True) -> None:
        self.files = files
        self.supported = supported
        self.packet_size = 300
        self.open_fds: dict[int, bytes] = {}
        self.requests: list[bytes] = []

    def request(self, body: bytes) -> bytes:
        self.requests.append(body)
        if not self.supported or not body.startswith(b"vFile:"):
            return b""
        name, _, args = body[6:].partition(b":")
        fields = args.split(b",")
        if name == b"setfs":
            return b"F0"
        if name == b"open":
            data = self.files.get(bytes.fromhex(fields[0].decode()).decode())
            if data is None:
                return b"F-1,2"
            fd = len(self.open_fds) + 3
            self.open_fds[fd] = data
            return b"F%x" % fd
        fd = int(fields[0], 16)
        if fd not in self.open_fds:
            return b"F-1,9"
        data = self.open_fds[fd]
        if name == b"pread":
            count, offset = int(fields[1], 16), int(fields[2], 16)
            piece = data[offset : offset + min(count, 100)]  # fewer than asked, as a stub may
            return b"F%x;" % len(piece) + packets.escape(piece)
        if name == b"fstat":
            stat = struct.pack(">7I3Q3I", 1, 2, 0o100644, 1, 0, 0, 0, len(data), 4096, 1, 0, 1700000000, 0)
            return b"F%x;" % len(stat) + packets.escape(stat)
        if name == b"close":
            del self.open_fds[fd]
            return b"F0"
        return b""


def _hostio(stub: FakeFiles) -> HostIO:
    return HostIO(stub)  # type: ignore[arg-type]  # what HostIO asks of a client


def test_a_file_is_read_whole_through_escaped_chunks() -> None:
    stub = FakeFiles({"/lib/libx.so": _CONTENT})
    hostio = _hostio(stub)
    fd = hostio.open("/lib/libx.so")
    assert hostio.fstat(fd).size == len(_CONTENT) and hostio.fstat(fd).mtime == 1700000000
    assert hostio.read_all(fd, len(_CONTENT)) == _CONTENT
    hostio.close(fd)
    assert stub.open_fds == {}


def test_errors_in_this_machines_words() -> None:
    hostio = _hostio(FakeFiles({}))
    with pytest.raises(RemoteFileError) as raised:
        hostio.open("/nowhere")
    assert raised.value.errno == errno.ENOENT and str(raised.value) == "No such file or directory"
    with pytest.raises(RemoteFileError):
        hostio.close(42)
    assert hostio.supported()  # an open that fails is an open the stub knows
    assert not _hostio(FakeFiles({}, supported=False)).supported()
    with pytest.raises(RemoteUnsupported):
        _hostio(FakeFiles({}, supported=False)).open("/lib/libx.so")


def test_copies_are_kept_and_reused_by_a_later_session(tmp_path: Path) -> None:
    said: list[str] = []
    warned: list[str] = []
    stub = FakeFiles({"/lib/libx.so": _CONTENT})
    files = TargetFiles.for_stub(_hostio(stub), str(tmp_path), "127.0.0.1:1234", say=said.append, warn=warned.append)
    assert files is not None
    copy = files.local_copy("/lib/libx.so")
    assert copy is not None and Path(copy).read_bytes() == _CONTENT and copy.startswith(str(tmp_path))
    assert files.local_copy("/lib/missing.so") is None
    assert said == ["Reading /lib/libx.so from remote target...\n", "Reading /lib/missing.so from remote target...\n"]
    # A new process: its files as it sees them (its mount namespace), read again
    stub.requests.clear()
    files.debugging(0x4D)
    assert files.local_copy("/lib/libx.so") == copy and stub.requests[0] == b"vFile:setfs:4d"
    assert said[-1] == "Reading /lib/libx.so from remote target...\n"
    assert set(warned) == {SLOW_WARNING}
    # A later session with a stub on the same host (another port): open and fstat, the
    # bytes from the copy
    stub.requests.clear()
    again = TargetFiles.for_stub(_hostio(stub), str(tmp_path), "127.0.0.1:5678", say=said.append, warn=warned.append)
    assert again is not None and again.local_copy("/lib/libx.so") == copy
    assert not [body for body in stub.requests if body.startswith(b"vFile:pread")]
    # The file changed on the target (its size): read again
    stub.files["/lib/libx.so"] = _CONTENT + b"more"
    third = TargetFiles.for_stub(_hostio(stub), str(tmp_path), "127.0.0.1:1234", say=said.append, warn=warned.append)
    assert third is not None
    changed = third.local_copy("/lib/libx.so")
    assert changed is not None and changed != copy and Path(changed).read_bytes() == _CONTENT + b"more"


def test_the_engines_warnings_come_once_a_session(tmp_path: Path) -> None:
    """gdb's: a stub that transfers no files under the sysroot `target:` (its files are
    taken as this machine's), and the slowness of one that does."""
    told: list[Event] = []
    stub_files = StubFiles(str(tmp_path), told.append)
    silent, paths = FakeFiles({}, supported=False), LibraryPaths()
    assert stub_files.for_link(silent, paths, "127.0.0.1:1") is None  # type: ignore[arg-type]
    assert stub_files.for_link(FakeFiles({}, supported=False), paths, "127.0.0.1:2") is None  # type: ignore[arg-type]
    talking = FakeFiles({"/lib/libx.so": _CONTENT})
    files = stub_files.for_link(talking, paths, "127.0.0.1:3")  # type: ignore[arg-type]
    assert files is not None and stub_files.for_link(talking, paths, "127.0.0.1:3") is files
    files.local_copy("/lib/libx.so")
    files.local_copy("/lib/liby.so")
    warnings = [event.text for event in told if isinstance(event, Output) and event.category == "warning"]
    assert warnings == [f"warning: {NO_TRANSFERS}\n", f"warning: {SLOW_WARNING}\n"]
    # Another sysroot: the stub is not asked
    paths.set_sysroot("/")
    assert stub_files.for_link(FakeFiles({"/lib/libx.so": b""}), paths, "127.0.0.1:4") is None  # type: ignore[arg-type]
