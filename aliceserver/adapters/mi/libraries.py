"""gdb's shared library list: console `info sharedlibrary [REGEX]` and MI
`-file-list-shared-libraries [REGEX]`, each library's range being its `.text` section
(gdb's solib addr_low/addr_high), as `=library-loaded` gives it too; and the console's
`nosharedlibrary` and `sharedlibrary [REGEX]`, which drop and read again the libraries'
symbols while the program keeps them mapped."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.frames import hex16
from aliceserver.adapters.mi.output import Value
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, MiRegistry, Reply
from aliceserver.debuggers.model import CodeLocation, Module
from aliceserver.debuggers.symbols.posix_regex import RegexError, compile_basic

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

MISSING_DEBUG_INFO = "(*): Shared library is missing debugging information.\n"


def text_range(module: Module) -> tuple[int, int]:
    """The addresses gdb shows for a library: its .text, else (no such section) its mapping."""
    return module.text if module.text is not None else (module.low, module.high)


def ranges(module: Module) -> list[Value]:
    low, high = text_range(module)
    return [{"from": hex16(low), "to": hex16(high)}]


def range_field(module: Module) -> list[tuple[str, Value]]:
    """MI's `ranges` of a library: an empty one for one whose file was found nowhere (gdb
    knows no addresses of it)."""
    return [("ranges", ranges(module) if module.high else [{}])]


def _matching(ctx: Context, pattern: str | None) -> list[Module]:
    libraries = ctx.session.inferior.libraries
    if pattern is None:
        return list(libraries)
    try:
        found = re.compile(pattern)
    except re.error as error:
        raise MiError(f"Invalid regexp: {error}") from None
    return [module for module in libraries if found.search(module.path)]


def library_names(module: Module) -> list[tuple[str, Value]]:
    """gdb's id, target-name and host-name of a library: the target's name for it, and the
    file read for it (another where `set sysroot` says so)."""
    target = module.target_name or module.path
    return [("id", target), ("target-name", target), ("host-name", module.path)]


def relist(ctx: Context) -> None:
    """gdb's update_solib_list after `nosharedlibrary`: the libraries, still mapped, are
    announced again (their symbols not read)."""
    inferior = ctx.session.inferior
    if not inferior.libraries_forgotten or inferior.process is None:
        return
    inferior.libraries_forgotten = False
    for module in inferior.libraries:
        ctx.session.notify("library-loaded", [
            *library_names(module), ("symbols-loaded", "0"),
            ("thread-group", f"i{inferior.number}"), *range_field(module),
        ])  # fmt: skip


def info_sharedlibrary(ctx: Context, text: str) -> None:
    pattern = text.strip() or None
    shown = _matching(ctx, pattern)
    relist(ctx)
    if not shown:
        ctx.console("No shared libraries matched.\n" if pattern else "No shared libraries loaded at this time.\n")
        return
    ctx.console("From                To                  Syms Read   Shared Object Library\n")
    missing = False
    for module in shown:
        low, high = text_range(module)
        debugger = ctx.session.debugger
        read = debugger.symbols_loaded(module.path)
        debug = not read or debugger.has_debug_info(module.path)
        missing = missing or not debug
        shown_read = "No" if not read else "Yes" if debug else "Yes (*)"
        where = f"{hex16(low)}  {hex16(high)}" if module.high else " " * 38  # no file: no addresses
        ctx.console(f"{where}  {shown_read:<11} {module.path}\n")
    if missing:
        ctx.console(MISSING_DEBUG_INFO)


def _file_list_shared_libraries(ctx: Context, args: list[str]) -> Reply:
    if len(args) > 1:
        raise MiError("Usage: -file-list-shared-libraries [REGEXP]")
    relist(ctx)
    libraries: list[Value] = [
        {**dict(library_names(module)),
         "symbols-loaded": "1" if ctx.session.debugger.symbols_loaded(module.path) else "0",
         "thread-group": "i1", **dict(range_field(module))}
        for module in _matching(ctx, args[0] if args else None)
    ]  # fmt: skip
    return [("shared-libraries", libraries)]


def _nosharedlibrary(ctx: Context, text: str) -> None:
    """gdb's no_shared_libraries: every library's symbols go, with =library-unloaded for
    each (the program keeps them mapped: `info sharedlibrary` still lists them, Syms Read
    No). Before `run` there is nothing to drop."""
    session = ctx.session
    if session.inferior.process is None:
        return
    dropped = session.debugger.unload_library_symbols()
    for module in session.inferior.libraries:
        session.notify("library-unloaded", [*library_names(module), ("thread-group", f"i{session.inferior.number}")])
    # gdb lists them again as the loader's list has them (the loader itself last)
    order = {module.path: index for index, module in enumerate(dropped)}
    session.inferior.libraries.sort(key=lambda module: order.get(module.path, len(order)))
    session.breakpoints.refresh()  # pending again, silently as in gdb
    session.inferior.libraries_forgotten = True


def forget_detached(session: MiSession, loaded: list[Module]) -> None:
    """After the console's detach and -target-detach (not quit's), gdb's detach_command
    runs no_shared_libraries: =library-unloaded for each library, in its list's order, and
    their symbols gone (none kept for the symbol view, unlike after an exit)."""
    for module in loaded:
        session.notify("library-unloaded", [*library_names(module), ("thread-group", f"i{session.inferior.number}")])
    session.inferior.kept_libraries = ()
    _forget_places(session, [(module.low, module.high) for module in loaded if not module.is_main])
    session.frames.forget_visited_in({module.path for module in loaded if not module.is_main})


def _forget_places(session: MiSession, spans: list[tuple[int, int]]) -> None:
    """gdb's clear_solib: disable_breakpoints_in_shlibs marks a breakpoint's or tracepoint's
    places in those libraries (<PENDING>, its spec, silently); a dprintf's stay, their
    objfile's symbols gone (its address alone)."""
    # Here, not at the top: breakpoint_record's imports lead back to notify.py, which
    # imports this module (a cycle that broke importing commands_stack first).
    from aliceserver.adapters.mi.breakpoint_record import BREAKPOINT, TRACEPOINT

    for bp in session.breakpoints.entries.values():
        gone = frozenset(place.address for place in bp.places if any(low <= place.address < high for low, high in spans))
        if not gone or bp.catch is not None or bp.is_watch:
            continue
        if bp.gdb_type in (BREAKPOINT, TRACEPOINT):
            bp.shlib_disabled = gone
        else:
            bp.places = tuple(CodeLocation(p.address, None, None, None) if p.address in gone else p for p in bp.places)


