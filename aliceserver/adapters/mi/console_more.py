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
    console_queue_signal,
    console_tui,
)
from aliceserver.adapters.mi import console_printer_lists as printer_lists
from aliceserver.adapters.mi.registry import CliRegistry, Context

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
}


def register(registry: CliRegistry) -> None:
    console_find.register(registry)
    console_dump.register(registry)
    console_tui.register(registry)
    console_demangle.register(registry)
    console_queue_signal.register(registry)
    console_pipe.register(registry)
    console_macro.register(registry)
