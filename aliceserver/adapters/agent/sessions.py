"""Several debug sessions at once, each named by a readable id (`prog-1`, `prog-2`...)."""

from __future__ import annotations

import logging
import os
import re
import threading
from collections.abc import Callable

from aliceserver.adapters.agent.errors import ErrorCode, ToolError, classify
from aliceserver.adapters.agent.session import DebugSession, EventObserver
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import LaunchConfig
from aliceserver.debuggers.target import CoreTargets, RemoteTargets
from aliceserver.errors import AliceError

log = logging.getLogger(__name__)

DebuggerFactory = Callable[[], IDebugger]
_UNSAFE = re.compile(r"[^A-Za-z0-9_.]+")


def _base_name(program: str) -> str:
    name = os.path.basename(program.rstrip("/")) or "prog"
    name = os.path.splitext(name)[0] if "." in name[1:] else name
    return _UNSAFE.sub("_", name)[:24] or "prog"


class SessionManager:
    """Creates, finds and ends sessions; every debugger comes from `factory`."""

    def __init__(self, factory: DebuggerFactory, observer: EventObserver | None = None) -> None:
        self.factory = factory
        self.observer = observer  # sees every session's events (the CLI daemon buffers them)
        self._sessions: dict[str, DebugSession] = {}
        self._counters: dict[str, int] = {}
        self._lock = threading.Lock()

    def _new_id(self, program: str) -> str:
        base = _base_name(program)
        with self._lock:
            number = self._counters.get(base, 0) + 1
            self._counters[base] = number
        return f"{base}-{number}"

    def _add(self, session: DebugSession) -> DebugSession:
        with self._lock:
            self._sessions[session.id] = session
        return session

    def launch(self, config: LaunchConfig, ident: str | None = None) -> DebugSession:
        """A new session running `config` (named `ident`, for a restart that keeps the name)."""
        debugger = self.factory()
        events = debugger.subscribe()  # before the launch: its events are the session's
        try:
            process = debugger.launch(config)
        except AliceError as error:
            debugger.close()
            failure = classify(error, ErrorCode.LAUNCH_FAILED)
            if failure.code is not ErrorCode.LAUNCH_FAILED:
                failure = ToolError(ErrorCode.LAUNCH_FAILED, failure.message)
            failure.hint = "check the program path (absolute, or relative to cwd) and that it is executable"
            raise failure from error
        except BaseException:
            debugger.close()
            raise
        session = DebugSession(ident or self._new_id(config.program), debugger, process, events, self.observer)
        session.launch_config = config
        session.project_root = config.cwd or os.getcwd()
        return self._add(session)

    def attach(self, pid: int) -> DebugSession:
        debugger = self.factory()
        events = debugger.subscribe()  # before the attach: its Stopped(PAUSE) is the session's
        try:
            process = debugger.attach(pid)
        except AliceError as error:
            debugger.close()
            raise ToolError(
                ErrorCode.ATTACH_FAILED,
                str(error),
                "check the pid (it must be your own process, or you root) and "
                "/proc/sys/kernel/yama/ptrace_scope",
            ) from error
        except BaseException:
            debugger.close()
            raise
        session = DebugSession(self._new_id(process.program), debugger, process, events, self.observer)
        session.project_root = os.getcwd()
        return self._add(session)

    def open_core(self, core: str, program: str | None) -> DebugSession:
        """A new session on a core file (of `program`, else of the executable it names),
        stopped where the program died."""
        debugger = self.factory()
        events = debugger.subscribe()  # before opening: its threads and libraries are the session's
        try:
            if not isinstance(debugger, CoreTargets):
                raise ToolError(ErrorCode.UNSUPPORTED, "this debugger engine cannot open core files")
            opened = debugger.open_core(core, program)
        except AliceError as error:
            debugger.close()
            failure = error if isinstance(error, ToolError) else ToolError(ErrorCode.TARGET_ERROR, str(error))
            failure.hint = failure.hint or "give the program the core is of (program=PATH) when it moved"
            raise failure from error
        except BaseException:
            debugger.close()
            raise
        session = DebugSession(self._new_id(opened.process.program), debugger, opened.process, events, self.observer)
        session.core_opened(core, opened)
        session.project_root = os.getcwd()
        return self._add(session)

    def connect_remote(self, target: str, *, extended: bool, program: str | None) -> DebugSession:
        """A new session on the program a stub debugs (gdb's target remote), or, on an
        extended-remote stub that debugs nothing yet, on `program` the stub starts (vRun)."""
        debugger = self.factory()
        events = debugger.subscribe()  # before connecting: its threads and libraries are the session's
        try:
            if not isinstance(debugger, RemoteTargets):
                raise ToolError(ErrorCode.UNSUPPORTED, '"target remote" is not supported by this debugger engine.')
            connected = debugger.connect_remote(target, extended=extended, program=program)
            process = connected.process
            if process is None:
                if program is None:
                    raise ToolError(ErrorCode.NO_PROCESS, f"the stub at {target} debugs no process",
                                    "give program=PATH: the stub runs it")  # fmt: skip
                process = debugger.launch(LaunchConfig(program=program))  # held at its first instruction
        except AliceError as error:
            debugger.close()
            failure = error if isinstance(error, ToolError) else ToolError(ErrorCode.TARGET_ERROR, str(error))
            failure.hint = failure.hint or ("check the address (HOST:PORT) and that the stub listens there "
                                            "(gdbserver HOST:PORT PROGRAM, or gdbserver --multi HOST:PORT)")  # fmt: skip
            raise failure from error
        except BaseException:
            debugger.close()
            raise
        session = DebugSession(self._new_id(process.program), debugger, process, events, self.observer)
        session.remote_connected(target, connected.stop)
        session.project_root = os.getcwd()
        return self._add(session)

    def get(self, ident: str | None) -> DebugSession:
        """The named session; with no name, the only one there is."""
        with self._lock:
            sessions = dict(self._sessions)
        if ident:
            if ident in sessions:
                return sessions[ident]
            known = ", ".join(sessions) or "none"
            raise ToolError(
                ErrorCode.NO_SESSION,
                f"no session {ident!r} (sessions: {known})",
                "debug_sessions lists the sessions; debug_launch or debug_attach starts one",
            )
        if not sessions:
            raise ToolError(
                ErrorCode.NO_SESSION,
                "no debug session",
                "start one with debug_launch (program) or debug_attach (pid)",
            )
        if len(sessions) > 1:
            raise ToolError(
                ErrorCode.AMBIGUOUS_SESSION,
                f"several sessions ({', '.join(sessions)}): name one",
                "pass session=ID",
            )
        return next(iter(sessions.values()))

    def all(self) -> list[DebugSession]:
        with self._lock:
            return list(self._sessions.values())

    def remove(self, session: DebugSession, detach: bool | None = None) -> None:
        with self._lock:
            self._sessions.pop(session.id, None)
        session.close(detach)

    def close_all(self) -> None:
        """End every session (at server shutdown): launched programs die, attached ones run on."""
        for session in self.all():
            try:
                self.remove(session)
            except Exception:
                log.exception("closing session %s", session.id)
