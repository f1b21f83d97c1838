"""The CLI's session daemon: holds the debug sessions between commands, buffers their
output and events while no command runs, and serves one request per connection on a
private Unix socket. It ends after an idle time (no request, none running), on SIGTERM,
or when asked (`shutdown`); launched programs die with it, attached ones run on.

Requests (JSON, see wire.py): `call` (one agent tool, answered with its reply and its
text rendering), `output` (the buffered events), `status`, `shutdown`.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from typing import Any

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.agent.sessions import DebuggerFactory
from aliceserver.adapters.cli import wire
from aliceserver.adapters.cli.buffer import EventBuffer
from aliceserver.adapters.cli.format import format_reply
from aliceserver.adapters.cli.paths import DaemonPaths, check_socket

log = logging.getLogger(__name__)

DEFAULT_IDLE = 30 * 60.0  # seconds without a command before the daemon exits
_NAMING_TOOLS = ("debug_launch", "debug_attach", "debug_core", "debug_connect", "debug_restart")  # make their session current
_MAX_WAIT = 30.0  # seconds an `output` request may wait for new events
_OUTPUT = ("stdout", "stderr", "console")


class Daemon:
    def __init__(
        self,
        paths: DaemonPaths,
        factory: DebuggerFactory,
        *,
        idle_timeout: float = DEFAULT_IDLE,
        trace_directory: str | None = None,
    ) -> None:
        self.paths = paths
        self.idle_timeout = idle_timeout
        self.events = EventBuffer()
        self.registry, self.sessions = build_tools(
            factory, trace_directory=trace_directory, observer=self.events.observe
        )
        self.current_session: str | None = None  # the last one started: the default
        self.read_cursor = 0  # `output` shows the events after this one
        self.started = time.time()
        self._listener: socket.socket | None = None
        self._inode = 0
        self._active = 0
        self._last_activity = time.monotonic()
        self._stopping = False
        self.stop_reason = ""
        self._state = threading.Condition()

    # --- life -----------------------------------------------------------------------
    def bind(self) -> None:
        """Listen on the socket (0600 from the start) and write the pid file."""
        path = self.paths.socket
        if os.path.lexists(path):
            os.unlink(path)  # the caller made sure no daemon answers on it
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o177)  # no window in which the socket is open to others
        try:
            listener.bind(path)
        finally:
            os.umask(old_umask)
        os.chmod(path, 0o600)
        check_socket(path)
        listener.listen(16)
        self._inode = os.stat(path).st_ino
        self._listener = listener
        temporary = f"{self.paths.pid_file}.{os.getpid()}"
        with open(temporary, "w") as handle:
            handle.write(f"{os.getpid()}\n")
        os.replace(temporary, self.paths.pid_file)

    def serve(self, handle_signals: bool = True) -> None:
        """Accept connections until stopped (call `bind` first); then end every session.
        `handle_signals` (main thread only): SIGTERM, SIGINT and SIGHUP stop it cleanly."""
        assert self._listener is not None
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP) if handle_signals else ():
            signal.signal(number, lambda signum, frame: self.stop(f"signal {signum}"))
        threading.Thread(target=self._watch_idle, name="cli-idle", daemon=True).start()
        log.info("daemon %d serving on %s (idle timeout %g s)", os.getpid(), self.paths.socket,
                 self.idle_timeout)  # fmt: skip
        try:
            while not self._stopping:
                try:
                    connection, _ = self._listener.accept()
                except OSError:
                    if self._stopping:
                        break
                    raise
                threading.Thread(target=self._serve_one, args=(connection,), daemon=True).start()
        finally:
            self._cleanup()

    def stop(self, reason: str) -> None:
        with self._state:
            if self._stopping:
                return
            self._stopping = True
            self.stop_reason = reason
            self._state.notify_all()
        log.info("daemon stopping: %s", reason)
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)  # wakes the accept
            except OSError:
                pass

    def _cleanup(self) -> None:
        if self._listener is not None:
            self._listener.close()
        try:  # only our own files: a new daemon may have taken the place already
            if os.stat(self.paths.socket).st_ino == self._inode:
                os.unlink(self.paths.socket)
        except OSError:
            pass
        try:
            with open(self.paths.pid_file) as handle:
                if handle.read().strip() == str(os.getpid()):
                    os.unlink(self.paths.pid_file)
        except OSError:
            pass
        self.sessions.close_all()

    def _watch_idle(self) -> None:
        with self._state:
            while not self._stopping:
                left = self.idle_timeout
                if self._active == 0:
                    left = self._last_activity + self.idle_timeout - time.monotonic()
                    if left <= 0:
                        break
                self._state.wait(left)
        self.stop(f"idle for {self.idle_timeout:g} s")

    # --- requests -------------------------------------------------------------------
    def _serve_one(self, connection: socket.socket) -> None:
        with self._state:
            self._active += 1
            self._last_activity = time.monotonic()
        stop_after = False
        try:
            with connection:
                request = wire.receive(connection)
                stop_after = request.get("op") == "shutdown"
                wire.send(connection, self.handle(request))
        except (wire.WireError, OSError) as error:
            log.info("a client left: %s", error)
        except Exception:
            log.exception("request failed")
        finally:
            with self._state:
                self._active -= 1
                self._last_activity = time.monotonic()
                self._state.notify_all()
        if stop_after:
            self.stop("asked to shut down")

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        op = request.get("op")
        if op == "call":
            return self._call(str(request.get("tool")), request.get("arguments") or {})
        if op == "output":
            return self._output(request)
        if op == "status":
            return self.status()
        if op == "shutdown":
            return {"ok": True, "stopping": True, "pid": os.getpid()}
        return {"ok": False, "message": f"unknown request {op!r}"}

    def _call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        spec = self.registry.get(tool)
        if spec is not None and "session" not in arguments and self.current_session:
            names = {session.id for session in self.sessions.all()}
            if self.current_session in names and any(p.name == "session" for p in spec.params):
                arguments = {**arguments, "session": self.current_session}
        reply = self.registry.call(tool, arguments)
        data = reply.data
        if not reply.is_error and tool in _NAMING_TOOLS and isinstance(data.get("session"), str):
            self.current_session = data["session"]
        return {"ok": True, "is_error": reply.is_error, "data": data,
                "text": format_reply(tool, data, reply.is_error)}  # fmt: skip

    def _output(self, request: dict[str, Any]) -> dict[str, Any]:
        session = request.get("session")
        if request.get("clear"):
            cleared = self.events.clear()
            self.read_cursor = self.events.last_seq
            return {"ok": True, "cleared": cleared, "entries": [], "dropped": 0, "cursor": self.read_cursor}
        tail = request.get("tail")
        if isinstance(tail, int):  # the last lines of program output; the cursor stays
            entries, dropped = self.events.read(0)
            text = "".join(e.text for e in entries if e.kind in _OUTPUT and session in (None, e.session))
            lines = text.splitlines(keepends=True)[-tail:] if tail > 0 else []
            return {"ok": True, "text": "".join(lines), "dropped": dropped, "cursor": self.read_cursor}
        after = request.get("after")
        start = self.read_cursor if not isinstance(after, int) else after
        wait = min(float(request.get("wait") or 0), _MAX_WAIT)
        entries, dropped = self.events.read(start, wait)
        cursor = entries[-1].seq if entries else max(start, self.events.last_seq)
        if session:
            entries = [e for e in entries if e.session == session]
        if not isinstance(after, int):
            self.read_cursor = cursor
        return {"ok": True, "entries": [e.as_dict() for e in entries], "dropped": dropped,
                "cursor": cursor}  # fmt: skip

    def status(self) -> dict[str, Any]:
        sessions = self.registry.call("debug_sessions", {}).data.get("sessions", [])
        return {
            "ok": True,
            "pid": os.getpid(),
            "directory": self.paths.directory,
            "started": self.started,
            "idle_timeout": self.idle_timeout,
            "current_session": self.current_session,
            "events": self.events.stats(),
            "unread_from": self.read_cursor,
            "sessions": sessions,
        }
