"""Launch and attach on a stub of gdb's remote protocol (gdbserver, qemu -g...): the
`target` argument ("HOST:PORT", or cpptools' `miDebuggerServerAddress`).

- attach: `target remote` (with `pid`: extended-remote and vAttach); the program the stub
  holds is debugged where it stands.
- launch: extended-remote (cpptools' `useExtendedRemote` says otherwise); a program the stub
  holds already is debugged (cpptools' usage: gdbserver started it), else the stub runs
  `program` (vRun).
- disconnect with terminateDebuggee false: gdb's `disconnect`, the stub keeps the program.
"""

from __future__ import annotations

import logging
import queue
import time
from typing import TYPE_CHECKING

from aliceserver.adapters.dap.messages import Arguments, InvalidArguments
from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.eventsource import SubscriptionClosed
from aliceserver.debuggers.model import LaunchConfig
from aliceserver.debuggers.target import RemoteConnected, RemoteTargets
from aliceserver.errors import AliceError, TargetError, Unsupported

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

log = logging.getLogger(__name__)

_KEYS = ("target", "miDebuggerServerAddress")
_PAUSE_PATIENCE = 2.0  # seconds a running program has to stop before its stub lets it go


def remote_address(args: Arguments) -> str | None:
    """The stub's address the launch/attach names, if any."""
    for key in _KEYS:
        value = args.raw.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or not value.strip():
            raise InvalidArguments(f"'{key}' must be the address of a gdbserver (HOST:PORT)")
        return value.strip()
    return None


def _remote_debugger(session: DapSession, verb: str) -> RemoteTargets:
    debugger = session.debugger
    if not isinstance(debugger, RemoteTargets):
        raise Unsupported(f'{verb}: "target remote" is not supported by this debugger engine.')
    return debugger


def _extended(args: Arguments, default: bool) -> bool:
    return args.boolean("useExtendedRemote", default)


def launch(session: DapSession, args: Arguments, address: str, config: LaunchConfig | None) -> RemoteConnected:
    """Connect; run `config`'s program through the stub unless it holds one already."""
    debugger = _remote_debugger(session, "launch")
    extended = _extended(args, True)
    program = config.program if config is not None else None
    connected = _connect(session, debugger, address, extended, program)
    if connected.process is not None:
        return connected  # gdbserver started it (cpptools' launch with miDebuggerServerAddress)
    try:
        if config is None:
            raise InvalidArguments(f"launch: the stub at {address} debugs no process: give 'program' to run one")
        session.debugger.launch(config)  # vRun, held at its first instruction
    except AliceError as error:
        _let_go(session, debugger)
        if isinstance(error, InvalidArguments):
            raise
        raise TargetError(f"launch: the stub at {address} could not run {program}: {error}") from error
    return connected


def attach(session: DapSession, args: Arguments, address: str, pid: int | None) -> RemoteConnected:
    """Connect; debug what the stub holds (or, with `pid`, attach the stub to it)."""
    debugger = _remote_debugger(session, "attach")
    program = args.opt_string("program") or None
    connected = _connect(session, debugger, address, _extended(args, pid is not None), program)
    held = connected.process
    if held is not None and pid is not None and held.pid != pid:
        _let_go(session, debugger)
        raise TargetError(f"attach: the stub at {address} debugs process {held.pid}, not {pid}")
    if held is None and pid is None:
        _let_go(session, debugger)
        raise InvalidArguments(f"attach: the stub at {address} debugs no process: give 'pid' to attach "
                               "to one, or launch with 'program' to run one")  # fmt: skip
    if held is None and pid is not None:
        session.state.swallow_attach_stop = True  # vAttach's stop, as a local attach's
        try:
            session.debugger.attach(pid)
        except AliceError:
            session.state.swallow_attach_stop = False
            _let_go(session, debugger)
            raise
    return connected


def _connect(session: DapSession, debugger: RemoteTargets, address: str, extended: bool,
             program: str | None) -> RemoteConnected:  # fmt: skip
    """connect_remote, the session knowing first that its process is behind a stub (the
    `process` event it causes says so)."""
    session.state.behind_stub = True
    try:
        return debugger.connect_remote(address, extended=extended, program=program)
    except BaseException:
        session.state.behind_stub = False
        raise


def _let_go(session: DapSession, debugger: RemoteTargets) -> None:
    session.state.behind_stub = False
    try:
        debugger.disconnect_remote()
    except AliceError as error:
        log.info("disconnecting after a failed start: %s", error)


def is_remote(session: DapSession) -> bool:
    debugger = session.debugger
    return isinstance(debugger, RemoteTargets) and debugger.remote_connection() is not None


def end(session: DapSession, terminate: bool) -> None:
    """The client leaves: kill the program, or let the stub keep it (gdb's `disconnect`).
    A running program is paused first: a stub takes no other packet then."""
    debugger = session.debugger
    assert isinstance(debugger, RemoteTargets)
    if session.debugger.is_running():
        _pause(session)
    if terminate:
        session.debugger.kill()
    else:
        debugger.disconnect_remote()


def _pause(session: DapSession) -> None:
    events = session.debugger.subscribe()
    try:
        session.debugger.interrupt()
        deadline = time.monotonic() + _PAUSE_PATIENCE
        while True:
            event = events.get(timeout=max(deadline - time.monotonic(), 0.01))
            if isinstance(event, (Stopped, Exited)):
                return
    except (SubscriptionClosed, queue.Empty, AliceError) as error:
        log.info("the program did not stop before the session ended: %r", error)
    finally:
        events.close()
