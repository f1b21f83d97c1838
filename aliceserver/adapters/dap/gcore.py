"""`aliceserver/gcore`: a custom request that saves a core file of the stopped program, as
gdb's `gcore` (neither cpptools nor lldb-vscode has a request for it; their users type the
debugger's command in the debug console, which works here too: `gcore FILE`).

    arguments: {"path"?: string}   the file (`~` expanded); default core.PID in the
                                   adapter's working directory
    body: {"path": string, "size": number, "warnings": [string]}
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.dap.messages import Arguments, JsonObject

if TYPE_CHECKING:
    from aliceserver.adapters.dap.registry import Registry
    from aliceserver.adapters.dap.session import DapSession

GCORE = "aliceserver/gcore"


def gcore(session: DapSession, args: Arguments) -> JsonObject:
    # refused in gdb's words by the engine: no process (a core file is none), or running
    written = session.debugger.write_core(args.opt_string("path") or None)
    return {"path": written.path, "size": written.size, "warnings": list(written.warnings)}


def register(registry: Registry) -> None:
    registry.add(GCORE, gcore)
