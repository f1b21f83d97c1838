"""The process targets an inferior is on, as gdb 13 names them: the Connection column of
`info inferiors` and `info connections` (target-connection.c). One engine holds one
target at a time, so there is one connection, numbered 1: native for a process the
engine runs, core for a core file, `remote`/`extended-remote` and the address given for
a stub (which an extended-remote inferior keeps with no process yet)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.adapters.mi.state import Inferior
from aliceserver.debuggers.target import RemoteTargets

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

NUMBER = 1  # the one connection's number


@dataclass(frozen=True, slots=True)
class Connection:
    shortname: str  # native, core, remote, extended-remote
    address: str | None  # gdb's connection_string: what `target remote` was given

    @property
    def what(self) -> str:
        """gdb's make_target_connection_string."""
        return self.shortname if self.address is None else f"{self.shortname} {self.address}"

    @property
    def description(self) -> str:
        """gdb's longname of the target."""
        return _LONG_NAMES[self.shortname]


_LONG_NAMES = {"native": "Native process", "core": "Local core dump file",
               "remote": "Remote target using gdb-specific protocol",
               "extended-remote": "Extended remote target using gdb-specific protocol"}  # fmt: skip


def remote(session: MiSession) -> Connection | None:
    """The stub the engine is connected to, if any."""
    debugger = session.debugger
    held = debugger.remote_connection() if isinstance(debugger, RemoteTargets) else None
    if held is None:
        return None
    return Connection("extended-remote" if held.extended else "remote", held.target)


def of_inferior(session: MiSession, inferior: Inferior) -> Connection | None:
    """The target `inferior` is on: the stub's for the engine's inferior while connected,
    its process's otherwise (None: no process, no connection)."""
    from aliceserver.adapters.mi.inferior_list import engine_inferior

    held = remote(session)
    if held is not None and inferior is engine_inferior(session):
        return held
    if inferior.process is not None:
        return Connection("core" if inferior.core is not None else "native", None)
    return None


def field(connection: Connection | None) -> str:
    """gdb's uiout_field_connection: `1 (remote 127.0.0.1:1234)`."""
    return "" if connection is None else f"{NUMBER} ({connection.what})"


def info_connections(ctx: Context, text: str) -> None:
    """`info connections [N...]`: the connection of every inferior, once."""
    words = text.split()
    if any(not word.isdigit() for word in words):
        raise MiError("Arguments must be numbers or '$' variables.")
    session = ctx.session
    found = [of_inferior(session, inferior) for inferior in session.inferiors]
    seen = [c for i, c in enumerate(found) if c is not None and c not in found[:i]]
    current = of_inferior(session, session.inferior)
    if not seen or (words and NUMBER not in {int(word) for word in words}):
        ctx.console("No connections.\n")
        return
    width = max(len(connection.what) for connection in seen) + 1  # a blank more (gdb)
    lines = [f"  Num  {'What':<{width}} {'Description':<17} \n"]
    for connection in seen:
        mark = "*" if connection == current else " "
        lines.append(f"{mark} {NUMBER:<4} {connection.what:<{width}} {connection.description:<17} \n")
    ctx.console("".join(lines))
