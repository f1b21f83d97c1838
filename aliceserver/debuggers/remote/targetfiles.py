"""The target's own files on this machine, for a stub that transfers them: gdb's default
sysroot `target:` reads the program and its libraries through the link (hostio.py). Each
file read is kept in the session's cache directory, under the stub's host (its port
changes from one gdbserver to the next; a pipe's stub runs here) and the file's size and
mtime (fstat), so that a later session reads only those two round trips more; symbols are
read from the copy while the target's name is shown.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.debuggers.core.buildid import build_id
from aliceserver.debuggers.events import Event, Output
from aliceserver.debuggers.librarypaths import TARGET_PREFIX, LibraryPaths
from aliceserver.debuggers.remote.errors import RemoteUnsupported
from aliceserver.errors import TargetError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.client import RemoteClient
    from aliceserver.debuggers.remote.hostio import HostIO

log = logging.getLogger(__name__)

NO_TRANSFERS = "remote target does not support file transfer, attempting to access files from local filesystem."
SLOW_WARNING = 'File transfers from remote targets can be slow. Use "set sysroot" to access files locally instead.'
_UNSAFE = compiled_later(r"[^A-Za-z0-9._-]+")


class TargetFiles:
    """`local_copy(PATH)`: where this machine holds the target's file PATH (read through
    the stub once), None when the target has no such file."""

    def __init__(self, hostio: HostIO, directory: str, *, say: Callable[[str], None],
                 warn: Callable[[str], None]) -> None:  # fmt: skip
        self._hostio = hostio
        self._directory = directory  # this stub's part of the cache
        self._say = say  # console text (gdb's "Reading ... from remote target...")
        self._warn = warn  # a warning
        self._copies: dict[str, str | None] = {}  # target path -> its copy, for this process
        self._pid = 0  # whose filesystem (vFile:setfs): the process the stub debugs

    def debugging(self, pid: int) -> None:
        """The stub debugs process `pid` now: its files are read as it sees them, afresh
        for a new process (gdb reads them again at each start)."""
        if pid != self._pid:
            self._pid = pid
            self._copies.clear()

    @classmethod
    def for_stub(cls, hostio: HostIO, cache_root: str, address: str, *, say: Callable[[str], None],
                 warn: Callable[[str], None]) -> TargetFiles | None:  # fmt: skip
        """The stub's files, or None when it transfers none (then they are this machine's,
        as gdb assumes of a stub without vFile:open)."""
        if not hostio.supported():
            return None
        return cls(hostio, os.path.join(cache_root, "target-files", _host(address)), say=say, warn=warn)

    def build_id(self, path: str) -> str | None:
        """The build id of the stub's file `path`, read through the link in the few bytes
        its note takes (gdb's exec-file check reads no more, and says nothing)."""
        hostio = self._hostio
        try:
            hostio.setfs(self._pid)
            fd = hostio.open(path)
        except TargetError:  # no such file, no transfers
            return None
        try:
            return build_id(lambda offset, size: hostio.pread(fd, size, offset), 0, in_memory=False)
        finally:
            try:
                hostio.close(fd)
            except TargetError:
                pass

    def local_copy(self, path: str) -> str | None:
        if path not in self._copies:
            self._copies[path] = self._fetch(path)
        return self._copies[path]

    def _fetch(self, path: str) -> str | None:
        from aliceserver.debuggers.remote.hostio import RemoteFileError  # remote only

        self._say(f"Reading {path} from remote target...\n")
        self._warn(SLOW_WARNING)
        hostio = self._hostio
        try:
            hostio.setfs(self._pid)
            fd = hostio.open(path)
        except (RemoteFileError, RemoteUnsupported) as error:
            log.info("target:%s: %s", path, error)
            return None
        try:
            stat = hostio.fstat(fd)
            copy = os.path.join(self._directory, f"{stat.size}-{stat.mtime}", path.lstrip("/"))
            if _held(copy, stat.size):
                return copy
            _write(copy, hostio.read_all(fd, stat.size))
            return copy
        except (TargetError, OSError) as error:
            log.warning("reading target:%s: %s", path, error)
            return None
        finally:
            try:
                hostio.close(fd)
            except TargetError as error:
                log.info("closing target:%s: %s", path, error)


def _host(address: str) -> str:
    """The part of a stub's address that names its machine: HOST of `[tcp:]HOST:PORT`,
    `pipe` for `| COMMAND`, a serial device's name as it is."""
    address = address.strip().removeprefix("tcp:")
    if address.startswith("|"):
        return "pipe"
    host, colon, port = address.rpartition(":")
    name = host.strip("[]") if colon and port.isdigit() else address
    return _UNSAFE().sub("_", name).strip("_") or "localhost"


def _held(copy: str, size: int) -> bool:
    try:
        return os.path.getsize(copy) == size
    except OSError:
        return False


def _write(copy: str, data: bytes) -> None:
    """Whole or not at all: a session reading it meanwhile never sees a part."""
    directory = os.path.dirname(copy)
    os.makedirs(directory, mode=0o700, exist_ok=True)
    import tempfile  # (with random: imported at a stub's first file, not by every session)

    fd, partial = tempfile.mkstemp(dir=directory, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as stream:
            stream.write(data)
        os.replace(partial, copy)
    except BaseException:
        os.unlink(partial)
        raise


class StubFiles:
    """The engine's side: the TargetFiles of the link it holds (one per link), and gdb's
    warnings about them, each once a session."""

    def __init__(self, cache_root: str, put: Callable[[Event], None]) -> None:
        self._cache_root = cache_root
        self._put = put
        self._held: tuple[RemoteClient, TargetFiles | None] | None = None
        self._warned: set[str] = set()

    def for_link(self, client: RemoteClient, paths: LibraryPaths, address: str) -> TargetFiles | None:
        """The files of the target behind `client` where the sysroot says `target:` and the
        stub transfers them; None: the program and its libraries are this machine's files."""
        if self._held is None or self._held[0] is not client:
            files = None
            if paths.sysroot.startswith(TARGET_PREFIX):
                from aliceserver.debuggers.remote.hostio import HostIO

                files = TargetFiles.for_stub(HostIO(client), self._cache_root, address,
                                             say=lambda text: self._put(Output("console", text)), warn=self._warn)
                if files is None and paths.sysroot == TARGET_PREFIX:
                    self._warn(NO_TRANSFERS)
            self._held = (client, files)
        return self._held[1]

    def _warn(self, text: str) -> None:
        if text not in self._warned:  # gdb's are static: once a session
            self._warned.add(text)
            self._put(Output("warning", f"warning: {text}\n"))
