"""The console's `info` command and its subcommands that are not elsewhere: breakpoints,
locals and args, frame, threads."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from aliceserver.adapters.gdbcommands.lines import set_next_address
from aliceserver.adapters.mi import (
    auto_load,
    bpnumbers,
    console_more,
    info_os,
    show_lists,
    trace_variables,
)
from aliceserver.adapters.mi.breakpoint_commands import shown_commands
from aliceserver.adapters.mi.breakpoints import TRACEPOINT, MiBreakpoint
from aliceserver.adapters.mi.catchpoints import info_extra as catch_extra
from aliceserver.adapters.mi.commands_sources import info_sources_command
from aliceserver.adapters.mi.commands_stack import target_id
from aliceserver.adapters.mi.connections import info_connections
from aliceserver.adapters.mi.console_disasm import disassemble_command
from aliceserver.adapters.mi.console_print import laid_out
from aliceserver.adapters.mi.console_probes import info_probes
from aliceserver.adapters.mi.console_signals import handle, info_signals
from aliceserver.adapters.mi.console_symbols import (
    info_address_command,
    info_functions_command,
    info_line_command,
    info_proc_command,
    info_scope_command,
    info_symbol_command,
    info_types_command,
    info_variables_command,
)
from aliceserver.adapters.mi.console_vtbl import info_vtbl
from aliceserver.adapters.mi.frames import (
    frame_arg_value,
    hex16,
    printer_errors,
    real_frame_inside,
)
from aliceserver.adapters.mi.inferior_list import as_current, engine_inferior, info_inferiors
from aliceserver.adapters.mi.inferiors import thread_filter, thread_label
from aliceserver.adapters.mi.libraries import info_sharedlibrary
from aliceserver.adapters.mi.libraries import register_console as register_libraries
from aliceserver.adapters.mi.register_info import info_registers, info_vector
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply, ambiguous_names
from aliceserver.adapters.mi.sigframes import info_frame_tail
from aliceserver.adapters.mi.skips import info_skip
from aliceserver.adapters.mi.state import Inferior
from aliceserver.adapters.mi.thread_names import named
from aliceserver.debuggers.arch.program import program_architecture
from aliceserver.debuggers.model import FrameDetails, StackFrame, VariableScope
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

_RANGE = compiled_later(r"(\d+)(?:-(\d*))?")


def _listed(ctx: Context, text: str) -> set[int]:
    """The numbers `info breakpoints LIST` names: numbers, ranges and `$` values, with
    gdb's number_or_range_parser errors."""
    numbers: set[int] = set()
    for word in bpnumbers.resolved(ctx, text.split()):
        match = _RANGE().fullmatch(word)
        if match is None or int(match.group(1)) == 0:
            raise MiError("Arguments must be numbers or '$' variables.")
        first, last = int(match.group(1)), match.group(2)
        if last is not None and (not last or int(last) < first):
            raise MiError("inverted range")
        numbers.update(range(first, int(last or first) + 1))
    return numbers


def _info_watchpoints(ctx: Context, text: str) -> None:
    _info_breakpoints(ctx, text, watchpoints_only=True)


def _info_tracepoints(ctx: Context, text: str) -> None:
    info_breakpoints(ctx, text, tracepoints_only=True)


def _info_breakpoints(ctx: Context, text: str, *, watchpoints_only: bool = False) -> None:
    info_breakpoints(ctx, text, watchpoints_only=watchpoints_only)


