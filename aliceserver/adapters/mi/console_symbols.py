"""Console commands about symbols and the process: `info line`, `info address`, `info symbol`,
`info scope`, `info proc`, `rbreak` and `frame`'s subcommands, run by the shared gdb command
module."""

from __future__ import annotations

from contextlib import nullcontext
from functools import partial

from aliceserver.adapters.gdbcommands.frames import frame_level
from aliceserver.adapters.gdbcommands.lines import info_line
from aliceserver.adapters.gdbcommands.procinfo import info_proc
from aliceserver.adapters.gdbcommands.selection import LineBuffer
from aliceserver.adapters.gdbcommands.symbol_search import info_symbols, parse_info_symbols
from aliceserver.adapters.gdbcommands.symbols import (
    info_address,
    info_scope,
    info_symbol,
    rbreak_functions,
)
from aliceserver.adapters.mi.commands_symbols import shown_address
from aliceserver.adapters.mi.registry import Context, MiError, Reply
from aliceserver.debuggers.model import SymbolDomain
from aliceserver.debuggers.symbols.dwarf import inlinemap


def _lines(ctx: Context) -> LineBuffer:
    ctx.session.ensure_symbols()  # before `run`, as gdb after `file`
    return LineBuffer(ctx.console)


def info_line_command(ctx: Context, text: str) -> None:
    lines = _lines(ctx)
    try:
        info_line(ctx.session.debugger, ctx.session.console_selection(), ctx.session.command_memory, text, lines,
                  ctx.session.breakpoints.shown_address, partial(_annotate_line, ctx, lines))
    finally:
        lines.flush()


def _annotate_line(ctx: Context, lines: LineBuffer, path: str, line: int, start: int) -> None:
    """`info line`'s annotation under `set annotate 1` (annotations.py)."""
    from aliceserver.adapters.mi.annotations import source_annotation

    annotation = source_annotation(ctx.session, path, line, start)
    if annotation is not None:
        lines(annotation)
        ctx.session.command_memory.listed = (path, line)  # gdb's annotate_source_line sets the current line


def info_address_command(ctx: Context, text: str) -> None:
    lines = _lines(ctx)
    try:
        info_address(ctx.session.debugger, ctx.session.console_selection(), text, lines, ctx.session.breakpoints.shown_address)
    finally:
        lines.flush()


def info_symbol_command(ctx: Context, text: str) -> None:
    lines = _lines(ctx)
    try:
        info_symbol(ctx.session.debugger, ctx.session.console_selection(), text, lines,
                    started=ctx.session.inferior.process is not None or ctx.session.inferior.ran)
    finally:
        lines.flush()


def info_scope_command(ctx: Context, text: str) -> None:
    lines = _lines(ctx)
    try:
        info_scope(ctx.session.debugger, text, lines, ctx.session.breakpoints.shown_address,
                   ctx.session.breakpoints.normalize)
    finally:
        lines.flush()


def info_proc_command(ctx: Context, text: str) -> None:
    process = ctx.session.inferior.process
    lines = _lines(ctx)
    try:
        info_proc(process.pid if process is not None else None, text, lines)
    finally:
        lines.flush()


_RBREAK_BATCH = 100  # breakpoints set per batch: each batch well under a second


def rbreak(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.console import break_at  # console registers this module's commands

    session = ctx.session
    session.ensure_symbols()
    # Each breakpoint asks the engine 4 things: in batches (IDebugger.batch), not handed
    # over one by one, unless the program runs (then a batch could wait for it). The list
    # is one call, made as a batch too: on any CPU (affinity.run_unpinned).
    together = session.inferior.process is None or not session.inferior.running
    # before the program ran gdb has read its symbols alone (ours: the symbol probe's too)
    program_only = session.inferior.process is None and not session.inferior.ran
    find = partial(rbreak_functions, session.debugger, text, program_only)
    functions = session.debugger.batch(find) if together else find()

    many = len(functions) >= inlinemap.MANY

    def some(first: int) -> None:
        # many names: their inlined copies are found by one walk, not a search each
        with inlinemap.many_names() if many else nullcontext():
            for function in functions[first : first + _RBREAK_BATCH]:
                break_at(ctx, function.name)
                ctx.console(function.declaration + "\n")

    for first in range(0, len(functions), _RBREAK_BATCH):
        if together:
            session.debugger.batch(partial(some, first))
        else:
            some(first)
    return None


def selected_frame_level(ctx: Context, text: str) -> int:
    """The level `frame TEXT` selects (gdb's `level N`, `function NAME`, `address ADDR`)."""
    session = ctx.session
    inferior = session.inferior
    if text and (inferior.process is None or inferior.running):
        word = text.split()[0]
        if word not in ("level", "function", "address", "view") and not word.isdigit():
            session.ensure_symbols()
            info = session.debugger.evaluate(text)  # gdb reads the level first: its errors
            if info.error:
                raise MiError(info.value)
        raise MiError("No registers.")  # as gdb: a level needs the registers of frame 0
    tid = session.require_stopped("No stack.")
    return frame_level(session.debugger, tid, inferior.selected_level, text)


def _info_symbols(ctx: Context, domain: SymbolDomain, text: str) -> None:
    session = ctx.session
    # before the program ran gdb has read its symbols alone; after a run it keeps the libraries'
    program_only = session.inferior.process is None and not session.inferior.ran
    query, quiet = parse_info_symbols(domain, text, program_only=program_only)
    lines = _lines(ctx)
    try:
        info_symbols(session.debugger, query, quiet, lines, shown_address(session))
    finally:
        lines.flush()


def info_functions_command(ctx: Context, text: str) -> None:
    _info_symbols(ctx, SymbolDomain.FUNCTIONS, text)


def info_variables_command(ctx: Context, text: str) -> None:
    _info_symbols(ctx, SymbolDomain.VARIABLES, text)


def info_types_command(ctx: Context, text: str) -> None:
    _info_symbols(ctx, SymbolDomain.TYPES, text)
