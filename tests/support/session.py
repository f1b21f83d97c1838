"""Small conveniences for driving the engine in tests."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.model import LaunchConfig, ProcessInfo, StdioMode
from tests.support.events import EventLog


def launch(
    dbg: IDebugger,
    program: Path,
    args: Sequence[str] = (),
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    stop_on_entry: bool = False,
) -> ProcessInfo:
    """Launch `program` with its stdio on pipes; it is held stopped before its first instruction."""
    config = LaunchConfig(
        program=str(program),
        args=tuple(args),
        cwd=cwd,
        env=env,
        stdio=StdioMode.PIPES,
        stop_on_entry=stop_on_entry,
    )
    return dbg.launch(config)


def continue_to_stop(
    dbg: IDebugger, log: EventLog, reason: StopReason | None = None, timeout: float = 10.0
) -> Stopped:
    """Resume and return the next Stopped event (optionally checking its reason)."""
    dbg.resume()
    stop = log.wait_for(Stopped, timeout=timeout)
    if reason is not None:
        assert stop.reason == reason, (
            f"expected a {reason} stop, got {stop}; events:\n{log.describe()}"
        )
    return stop


def continue_to_exit(dbg: IDebugger, log: EventLog, timeout: float = 10.0) -> Exited:
    """Resume and return the Exited event; fails if the program stops on the way."""
    mark = log.mark()
    dbg.resume()
    exited = log.wait_for(Exited, timeout=timeout)
    stops = log.since(mark, Stopped)
    assert not stops, f"unexpected stops before exit: {stops}"
    return exited