def info_breakpoints(ctx: Context, text: str, *, watchpoints_only: bool = False, tracepoints_only: bool = False,
                     notes: Callable[[MiBreakpoint], list[str]] | None = None) -> None:  # fmt: skip
    """gdb's breakpoint_1: the rows LIST names (all without one), only watchpoints for
    `info watchpoints`; the address column sized by the rows shown. `notes`: lines under
    each breakpoint (maint_info.py)."""
    table = ctx.session.breakpoints
    args = text.strip()
    entries = [bp for bp in table.sorted() if (bp.is_watch or not watchpoints_only)
               and (bp.gdb_type == TRACEPOINT or not tracepoints_only)]  # fmt: skip
    if entries and args:  # gdb reads the list only against a row it could show
        listed = _listed(ctx, args)
        entries = [bp for bp in entries if bp.number in listed]
    if not entries:
        if watchpoints_only or tracepoints_only:
            kind = "watchpoint" if watchpoints_only else "tracepoint"
            ctx.console(f"No {kind} matching '{args}'.\n" if args else f"No {kind}s.\n")
        else:
            ctx.console(f"No breakpoint or watchpoint matching '{args}'.\n" if args
                        else "No breakpoints or watchpoints.\n")  # fmt: skip
        return
    width = 18 if any(table.shows_address(bp) for bp in entries) else 10  # gdb's column for 64-bit addresses, or none
    addresses = ctx.session.settings.get("print address") != "off"  # off: gdb drops the column
    type_width = max(14, *(len(bp.shown_type) for bp in entries))  # gdb's print_type_col_width
    ctx.console(f"Num     {'Type':<{type_width}} Disp Enb " + (f"{'Address':<{width}} " if addresses else "") + "What\n")
    for bp in entries:
        if bp.catch is not None:
            _info_catchpoint(ctx, bp, width if addresses else -1, type_width)
            continue
        located = bp.located_apart  # gdb: a row each
        addr = "<PENDING>" if bp.shown_pending else "<MULTIPLE>" if located else (
            "" if bp.is_watch else hex16(table.shown_address(bp.places[0].address)))
        disp = bp.disposition
        unparsed = bp.shown_pending and bp.pending_extra is not None  # (shown in What)
        what = ("" if located else table.what(bp) + _inferiors(ctx, bp)) + ("" if unparsed else _thread(bp))
        ctx.console(f"{bp.number:<7} {bp.shown_type:<{type_width}} {disp:<4} {'y' if bp.enabled else 'n':<3} "
                    + (f"{addr:<{width}} " if addresses else "") + f"{what}\n")  # gdb pads an empty address
        if bp.condition and not unparsed:  # gdb's words for a tracepoint's: `trace only if`
            ctx.console(f"\t{'trace' if bp.gdb_type == TRACEPOINT else 'stop'} only if {bp.condition}\n")
        if bp.thread is not None and not unparsed:  # gdb's print_thread_id: N, or INF.N with several inferiors
            qualified = len(ctx.session.inferiors) > 1 or ctx.session.inferior.number != 1
            ctx.console(f"\tstop only in thread {f'{bp.inferior}.' if qualified else ''}{bp.thread}\n")
        if bp.hits:
            ctx.console(f"\tbreakpoint already hit {bp.hits} time{'s' if bp.hits > 1 else ''}\n")
        if bp.ignore:
            ctx.console(f"\tignore next {bp.ignore} hits\n")  # gdb 13's print_one_breakpoint_location
        if bp.enable_count > 1:
            ctx.console(f"\tdisable after {'additional' if bp.ignore else 'next'} {bp.enable_count} hits\n")
        ctx.console(shown_commands(ctx, bp))
        for note in notes(bp) if notes is not None else ():
            ctx.console(f"\t{note}\n")
        if bp.gdb_type == TRACEPOINT:  # never inserted here (tracepoints.py)
            ctx.console((f"\tpass count {bp.passcount} \n" if bp.passcount else "")
                        + ("\tnot installed on target\n" if len(bp.places) == 1 and not located else ""))
        for index, place in enumerate(bp.places if located else (), 1):
            # gdb's location rows: N* where the condition does not parse, y- in a disabled one
            state = {"N": "N*", "n": "n"}.get(bp.location_state(place.address), "y" if bp.enabled else "y-")
            gone = place.address in bp.shlib_disabled  # (a detach forgot its library)
            ctx.console(f"{f'{bp.number}.{index}':<28}{state:<4}"
                        + (f"{'<PENDING>':<18} {bp.location}\n" if gone else f"{hex16(table.shown_address(place.address)):<18} "
                        f"{table.place_what(place)}{_inferiors(ctx, bp)}\n") + ("\tnot installed on target\n" if bp.gdb_type == TRACEPOINT else ""))
    if any(bp.cond_disabled for bp in entries):
        ctx.console("(*): Breakpoint condition is invalid at this location.\n")
    placed = [bp for bp in entries if bp.catch is None and not bp.is_watch and not bp.pending and bp.places]
    if placed:  # gdb's breakpoint_1: `x` and `$_` go to the last one's (first) location
        session = ctx.session
        set_next_address(session.debugger, session.command_memory, table.shown_address(placed[-1].places[0].address))


