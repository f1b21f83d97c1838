"""What one DAP session remembers between requests: the client, the start-up handshake,
the target, and the last stop of each thread."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from aliceserver.adapters.dap.shapes import FrameSources
from aliceserver.adapters.dap.threadlist import ThreadList
from aliceserver.adapters.gdbcommands.selection import CommandMemory
from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import DynamicTypes, LaunchConfig, VariableInfo


@dataclass(slots=True)
class ClientInfo:
    """The parts of `initialize`'s arguments that change what we send."""

    client_id: str = ""
    adapter_id: str = ""
    lines_start_at1: bool = True
    columns_start_at1: bool = True
    run_in_terminal: bool = False
    progress: bool = False
    invalidated: bool = False
    memory_event: bool = False
    memory_references: bool = False

    @staticmethod
    def from_arguments(raw: dict[str, Any]) -> ClientInfo:
        def flag(key: str, default: bool = False) -> bool:
            value = raw.get(key, default)
            return value if isinstance(value, bool) else default

        def text(key: str) -> str:
            value = raw.get(key)
            return value if isinstance(value, str) else ""

        return ClientInfo(
            client_id=text("clientID"),
            adapter_id=text("adapterID"),
            lines_start_at1=flag("linesStartAt1", True),
            columns_start_at1=flag("columnsStartAt1", True),
            run_in_terminal=flag("supportsRunInTerminalRequest"),
            progress=flag("supportsProgressReporting"),
            invalidated=flag("supportsInvalidatedEvent"),
            memory_event=flag("supportsMemoryEvent"),
            memory_references=flag("supportsMemoryReferences"),
        )


class Target(enum.Enum):
    NONE = "none"
    LAUNCH = "launch"
    ATTACH = "attach"
    CORE = "core file"  # launch or attach with coreFile / coreDumpPath: read-only


@dataclass(slots=True)
class SessionState:
    client: ClientInfo = field(default_factory=ClientInfo)
    initialized: bool = False
    configuration_done: bool = False
    target: Target = Target.NONE
    launch_config: LaunchConfig | None = None  # for restart
    launch_arguments: dict[str, Any] = field(default_factory=dict)
    stop_on_entry: bool = False  # attach (or launch on a stub): report where it stands instead of resuming
    pausing: bool = False  # a pause request waits for its stop
    entry_thread: int | None = None  # on a stub: the thread of the stop found on connecting
    behind_stub: bool = False  # the process is a stub's (gdbserver...): not a local one
    # C++ pointers and references shown as their objects' dynamic types, as lldb-vscode
    # does; launch/attach `"dynamicTypes": false` turns it off (lldb-vscode has no such key).
    dynamic: DynamicTypes = DynamicTypes.POINTERS | DynamicTypes.MEMBERS
    started: bool = False  # launch/attach and configurationDone have both arrived
    swallow_attach_stop: bool = False  # the engine's Stopped(PAUSE) that ends an attach
    suppress_exit_of: int | None = None  # restart: the pid whose exit is not reported
    ended: bool = False  # exited/terminated sent, or the client disconnected
    quiet: bool = False  # disconnecting: send no more events
    expected_continues: int = 0  # Continued events our own requests caused (not reported)
    last_stop: dict[int, Stopped] = field(default_factory=dict)  # thread -> its last stop
    thread_list: ThreadList = field(default_factory=ThreadList)  # the last `threads` body
    frame_sources: FrameSources = field(default_factory=FrameSources)  # frames' Source objects
    return_value: dict[int, VariableInfo] = field(default_factory=dict)  # thread -> after finish
    progress_started: set[str] = field(default_factory=set)
    goto_targets: list[tuple[int, str | None]] = field(default_factory=list)  # (address, function)
    commands: CommandMemory = field(default_factory=CommandMemory)  # what the console's `x` remembers

    def line_out(self, line: int) -> int:
        return line if self.client.lines_start_at1 else line - 1

    def line_in(self, line: int) -> int:
        return line if self.client.lines_start_at1 else line + 1

    def column_out(self, column: int) -> int:
        return column if self.client.columns_start_at1 else max(0, column - 1)

    def forget_stop(self) -> None:
        self.last_stop.clear()
        self.return_value.clear()
