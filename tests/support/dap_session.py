"""The usual DAP startup sequence on a `DapClient` (initialize, launch, breakpoints,
configurationDone, first stop) as VS Code orders it, and the context managers that start
an adapter for a test and always close it."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.adapter_process import alice_argv
from tests.support.dap_client import DEFAULT_TIMEOUT, DapClient, Message, RequestFailed


@dataclass
class Session:
    """What `start_session` saw."""

    capabilities: dict[str, Any]
    launch: Message
    breakpoints: dict[str, list[dict[str, Any]]]  # source path -> setBreakpoints result
    function_breakpoints: list[dict[str, Any]]
    stop: Message | None  # the first stopped (or exited/terminated) event, if waited for

    @property
    def thread_id(self) -> int:
        assert self.stop is not None and self.stop.get("event") == "stopped", self.stop
        return int(self.stop["body"]["threadId"])


def launch_arguments(
    program: str | Path,
    *,
    args: Sequence[str] = (),
    cwd: str | Path | None = None,
    stop_on_entry: bool = False,
    **extra: Any,
) -> dict[str, Any]:
    """The launch arguments both adapters understand (VS Code adds the config's other keys)."""
    program = Path(program)
    arguments: dict[str, Any] = {
        "type": "alice",
        "request": "launch",
        "name": f"Launch {program.name}",
        "program": str(program),
        "args": list(args),
        "cwd": str(cwd or program.parent),
        "stopOnEntry": stop_on_entry,
    }
    arguments.update(extra)
    return arguments


def start_session(
    client: DapClient,
    program: str | Path,
    *,
    breakpoints: Mapping[str | Path, Sequence[int]] | None = None,
    function_breakpoints: Sequence[str] = (),
    launch: Mapping[str, Any] | None = None,
    initialize: Mapping[str, Any] | None = None,
    wait_stop: bool = True,
    timeout: float = DEFAULT_TIMEOUT,
) -> Session:
    """initialize -> launch -> initialized -> setBreakpoints... -> configurationDone -> stopped.

    The order VS Code uses: launch is sent right after the initialize response without
    waiting for its answer (adapters answer it before `initialized` or after
    configurationDone), configuration follows the `initialized` event.
    """
    init_args: dict[str, Any] = {
        "clientID": "alice-tests",
        "clientName": "aliceserver tests",
        "adapterID": "alice",
        "pathFormat": "path",
        "linesStartAt1": True,
        "columnsStartAt1": True,
        "supportsVariableType": True,
        "supportsVariablePaging": True,
        "locale": "en",
    }
    init_args.update(initialize or {})
    capabilities = client.call("initialize", init_args, timeout)
    launch_seq = client.send_request("launch", launch or launch_arguments(program))
    client.wait_event("initialized", timeout=timeout)
    results: dict[str, list[dict[str, Any]]] = {}
    for source, lines in (breakpoints or {}).items():
        path = str(source)
        body = client.call(
            "setBreakpoints",
            {
                "source": {"name": Path(path).name, "path": path},
                "breakpoints": [{"line": line} for line in lines],
                "lines": list(lines),
                "sourceModified": False,
            },
            timeout,
        )
        results[path] = list(body.get("breakpoints", []))
    functions: list[dict[str, Any]] = []
    if function_breakpoints or capabilities.get("supportsFunctionBreakpoints"):
        body = client.call(
            "setFunctionBreakpoints",
            {"breakpoints": [{"name": name} for name in function_breakpoints]},
            timeout,
        )
        functions = list(body.get("breakpoints", []))
    if capabilities.get("exceptionBreakpointFilters") is not None:
        client.call("setExceptionBreakpoints", {"filters": []}, timeout)
    since = client.mark()
    if capabilities.get("supportsConfigurationDoneRequest"):
        client.call("configurationDone", None, timeout)
    launched = client.response(launch_seq, timeout)
    if not launched.get("success"):
        raise RequestFailed(launched)
    stop = client.wait_stop_or_exit(since, timeout) if wait_stop else None
    return Session(capabilities, launched, results, functions, stop)


@contextlib.contextmanager
def spawned(argv: Sequence[str], check: bool = False, **options: Any) -> Iterator[DapClient]:
    """`DapClient.spawn` as a context manager that always closes; with `check`, a schema
    violation or sequence error seen during the session (its disconnect included) fails the
    block at its end."""
    client = DapClient.spawn(argv, **options)
    try:
        yield client
    finally:
        client.close()
    if check:
        client.assert_valid()


@contextlib.contextmanager
def alice_session(*extra: str, **options: Any) -> Iterator[DapClient]:
    """Our adapter over stdio, every message validated against the schema (when present)
    and checked at the end: the default for tests of our own adapter."""
    options.setdefault("validate", True)
    with spawned(alice_argv(*extra), check=True, **options) as client:
        yield client


def repl_at(program: Path, source: str | Path, line: int, commands: Sequence[str], log: Path) -> list[str]:
    """What our adapter's debug console answers to each command at the first stop at
    source:line, the program launched from this directory as `run_gdb` runs it (the
    adapter's stderr goes to `log`): the DAP counterpart of mi_console.console_at."""
    with spawned(alice_argv(), stderr=log) as client:
        session = start_session(client, program, breakpoints={str(source): [line]},
                                launch=launch_arguments(program, cwd=os.getcwd()))
        frame = client.stack_trace(session.thread_id, 0, 1)[0]
        return [client.call("evaluate", {"expression": command, "frameId": frame["id"], "context": "repl"})["result"]
                for command in commands]