def _thread(bp: MiBreakpoint) -> str:
    """gdb's ` thread N` after a thread-specific breakpoint's location (its global number)."""
    return f" thread {bp.thread}" if bp.thread is not None else ""


def _inferiors(ctx: Context, bp: MiBreakpoint) -> str:
    """gdb's ` inf N` after a location, in the CLI only where there are several inferiors."""
    if bp.pending or bp.is_watch or len(ctx.session.inferiors) < 2:
        return ""
    return f" inf {bp.inferior}"


def _info_catchpoint(ctx: Context, bp: MiBreakpoint, width: int, kind: int = 14) -> None:
    assert bp.catch is not None
    disp = "del" if bp.temporary else "keep"
    column = f"{'':<{width}} " if width >= 0 else ""  # -1: print address off, no column
    ctx.console(f"{bp.number:<7} {bp.shown_type:<{kind}} {disp:<4} {'y' if bp.enabled else 'n':<3} "
                f"{column}{ctx.session.breakpoints.what(bp)}\n{catch_extra(bp.catch)}")
    if bp.condition:
        ctx.console(f"\tstop only if {bp.condition}\n")
    if bp.hits:
        ctx.console(f"\tcatchpoint already hit {bp.hits} time{'s' if bp.hits > 1 else ''}\n")
    if bp.ignore:
        ctx.console(f"\tWill ignore next {bp.ignore} crossings of breakpoint.\n")


def _info_variables(ctx: Context, scope: VariableScope, empty: str) -> None:
    session = ctx.session
    tid, level = session.selected_frame("No frame selected.")
    infos = session.debugger.frame_variables(tid, level, scope)
    frame = session.frames.frame(tid, level) if not infos else None
    # gdb: no block there (code without debug info), or for args no function symbol (a
    # trampoline, whose unit's block still has no locals)
    args = scope is VariableScope.ARGUMENTS
    if frame is not None and (frame.source is None and not frame.signal_trampoline or args and frame.signal_trampoline):
        empty = "No symbol table info available."
    if not infos:
        ctx.console(empty + "\n")
    for info in infos:  # gdb's print_variable_and_value
        ctx.console(f"{info.name} = ", line_start=True)
        for line in printer_errors(info):  # as it prints the value
            ctx.log(line, aside=True)
        ctx.console(f"{laid_out(ctx, info)}\n")