def _sharedlibrary(ctx: Context, text: str) -> None:
    """gdb's solib_add: read the symbols of the listed libraries matching REGEX (all
    without one) whose symbols `nosharedlibrary` dropped; the chatter only for a person."""
    pattern = text.strip() or None
    try:
        matcher = compile_basic(pattern) if pattern is not None else None
    except RegexError as error:
        raise MiError(f"Invalid regexp: {error}") from None
    session = ctx.session
    relist(ctx)
    libraries = session.inferior.libraries if session.inferior.process is not None else []
    matching = [module for module in libraries if matcher is None or matcher.search(module.path)]
    for module in matching:
        if session.debugger.symbols_loaded(module.path):
            if pattern is not None and ctx.from_tty:
                ctx.console(f"Symbols already loaded for {module.path}\n")
            continue
        for read in session.debugger.load_library_symbols([module.path]):
            if not ctx.from_tty:
                continue
            ctx.console(f"Reading symbols from {read.module.path}...\n")
            if read.debug_file is not None:
                ctx.console(f"Reading symbols from {read.debug_file}...\n")
            if not read.has_debug_info:
                ctx.console(f"(No debugging symbols found in {read.module.path})\n")
    for bp in session.breakpoints.refresh():
        session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(bp))])
    if pattern is not None and ctx.from_tty and not matching:
        ctx.console(f"No loaded shared libraries match the pattern `{pattern}'.\n")


def register_console(registry: CliRegistry) -> None:
    registry.add("nosharedlibrary", _nosharedlibrary)
    registry.add("sharedlibrary", _sharedlibrary)


def register(registry: MiRegistry) -> None:
    registry.add("file-list-shared-libraries", _file_list_shared_libraries)
