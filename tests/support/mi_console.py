"""gdb console commands run through aliceserver's MI front end at a breakpoint, their
printed text collected per command: the same list can go to `run_gdb` and be compared."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Sequence

from tests.support.mi_client import MiClient
from tests.support.mi_grammar import parse_record


def mi_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def console_at(
    program: Path, location: str, commands: Sequence[str], env: Mapping[str, str],
    core: Path | None = None, options: Sequence[str] = (),
) -> list[str]:
    """What each console command prints (or its error message) at the first stop at
    `location`, the program run with `env` (gdb_env() gives it gdb's stack addresses).
    With `core`: over a core of that stop (gcore, kill, core-file), the core backend's view.
    `options`: the server's command-line options before the program (`-iex ...`)."""
    client = MiClient(["-i=mi", "-q", *options, str(program)], env=dict(env))
    try:
        client.prompt()
        # MiClient gives the server a PYTHONPATH; the program must not inherit it, nor the
        # LINES and COLUMNS gdb's front end adds, which run_gdb's gdb unsets too.
        for name in ("PYTHONPATH", "LINES", "COLUMNS"):
            client.ok(f'-interpreter-exec console "unset environment {name}"')
        client.ok(f"-break-insert {location}")
        client.ok("-exec-run")
        client.stopped()
        if core is not None:
            for command in (f"gcore {core}", "kill", f"core-file {core}"):
                client.ok(f"-interpreter-exec console {mi_quote(command)}")
        outputs = []
        for command in commands:
            record, seen = client.command(f"-interpreter-exec console {mi_quote(command)}")
            text = "".join(parse_record(line).text for line in seen if line.startswith("~"))
            if record.cls == "error":
                message = record.results["msg"]
                assert isinstance(message, str)
                text += message
            outputs.append(text.rstrip("\n"))
        return outputs
    finally:
        client.close()