def _info_frame(ctx: Context, text: str) -> None:
    session = ctx.session
    tid, level = session.selected_frame("No stack.")
    if text.strip():  # gdb's frame spec: `info frame 1`, `level 1`, `function main`...
        from aliceserver.adapters.mi.console_symbols import selected_frame_level

        level = selected_frame_level(ctx, text.strip())
    frames = session.frames.stack(tid, 0, level + 2)
    frame = frames[level]
    where = f" in {frame.function or '??'}"
    if frame.source is not None:
        where += f" ({session.frames.file_name(frame.source.path, frame.source.symtab)}:{frame.source.line})"
    # gdb names the level only of the selected frame (no frame spec given)
    ctx.console(f"Stack frame at {hex(frame.cfa or 0)}:\n" if text.strip()
                else f"Stack level {level}, frame at {hex(frame.cfa or 0)}:\n")
    real = level  # an inlined call's registers are those of the function it is inlined into
    # gdb's saved pc is that of the first frame out from here that is not inlined or a tail call
    while (frame.inlined or frame.tail_call) and real + 1 < len(frames) and (frames[real].inlined or frames[real].tail_call):
        real += 1
        frames = session.frames.stack(tid, 0, real + 2)
    try:  # the caller's pc even past main, where the shown stack ends
        callers = session.debugger.stack_trace(tid, real + 1, 1)
    except AliceError:
        callers = []
    arch = program_architecture(session.debugger)  # gdb names the pc as its CPU does
    saved = f"; saved {arch.pc} = {hex(callers[0].pc)}" if callers else ""
    ctx.console(f" {arch.pc} = {hex(frame.pc)}{where}{saved}\n")  # one console record a line, as gdb
    links = []
    if frame.tail_call:
        links.append(" tail call frame")
    elif frame.inlined:
        links.append(f" inlined into frame {level + 1}")
    elif len(frames) > level + 1:
        links.append(f" called by frame at {hex(frames[level + 1].cfa or 0)}")
    if level > 0:
        links.append(f" caller of frame at {hex(frames[level - 1].cfa or 0)}")
    if links:
        ctx.console(",".join(links) + "\n")
    details = session.debugger.frame_details(tid, level)
    mode = session.settings.get("print frame-arguments")  # as frames show them (print_frame_args)
    infos = session.frames.shown_args(tid, level, mi=False, aggregate_values=mode == "all", arguments=mode)
    args = ("..." if infos else "") if mode == "presence" else ", ".join(
        f"{a.name}={frame_arg_value(a, mode)}" for a in infos)
    cfa = frame.cfa or 16
    base = details.base if details.base is not None else cfa - 16
    if details.language is not None:
        ctx.console(f" source language {details.language}.\n")
    if frame.signal_trampoline:
        ctx.console(info_frame_tail(frame, details, arch.sp))
        return
    if frame.inlined or frame.tail_call:  # no frame base of its own; its sp is the one it is inlined into
        unwound_by = _unwound_by(ctx, tid, level) if frame.inlined else None
        unknown = " Arglist at unknown address.\n Locals at unknown address,"
        if unwound_by is None:  # its registers are the thread's own
            ctx.console(f"{unknown} Previous frame's sp in {arch.sp}\n")
            return
        # Its registers are those the first real frame inside it unwinds (gdb's inline
        # frames pass each register through): where that frame's caller's are.
        inner, inner_details = unwound_by
        ctx.console(f"{unknown} Previous frame's sp is {hex(inner.cfa or 0)}\n")
        _saved_registers(ctx, inner_details.saved_registers)
        return
    ctx.console(f" Arglist at {hex(base)}, args: {args}\n")
    ctx.console(f" Locals at {hex(base)}, Previous frame's sp is {hex(cfa)}\n")
    _saved_registers(ctx, details.saved_registers)


def _unwound_by(ctx: Context, tid: int, level: int) -> tuple[StackFrame, FrameDetails] | None:
    """The frame, and its details, whose unwinding gives the registers of the inlined call
    at `level` (frames.real_frame_inside; None: the thread's own registers)."""
    session = ctx.session
    frames = session.frames.stack(tid, 0, level + 1)
    inner = real_frame_inside(frames, level)
    return None if inner is None else (frames[inner], session.debugger.frame_details(tid, inner))


def _saved_registers(ctx: Context, saved: Sequence[tuple[str, int]]) -> None:
    if saved:
        ctx.console(" Saved registers:\n ")
        ctx.console(",".join(f" {name} at {hex(at)}" for name, at in saved) + "\n")

def _info_threads(ctx: Context, text: str) -> None:
    session = ctx.session
    current, live = session.inferior, engine_inferior(session)
    with as_current(session, live):  # the threads of every inferior: those of the live one
        _thread_rows(ctx, text, current)
    if live is not current and live.process is not None:
        ctx.console("\nNo selected thread.  See `help thread'.\n")


