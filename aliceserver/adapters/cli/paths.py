"""Where the daemon lives, and the checks that keep other users out of it.

The directory is $XDG_RUNTIME_DIR/aliceserver when that runtime directory is ours and
private, else /tmp/aliceserver-UID; ALICESERVER_CLI_DIR (or --dir) overrides both. It must
be a real directory owned by this user with mode 0700, and the socket in it ours with
mode 0600: anything else is refused, never repaired, since a socket another user controls
could hand us a debugger session of theirs or read our commands.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass

DIR_ENV = "ALICESERVER_CLI_DIR"
SOCKET_NAME = "daemon.sock"
PID_NAME = "daemon.pid"
LOG_NAME = "daemon.log"
LOCK_NAME = "start.lock"
MAX_SOCKET_PATH = 107  # sun_path holds 108 bytes with the terminating NUL


class UnsafePath(Exception):
    """The daemon directory or socket is not private to this user."""


@dataclass(frozen=True, slots=True)
class DaemonPaths:
    directory: str

    @property
    def socket(self) -> str:
        return os.path.join(self.directory, SOCKET_NAME)

    @property
    def pid_file(self) -> str:
        return os.path.join(self.directory, PID_NAME)

    @property
    def log_file(self) -> str:
        return os.path.join(self.directory, LOG_NAME)

    @property
    def lock_file(self) -> str:
        return os.path.join(self.directory, LOCK_NAME)


def _private_dir(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077


def default_directory() -> str:
    override = os.environ.get(DIR_ENV)
    if override:
        return os.path.abspath(override)
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isabs(runtime) and _private_dir(runtime):
        return os.path.join(runtime, "aliceserver")
    return os.path.join(tempfile.gettempdir(), f"aliceserver-{os.geteuid()}")


def check_directory(path: str) -> None:
    """Refuse a directory that is a symlink, not ours, or open to group/others."""
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafePath(f"{path} is not a directory (a symlink or a file?): refusing to use it")
    if info.st_uid != os.geteuid():
        raise UnsafePath(f"{path} belongs to uid {info.st_uid}, not to you: refusing to use it")
    if info.st_mode & 0o077:
        raise UnsafePath(
            f"{path} has mode {stat.S_IMODE(info.st_mode):04o}; it must be 0700 (chmod 700 it, "
            "or remove it)"
        )


def check_socket(path: str) -> None:
    """Refuse a socket that is not a socket, not ours, or open to group/others."""
    info = os.lstat(path)
    if not stat.S_ISSOCK(info.st_mode):
        raise UnsafePath(f"{path} is not a socket: refusing to use it")
    if info.st_uid != os.geteuid():
        raise UnsafePath(f"{path} belongs to uid {info.st_uid}, not to you: refusing to use it")
    if info.st_mode & 0o077:
        raise UnsafePath(f"{path} has mode {stat.S_IMODE(info.st_mode):04o}; it must be 0600")


def prepare(directory: str | None = None) -> DaemonPaths:
    """The daemon's paths; creates the directory (0700) when missing, checks it always."""
    path = os.path.abspath(directory or default_directory())
    try:
        os.mkdir(path, 0o700)
        os.chmod(path, 0o700)  # whatever the umask left
    except FileExistsError:
        pass
    check_directory(path)
    paths = DaemonPaths(path)
    if len(os.fsencode(paths.socket)) > MAX_SOCKET_PATH:
        raise UnsafePath(f"{paths.socket} is too long for a Unix socket: choose a shorter --dir")
    return paths
