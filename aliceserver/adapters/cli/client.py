"""A command's side of the daemon: connect, starting the daemon when none answers (and
saying so when a previous one died), send one request, read the reply."""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import aliceserver
from aliceserver.adapters.cli import wire
from aliceserver.adapters.cli.paths import DaemonPaths, check_socket

START_TIMEOUT = 30.0  # seconds a new daemon may take to answer
_POLL = 0.05  # seconds between connection attempts while a new daemon starts


class DaemonError(Exception):
    """No daemon could be reached or started, or it died during the request."""


def _connect(path: str) -> socket.socket | None:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        connection.connect(path)
    except OSError as error:
        connection.close()
        if error.errno in (errno.ENOENT, errno.ECONNREFUSED):
            return None
        raise
    return connection


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_pid(paths: DaemonPaths) -> int | None:
    try:
        with open(paths.pid_file) as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


class Client:
    def __init__(
        self,
        paths: DaemonPaths,
        *,
        idle_timeout: float | None = None,
        cache_dir: str | None = None,
        notice: Callable[[str], None] = lambda text: print(text, file=sys.stderr),
    ) -> None:
        self.paths = paths
        self.idle_timeout = idle_timeout
        self.cache_dir = os.path.abspath(cache_dir) if cache_dir else None  # the daemon runs in /
        self.notice = notice

    def connect(self, start: bool = True) -> socket.socket | None:
        """A connection to the daemon; starts one when none answers (unless `start` is False)."""
        if os.path.lexists(self.paths.socket):
            check_socket(self.paths.socket)
        connection = _connect(self.paths.socket)
        if connection is not None or not start:
            return connection
        lock = os.open(self.paths.lock_file, os.O_WRONLY | os.O_CREAT, 0o600)
        try:  # one command starts it, the others wait for it
            fcntl.flock(lock, fcntl.LOCK_EX)
            connection = _connect(self.paths.socket)
            if connection is not None:
                return connection
            self._forget_dead_daemon()
            return self._start()
        finally:
            os.close(lock)  # releases the lock

    def _forget_dead_daemon(self) -> None:
        pid = read_pid(self.paths)
        had_socket = os.path.lexists(self.paths.socket)
        if pid is None and not had_socket:
            return  # none ran, or the last one ended cleanly
        where = f" (its log: {self.paths.log_file}.old)"
        if pid is not None and _alive(pid):
            self.notice(f"aliceserver-cli: the daemon (pid {pid}) does not answer on its socket; "
                        f"starting another one{where}")  # fmt: skip
        else:
            self.notice(f"aliceserver-cli: the daemon{f' (pid {pid})' if pid else ''} has died "
                        "(crashed or killed); its sessions and their programs are gone; starting "
                        f"a new one{where}")  # fmt: skip
        for path in (self.paths.socket, self.paths.pid_file):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
        if os.path.exists(self.paths.log_file):
            os.replace(self.paths.log_file, self.paths.log_file + ".old")

    def _start(self) -> socket.socket:
        # The daemon imports this very package, wherever the command found it.
        package_root = os.path.dirname(os.path.dirname(os.path.abspath(aliceserver.__file__)))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        command = [sys.executable, "-m", "aliceserver.serve_cli", "--dir", self.paths.directory, "--fork"]
        if self.idle_timeout is not None:
            command += ["--idle-timeout", repr(self.idle_timeout)]
        if self.cache_dir is not None:
            command += ["--cache-dir", self.cache_dir]
        fd = os.open(self.paths.log_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            starter = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=fd, stderr=fd, env=env, cwd="/",
                start_new_session=True,  # no terminal signals (Ctrl-C in this shell) reach it
            )  # fmt: skip
        finally:
            os.close(fd)
        failed = starter.wait()  # the daemon forks away at once: this reaps the starter
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            connection = _connect(self.paths.socket) if os.path.lexists(self.paths.socket) else None
            if connection is not None:
                check_socket(self.paths.socket)
                return connection
            pid = read_pid(self.paths)
            gone = failed or (pid is not None and not _alive(pid))
            if gone or time.monotonic() > deadline:
                raise DaemonError(f"the daemon did not start; its log:\n{self._log_tail()}")
            time.sleep(_POLL)

    def _log_tail(self, lines: int = 15) -> str:
        try:
            with open(self.paths.log_file, errors="replace") as handle:
                return "".join(handle.readlines()[-lines:]).rstrip() or "(empty)"
        except OSError:
            return "(none)"

    def request(self, message: dict[str, Any], start: bool = True) -> dict[str, Any] | None:
        """The daemon's reply to `message` (None: no daemon runs and `start` was False)."""
        connection = self.connect(start)
        if connection is None:
            return None
        with connection:
            try:
                wire.send(connection, message)
                return wire.receive(connection)
            except (wire.WireError, OSError) as error:
                raise DaemonError(
                    f"the daemon ended during the command ({error}); it may have crashed: "
                    f"see {self.paths.log_file}"
                ) from None
