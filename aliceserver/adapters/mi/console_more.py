"""Where the console commands of the memory, target-information and refusal modules are
registered (find, dump/append/restore, info auxv/files/float, the TUI's and others gdb has
that cannot be served here), so the shared command tables take one line for all of them."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.adapters.mi import (
    console_auxv,
    console_demangle,
    console_dump,
    console_files,
    console_find,
    console_float,
    console_macro,
    console_pipe,
    console_program,
    console_queue_signal,
    console_targets,
    console_tui,
    exec_path,
)
from aliceserver.adapters.mi import console_printer_lists as printer_lists
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError
from aliceserver.errors import AliceError

# `info` subcommands, merged into console_info's table.
INFO: dict[str, Callable[[Context, str], None]] = {
    "auxv": console_auxv.info_auxv,
    "files": console_files.info_files,
    "target": console_files.info_files,
    "float": console_float.info_float,
    "pretty-printer": printer_lists.info_pretty_printer,
    "type-printers": printer_lists.info_type_printers,
    "frame-filter": printer_lists.info_frame_filter,
    "win": console_tui.info_win,
    "checkpoints": console_tui.info_checkpoints,
    "macro": console_macro.info_macro,
    "macros": console_macro.info_macros,
    "stack": lambda ctx, text: _run(ctx, "backtrace", text),
    "program": console_program.info_program,  # gdb's alias of backtrace
    "tasks": lambda ctx, text: _info_tasks(ctx),
    "static-tracepoint-markers": lambda ctx, text: _static_markers(ctx),
    "terminal": console_targets.info_terminal,
}


def _static_markers(ctx: Context) -> None:
    """No target here has static tracepoint markers (gdb lists the in-process agent's)."""
    if ctx.session.inferior.process is None:
        raise MiError("You can't do that when your target is `exec'")
    raise MiError("info static-tracepoint-markers is not supported by aliceserver.")


def _run(ctx: Context, command: str, text: str) -> None:
    found = ctx.session.cli_commands.lookup(command)
    assert found is not None
    found[1](ctx, text)


def _info_tasks(ctx: Context) -> None:
    """gdb's info tasks in a program without Ada's tasking runtime; with it, refused."""
    if ctx.session.inferior.process is None:
        raise MiError("Cannot inspect Ada tasks when program is not running")
    known = "system__tasking__debug__known_tasks"
    try:
        found = not ctx.session.evaluate(f"&{known}").error
    except AliceError:
        found = False
    if found:
        raise MiError("info tasks is not supported by aliceserver.")
    ctx.console("Your application does not use any Ada tasks.\n")


def register(registry: CliRegistry) -> None:
    console_find.register(registry)
    console_dump.register(registry)
    console_tui.register(registry)
    console_demangle.register(registry)
    console_queue_signal.register(registry)
    console_pipe.register(registry)
    console_macro.register(registry)
    console_targets.register(registry)
    exec_path.register(registry)
