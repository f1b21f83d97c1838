"""source_diff's scenarios over gdb's remote serial protocol: each side debugs the program
through a gdbserver of its own (started by tests/support/gdbserver.py in the same small
environment), gdb with `target remote` and the engine through its RemoteTargets capability,
and the same records are compared (`python -m conformance.source_diff --remote`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conformance.source_diff import Scenario, StopRecord, engine_stops, gdb_stops
from tests.support.gdbserver import gdbserver


def remote_stops(
    scenario: Scenario, program: Path, spec: str, env: dict[str, str], engine: Any | None
) -> tuple[list[StopRecord], list[StopRecord]]:
    """(gdb's, the engine's) stops of `scenario`, each over a fresh gdbserver."""
    with gdbserver(program, scenario.args, env=env) as server:
        gdb = gdb_stops(scenario, program, spec, env, target=server.address)
    if engine is None:
        from aliceserver.debuggers.ptrace.engine import PtraceDebugger

        dbg: Any = PtraceDebugger()
    else:
        dbg = engine
    try:
        with gdbserver(program, scenario.args, env=env) as server:
            address = server.address

            def connect(debugger: Any) -> object:
                # gdb_stops' `set sysroot /`: both sides read this machine's libraries (under
                # the default `target:` gdb 13 auto-loads no script for a library it reads
                # through the stub, so neither side would run libstdc++'s printers).
                debugger.set_library_paths(sysroot="/")
                return debugger.connect_remote(address, program=str(program))

            ours = engine_stops(scenario, program, spec, env, dbg, start=connect)
            if dbg.process is not None:
                dbg.kill()  # the stub's program ends with the scenario, as gdb's does
    finally:
        if engine is None:
            dbg.close()
    return gdb, ours
