"""`gcore [FILE]` and `generate-core-file [FILE]` in the console (and MI through
-interpreter-exec): a core of the stopped process, written by the engine, told in gdb 13's
words ("Saved corefile FILE", its warnings on the error stream before)."""

from __future__ import annotations

from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply


def _gcore(ctx: Context, text: str) -> Reply:
    # gdb takes the rest of the line as the file name, spaces and all; core.PID without one
    if ctx.session.inferior.process is None:  # before run the engine may hold a probe for symbols
        raise MiError("You can't do that without a process to debug.")
    written = ctx.session.debugger.write_core(text.strip() or None)
    for warning in written.warnings:
        ctx.log(f"warning: {warning}\n")
    ctx.console(f"Saved corefile {written.path}\n")
    return None


def register_console(registry: CliRegistry) -> None:
    registry.add("generate-core-file", _gcore, "gcore")
