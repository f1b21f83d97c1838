"""All MI commands, registered into a session's registry."""

from __future__ import annotations

from aliceserver.adapters.mi import (
    ada,
    breakpoint_commands,
    catch_stops,
    commands_break,
    commands_data,
    commands_exec,
    commands_misc,
    commands_sources,
    commands_stack,
    commands_symbols,
    commands_var,
    core_commands,
    dprintf,
    inferior_removal,
    info_os,
    libraries,
    target_files,
    tracepoints,
)
from aliceserver.adapters.mi.registry import MiRegistry


def register_all(registry: MiRegistry) -> None:
    for module in (commands_exec, commands_break, commands_stack, commands_data, commands_var, commands_misc,
                   catch_stops, dprintf, breakpoint_commands, libraries, commands_symbols, tracepoints,
                   commands_sources, core_commands):
        module.register(registry)
    for module in (ada, inferior_removal, info_os, target_files):  # gdb 13 commands we lacked
        module.register(registry)