def _thread_rows(ctx: Context, text: str, current: Inferior) -> None:
    session = ctx.session
    inferior = session.inferior
    wanted = thread_filter(text)
    shown = []
    if inferior.process is not None:
        for info in sorted(session.debugger.threads(), key=lambda t: inferior.threads.get(t.tid, 0)):
            number = inferior.threads.get(info.tid) or inferior.add_thread(info.tid)
            if wanted is None or wanted.wants(number):
                # gdb's thread_target_id_str: the name (a core has none), then the stub's details
                name = named(session, info).name  # `thread name`'s, else the system's
                label = target_id(session, info.tid) + (f' "{name}"' if name else "")
                shown.append((thread_label(session, info.tid), info, label + (f" ({info.details})" if info.details else "")))
    if not shown:
        ctx.console("No threads.\n" if wanted is None else f"No threads match '{text}'.\n")
        return
    width = max(len(target) for _n, _i, target in shown)  # gdb sizes the column to its rows
    ctx.console(f"  Id   {'Target Id':<{width}} Frame \n")
    for label, info, target in shown:
        mark = "*" if inferior is current and info.tid == inferior.selected_tid else " "
        where = "(running)"
        if not inferior.running:
            frame = session.frames.frame(info.tid, 0)
            where = session.frames.describe(frame, info.tid, with_pc=not session.at_line_start(frame))
        ctx.console(f"{mark} {label:<4} {target:<{width}} {where}\n")


def _info_source(ctx: Context, text: str) -> None:
    from aliceserver.adapters.mi.source_paths import info_source

    info_source(ctx)


def _info_display(ctx: Context, text: str) -> None:
    from aliceserver.adapters.mi import displays

    displays.info(ctx)


def _warranty(ctx: Context, text: str) -> None:
    raise MiError('"info warranty" is not supported by aliceserver.')  # gdb's licence's


def _show_everything(ctx: Context, text: str) -> None:
    """`info set`: gdb's `show` alone, whatever follows."""
    found = ctx.session.cli_commands.lookup("show")
    assert found is not None
    found[1](ctx, "")


def _info(ctx: Context, text: str) -> Reply:
    word, _, rest = text.partition(" ")
    table = {
        "breakpoints": _info_breakpoints, "watchpoints": _info_watchpoints,
        "locals": lambda c, t: _info_variables(c, VariableScope.LOCALS, "No locals."),
        "args": lambda c, t: _info_variables(c, VariableScope.ARGUMENTS, "No arguments."),
        "frame": _info_frame, "registers": info_registers, "vector": info_vector,
        "all-registers": lambda c, t: info_registers(c, t, print_all=True),
        "threads": _info_threads, "sharedlibrary": info_sharedlibrary, "signals": info_signals,
        "line": info_line_command, "source": _info_source, "display": _info_display,
        "address": info_address_command, "scope": info_scope_command, "proc": info_proc_command,
        "symbol": info_symbol_command, "functions": info_functions_command,
        "variables": info_variables_command, "types": info_types_command, "sources": info_sources_command,
        "inferiors": info_inferiors, "vtbl": info_vtbl, "probes": info_probes,
        **console_more.INFO, "connections": info_connections, "skip": info_skip,
        "tvariables": trace_variables.info_tvariables, "os": info_os.info_os,
        "tracepoints": _info_tracepoints,
        "set": _show_everything, "warranty": _warranty, **auto_load.INFO,
    }
    aliases = {"b": "breakpoints", "br": "breakpoints", "break": "breakpoints", "reg": "registers",
               "r": "registers", "f": "frame", "dll": "sharedlibrary", "shared": "sharedlibrary",
               "handle": "signals", "tp": "tracepoints", "s": "stack"}
    if not word:
        show_lists.info_alone(ctx)
        return None
    name = aliases.get(word, word if word in table else None)
    if name is None:
        matches = [n for n in table if n.startswith(word)]
        if len(matches) > 1:  # gdb's lookup_cmd names them (its own list is longer)
            raise MiError(f'Ambiguous info command "{word}": {ambiguous_names(sorted(matches))}.')
        if not matches:
            raise MiError(f'Undefined info command: "{word}".  Try "help info".')
        name = matches[0]
    table[name](ctx, rest.strip())
    return None


def register_info(registry: CliRegistry) -> None:
    add = registry.add
    register_libraries(registry)
    add("info", _info, "i")
    add("handle", handle)
    add("disassemble", disassemble_command)
