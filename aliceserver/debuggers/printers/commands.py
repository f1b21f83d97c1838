"""gdb's `python CODE`, `python` ... `end` and `source FILE.py`: the user's code run in the
session's gdb module, its output (print(), gdb.write) collected for the console, and an
exception reported as gdb reports it (the traceback, then the error)."""

from __future__ import annotations

import contextlib
import io
import os
import traceback
from dataclasses import dataclass
from typing import Any

from aliceserver.debuggers.printers import context

SCRIPT_ERROR = "Error while executing Python code."


@dataclass(frozen=True, slots=True)
class ScriptOutput:
    output: str  # what the code printed (print(), gdb.write to STDOUT)
    errors: str  # its stderr and the traceback of what it raised
    failed: bool  # it raised: `python` is an error then, `source FILE.py` only prints


class _Sink(io.TextIOBase):
    def __init__(self, parts: list[str]) -> None:
        self._parts = parts

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._parts.append(text)
        return len(text)


def run_user_code(call: context.Call, code: str, filename: str, scope: dict[str, Any]) -> ScriptOutput:
    """Run `code` (named `filename` in tracebacks) with `gdb` importable and this session
    current; sys.stdout and sys.stderr are captured meanwhile (never the protocol's)."""
    from aliceserver.debuggers.printers.loader import install_gdb_module

    install_gdb_module()
    from aliceserver.debuggers.printers import gdb

    scope.setdefault("gdb", gdb)  # gdb's `__main__` has `gdb` imported
    out: list[str] = []
    err: list[str] = []
    call.output = (out, err)
    failed = False
    try:
        with context.entered(call), contextlib.redirect_stdout(_Sink(out)), contextlib.redirect_stderr(_Sink(err)):
            try:
                compiled = compile(code, filename, "exec")
                exec(compiled, scope)  # noqa: S102 - the user's own code, as gdb runs it
            except SystemExit:
                pass
            except BaseException as exc:  # noqa: BLE001 - reported as gdb reports it
                failed = True
                err.append(_traceback(exc, filename))
    finally:
        call.output = None
    return ScriptOutput("".join(out), "".join(err), failed)


def _traceback(exc: BaseException, filename: str) -> str:
    """Python's own report, from the user's first frame on (none of this debugger's)."""
    package = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith(package)]
    first = next((i for i, f in enumerate(frames) if f.filename == filename), len(frames))
    lines = traceback.format_exception_only(type(exc), exc)
    if first < len(frames):
        kept = traceback.StackSummary.from_list(frames[first:])
        lines = ["Traceback (most recent call last):\n", *kept.format(), *lines]
    return "".join(lines)


