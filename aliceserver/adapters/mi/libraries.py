"""gdb's shared library list: console `info sharedlibrary [REGEX]` and MI
`-file-list-shared-libraries [REGEX]`, each library's range being its `.text` section
(gdb's solib addr_low/addr_high), as `=library-loaded` gives it too."""

from __future__ import annotations

import re

from aliceserver.adapters.mi.frames import hex16
from aliceserver.adapters.mi.output import Value
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.debuggers.model import Module

MISSING_DEBUG_INFO = "(*): Shared library is missing debugging information.\n"


def text_range(module: Module) -> tuple[int, int]:
    """The addresses gdb shows for a library: its .text, else (no such section) its mapping."""
    return module.text if module.text is not None else (module.low, module.high)


def ranges(module: Module) -> list[Value]:
    low, high = text_range(module)
    return [{"from": hex16(low), "to": hex16(high)}]


def _matching(ctx: Context, pattern: str | None) -> list[Module]:
    libraries = ctx.session.inferior.libraries
    if pattern is None:
        return list(libraries)
    try:
        found = re.compile(pattern)
    except re.error as error:
        raise MiError(f"Invalid regexp: {error}") from None
    return [module for module in libraries if found.search(module.path)]


def info_sharedlibrary(ctx: Context, text: str) -> None:
    pattern = text.strip() or None
    shown = _matching(ctx, pattern)
    if not shown:
        ctx.console("No shared libraries matched.\n" if pattern else "No shared libraries loaded at this time.\n")
        return
    ctx.console("From                To                  Syms Read   Shared Object Library\n")
    missing = False
    for module in shown:
        low, high = text_range(module)
        debug = ctx.session.debugger.has_debug_info(module.path)
        missing = missing or not debug
        ctx.console(f"{hex16(low)}  {hex16(high)}  {'Yes' if debug else 'Yes (*)':<11} {module.path}\n")
    if missing:
        ctx.console(MISSING_DEBUG_INFO)


def _file_list_shared_libraries(ctx: Context, args: list[str]) -> Reply:
    if len(args) > 1:
        raise MiError("Usage: -file-list-shared-libraries [REGEXP]")
    libraries: list[Value] = [
        {"id": module.path, "target-name": module.path, "host-name": module.path, "symbols-loaded": "1",
         "thread-group": "i1", "ranges": ranges(module)}
        for module in _matching(ctx, args[0] if args else None)
    ]  # fmt: skip
    return [("shared-libraries", libraries)]


def register(registry: MiRegistry) -> None:
    registry.add("file-list-shared-libraries", _file_list_shared_libraries)
