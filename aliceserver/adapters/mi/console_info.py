"""Console commands that show things: print, backtrace, frame, info, x, list, disassemble."""

from __future__ import annotations

import re
from typing import overload

from aliceserver.adapters.gdbcommands.examine import examine
from aliceserver.adapters.gdbcommands.selection import LineBuffer, Selection
from aliceserver.adapters.mi.breakpoint_commands import shown_commands
from aliceserver.adapters.mi.breakpoints import TRACEPOINT, MiBreakpoint
from aliceserver.adapters.mi.catchpoints import info_extra as catch_extra
from aliceserver.adapters.mi.commands_sources import info_sources_command
from aliceserver.adapters.mi.commands_stack import target_id
from aliceserver.adapters.mi.console_disasm import disassemble_command
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
    selected_frame_level,
)
from aliceserver.adapters.mi.console_vtbl import info_vtbl
from aliceserver.adapters.mi.frames import (
    display_value,
    evaluation_failure,
    hex16,
    printed_value,
    printer_errors,
    whole_value_failure,
)
from aliceserver.adapters.mi.inferior_list import as_current, engine_inferior, info_inferiors
from aliceserver.adapters.mi.inferiors import parse_thread_id, thread_filter, thread_label
from aliceserver.adapters.mi.libraries import info_sharedlibrary
from aliceserver.adapters.mi.libraries import register_console as register_libraries
from aliceserver.adapters.mi.pretty import pretty_text
from aliceserver.adapters.mi.register_info import info_registers, info_vector
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.selection_events import announce, print_selection
from aliceserver.adapters.mi.state import Inferior
from aliceserver.debuggers.model import DynamicTypes, StackFrame, VariableInfo, VariableScope
from aliceserver.errors import AliceError

_FORMAT = re.compile(r"/(\d*)([xduotacfsizr]*)([bhwg]?)\s*")


def _print(ctx: Context, text: str) -> Reply:
    value = _printed(ctx, text, record=True)  # the engine's value history, shared by front ends
    ctx.console(f"${ctx.session.debugger.history_count()} = {value}\n")
    return None


def _call(ctx: Context, text: str) -> Reply:
    """gdb's call: print's, except that a void result prints nothing and, unlike print's
    `$N = void`, does not enter the value history."""
    value = _printed(ctx, text, void_shown=False, record=not _void_result(ctx, text))
    if value is not None:
        ctx.console(f"${ctx.session.debugger.history_count()} = {value}\n")
    return None


def _void_result(ctx: Context, text: str) -> bool:
    """Whether the expression's type is void, found without running anything (whatis's way)."""
    match = _FORMAT.match(text)
    expression = text[match.end() :] if match else text
    if not expression.strip():
        return False
    try:
        return ctx.session.evaluate(expression, type_only=True).type == "void"
    except AliceError:
        return False  # the evaluation proper reports it


@overload
def _printed(ctx: Context, text: str, *, record: bool = False) -> str: ...


@overload
def _printed(ctx: Context, text: str, void_shown: bool, *, record: bool = False) -> str | None: ...


def _printed(ctx: Context, text: str, void_shown: bool = True, *, record: bool = False) -> str | None:
    """print's text of `/FMT expression`, or its error (output's too: a value too big or
    unreadable is an error there as well). None for a void value unless `void_shown`.
    `record`: the value goes into the value history (print, call; output records none)."""
    session = ctx.session
    fmt = None
    match = _FORMAT.match(text)
    if match:
        fmt = match.group(2)[-1:] or None
        text = text[match.end() :]
    if not text.strip():
        if not record:
            raise MiError("Argument required (expression to compute).")
        text = "$"  # gdb's print alone: the last value again
    info = session.evaluate(text, fmt, shown=DynamicTypes.POINTERS | DynamicTypes.OBJECTS, record=record)
    recorded = f"${info.history}" if info.history else text  # `$` names another value now
    failure = whole_value_failure(session, recorded, info) or evaluation_failure(info)
    if failure is not None:
        raise MiError(failure)
    for line in printer_errors(info, printed=True):  # on gdb's error stream, before the value
        ctx.log(line)
    if not void_shown and info.type == "void":
        return None
    return laid_out(ctx, info)


def laid_out(ctx: Context, info: VariableInfo) -> str:
    """print's text of a value, over several lines with `set print pretty on` as gdb's."""
    text = printed_value(info)
    if ctx.session.settings.get("print pretty") == "on" and not info.error:
        return pretty_text(text, info.type)
    return text


def _output(ctx: Context, text: str) -> Reply:
    ctx.console(_printed(ctx, text))  # gdb's output records no history value
    return None


def _real_type(info: VariableInfo) -> str:
    """gdb's comment before the type of a pointer or reference to a polymorphic class
    with print object on (a class object itself has none: gdb's whatis reads no memory)."""
    return "" if info.declared_type is None else f"/* real type = {info.type} */\n"


_TYPE_FLAGS = re.compile(r"/([a-zA-Z]+)\s+")


def _type_flags(text: str) -> tuple[str, bool]:
    """The expression and whether `/r` (raw: no type printers) came before it."""
    match = _TYPE_FLAGS.match(text)
    return (text[match.end() :], "r" in match.group(1)) if match else (text, False)


def _whatis(ctx: Context, text: str) -> Reply:
    text, raw = _type_flags(text)
    session = ctx.session
    info = session.evaluate(text, shown=DynamicTypes.POINTERS, type_only=True)
    shown = info.declared_type or info.type
    inferior = session.inferior
    if not raw and info.declared_type is None and inferior.process is not None and not inferior.running \
            and inferior.selected_tid is not None:
        try:  # gdb's type printers: std::vector<int> for std::vector<int, std::allocator<int> >
            shown = session.debugger.printed_type_name(text, inferior.selected_tid,
                                                       inferior.selected_level) or shown
        except AliceError:
            pass  # evaluate succeeded: keep its type name
    ctx.console(f"type = {_real_type(info)}{shown}\n")
    return None


def _ptype(ctx: Context, text: str) -> Reply:
    """whatis, with typedefs at the top resolved and struct/union/enum bodies written out."""
    text, raw = _type_flags(text)
    session = ctx.session
    info = session.evaluate(text, shown=DynamicTypes.POINTERS, type_only=True)  # gdb's errors as well
    described = info.declared_type or info.type
    inferior = session.inferior
    if inferior.process is not None and not inferior.running and inferior.selected_tid is not None:
        try:
            described = session.debugger.describe_type(text, inferior.selected_tid,
                                                       inferior.selected_level, raw=raw)
        except AliceError:
            pass  # evaluate succeeded: keep its type name
    ctx.console(f"type = {_real_type(info)}{described}\n")
    return None


def frame_what(ctx: Context, default: str, chosen: str | None = None) -> str:
    """gdb's print_what for a frame: the command's own (`default`) unless `print frame-info`
    (or bt's -frame-info, `chosen`) says otherwise."""
    what = chosen or ctx.session.settings.get("print frame-info")
    return default if what == "auto" else what


def _frame_line(ctx: Context, tid: int, level: int, what: str = "location", arguments: str | None = None) -> str:
    session = ctx.session
    frame = session.frames.frame(tid, level)
    callee = session.frames.frame(tid, level - 1) if level > 0 else None
    if callee is None or callee.called_from_debugger:  # stopped at its pc: frame 0, or a call's caller
        with_pc = not session.at_line_start(frame)
    else:  # a return address; none shown where an inlined call was made (its line is the call's)
        with_pc = not callee.inlined
    if what == "source-line" and frame.source is not None and frame.source.line:
        return f"{hex16(frame.pc)}\t" if with_pc and session.settings.get("print address") == "on" else ""
    text = session.frames.describe(frame, tid, with_pc=with_pc, what=what, arguments=arguments)
    return f"#{level:<3d}{text}\n"


def _backtrace(ctx: Context, text: str) -> Reply:
    session = ctx.session
    tid = session.require_stopped("No stack.")
    words = text.split()
    full = False
    options: dict[str, str] = {}
    while words and (words[0] in ("full", "-full", "no-filters", "-no-filters", "hide", "-hide")
                     or words[0] in ("-frame-info", "-frame-arguments")):
        word = words.pop(0)
        if word in ("-frame-info", "-frame-arguments"):  # gdb's frame print options
            options[word] = _option_value(ctx, word, words.pop(0) if words else "")
        full = full or word.endswith("full")  # gdb's qualifiers come before the count
    what = frame_what(ctx, "location", options.get("-frame-info"))
    counts = [_frame_count(ctx, " ".join(words))] if words else []
    frames = session.frames.stack(tid)
    if counts:
        n = int(counts[0])
        frames = frames[:n] if n >= 0 else frames[n:]
    for frame in frames:
        head = _frame_line(ctx, tid, frame.level, what, options.get("-frame-arguments"))
        if what in ("source-line", "source-and-location"):
            _print_frame(ctx, head, frame)
        else:
            ctx.console(head)
        if full:
            locals_ = session.debugger.frame_variables(tid, frame.level, VariableScope.LOCALS)
            if not locals_:
                ctx.console("No locals.\n")
            for info in locals_:
                ctx.console(f"        {info.name} = {printed_value(info)}\n")
    # gdb tells only a person (from_tty: not -batch, not a script) that frames were left
    # out after the last shown; `bt -N` shows the outermost, so none follow.
    if counts and ctx.from_tty and int(counts[0]) >= 0 and len(frames) < len(session.frames.stack(tid)):
        ctx.console("(More stack frames follow...)\n")
    return None


def _option_value(ctx: Context, option: str, text: str) -> str:
    """The value of bt's -frame-info or -frame-arguments, as `set print` parses it."""
    from aliceserver.adapters.mi.settings import Settings

    name = "print " + option[1:]
    return Settings().set(name, text)


def _frame_count(ctx: Context, text: str) -> int:
    """bt's count: an expression, as gdb's parse_and_eval_long (`bt 1 full` is its error)."""
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    words = ctx.session.evaluate(text).value.split()
    try:
        return int(words[-1], 0) if words[-1].startswith("0x") else int(float(words[0]))  # a pointer, a number
    except (ValueError, IndexError):
        raise MiError(f"Invalid number \"{text}\".") from None


def _select(ctx: Context, level: int, silent: bool = False) -> None:
    session = ctx.session
    tid = session.require_stopped()
    frames = session.frames.stack(tid, level, 1)
    if not frames:
        raise MiError("No frame at level %d." % level)
    if level == session.inferior.selected_level:  # as gdb: it prints it and notifies no one
        if not silent:
            print_frame_lines(ctx, tid, level)
        return
    session.inferior.selected_level = level
    announce(ctx, frame=True, cli=not silent)  # every UI prints the new frame, this one too


def _frame(ctx: Context, text: str) -> Reply:
    _select(ctx, selected_frame_level(ctx, text))
    return None


def _select_frame(ctx: Context, text: str) -> Reply:
    """`select-frame`: `frame` that prints nothing where it is (the others hear of a move)."""
    _select(ctx, selected_frame_level(ctx, text), silent=True)
    return None


def print_frame_lines(ctx: Context, tid: int, level: int) -> None:
    """`#N  func (args) at file:line` and the source line, as `frame` prints them (or
    what `print frame-info` asks for)."""
    what = frame_what(ctx, "source-and-location")
    head = _frame_line(ctx, tid, level, what)
    if what in ("source-line", "source-and-location"):
        _print_frame(ctx, head, ctx.session.frames.frame(tid, level))
    else:
        ctx.console(head)


def _up(ctx: Context, text: str) -> Reply:
    session = ctx.session
    tid = session.require_stopped("No stack.")
    count = _frame_count(ctx, text) if text else 1  # an expression, as gdb's parse_and_eval_long
    depth = len(session.frames.stack(tid))
    level = session.inferior.selected_level + count
    if level >= depth:
        if session.inferior.selected_level == depth - 1:
            raise MiError("Initial frame selected; you cannot go up.")
        level = depth - 1
    _select(ctx, max(level, 0))
    return None


def _down(ctx: Context, text: str) -> Reply:
    session = ctx.session
    session.require_stopped("No stack.")
    count = _frame_count(ctx, text) if text else 1  # an expression, as gdb's parse_and_eval_long
    level = session.inferior.selected_level - count
    if level < 0:
        if session.inferior.selected_level == 0:
            raise MiError("Bottom (innermost) frame selected; you cannot go down.")
        level = 0
    _select(ctx, level)
    return None


def switch_thread(ctx: Context, text: str) -> Reply:
    """`thread [ID]`: ID is gdb's THR or INF.THR."""
    session = ctx.session
    inferior = session.inferior
    if not text:
        if inferior.selected_tid is None:
            raise MiError("No thread selected")
        current = inferior.selected_tid
        ctx.console(f"[Current thread is {thread_label(session, current)} ({target_id(session, current)})]\n")
        return None
    word = text.split()[0]
    owner, number = parse_thread_id(session, word)
    tid = owner.tid_of(number)
    if tid is None:
        raise MiError(f"Unknown thread {word}.")
    if owner is inferior and tid == inferior.selected_tid:  # as gdb: printed here only, no one is told
        inferior.selected_level = 0
        print_selection(ctx, thread=True, frame=True)
        return None
    session.inferior = owner  # a thread of another inferior selects that inferior too
    owner.selected_tid, owner.selected_level = tid, 0
    announce(ctx, thread=True, frame=True)
    return None


# --- info ----------------------------------------------------------------------------------
def _info_breakpoints(ctx: Context, text: str) -> None:
    table = ctx.session.breakpoints
    entries = table.sorted()
    if not entries:
        ctx.console("No breakpoints or watchpoints.\n")
        return
    width = 18 if table.any_address() else 10  # gdb's column for 64-bit addresses, or none
    addresses = ctx.session.settings.get("print address") != "off"  # off: gdb drops the column
    ctx.console("Num     Type           Disp Enb " + (f"{'Address':<{width}} " if addresses else "") + "What\n")
    for bp in entries:
        if bp.catch is not None:
            _info_catchpoint(ctx, bp, width if addresses else -1)
            continue
        located = bp.located_apart  # gdb: a row each
        addr = "<PENDING>" if bp.pending else "<MULTIPLE>" if located else (
            "" if bp.is_watch else hex16(table.shown_address(bp.places[0].address)))
        disp = bp.disposition
        what = "" if located else table.what(bp)
        ctx.console(f"{bp.number:<7} {bp.gdb_type:<14} {disp:<4} {'y' if bp.enabled else 'n':<3} "
                    + (f"{addr:<{width}} " if addresses else "") + f"{what}\n")  # gdb pads an empty address
        if bp.condition:
            ctx.console(f"\tstop only if {bp.condition}\n")
        if bp.hits:
            ctx.console(f"\tbreakpoint already hit {bp.hits} time{'s' if bp.hits > 1 else ''}\n")
        if bp.ignore:
            ctx.console(f"\tignore next {bp.ignore} hits\n")  # gdb 13's print_one_breakpoint_location
        if bp.enable_count > 1:
            ctx.console(f"\tdisable after {'additional' if bp.ignore else 'next'} {bp.enable_count} hits\n")
        ctx.console(shown_commands(ctx, bp))
        if bp.gdb_type == TRACEPOINT:  # never inserted here (tracepoints.py)
            ctx.console((f"\tpass count {bp.passcount} \n" if bp.passcount else "")
                        + ("\tnot installed on target\n" if len(bp.places) == 1 and not located else ""))
        for index, place in enumerate(bp.places if located else (), 1):
            # gdb's location rows: N* where the condition does not parse, y- in a disabled one
            state = {"N": "N*", "n": "n"}.get(bp.location_state(place.address), "y" if bp.enabled else "y-")
            ctx.console(f"{f'{bp.number}.{index}':<28}{state:<4}{hex16(table.shown_address(place.address)):<18} "
                        f"{table.place_what(place)}\n" + ("\tnot installed on target\n" if bp.gdb_type == TRACEPOINT else ""))
    if any(bp.cond_disabled for bp in entries):
        ctx.console("(*): Breakpoint condition is invalid at this location.\n")


def _info_catchpoint(ctx: Context, bp: MiBreakpoint, width: int) -> None:
    assert bp.catch is not None
    disp = "del" if bp.temporary else "keep"
    column = f"{'':<{width}} " if width >= 0 else ""  # -1: print address off, no column
    ctx.console(f"{bp.number:<7} {bp.gdb_type:<14} {disp:<4} {'y' if bp.enabled else 'n':<3} "
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
    if not infos:
        ctx.console(empty + "\n")
    for info in infos:
        for line in printer_errors(info):
            ctx.log(line)
        ctx.console(f"{info.name} = {laid_out(ctx, info)}\n")


def _info_frame(ctx: Context, text: str) -> None:
    session = ctx.session
    tid, level = session.selected_frame("No stack.")
    frames = session.frames.stack(tid, 0, level + 2)
    frame = frames[level]
    where = f" in {frame.function or '??'}"
    if frame.source is not None:
        where += f" ({session.frames.file_name(frame.source.path)}:{frame.source.line})"
    ctx.console(f"Stack level {level}, frame at {hex(frame.cfa or 0)}:\n")
    real = level  # an inlined call's registers are those of the function it is inlined into
    while frame.inlined and real + 1 < len(frames) and frames[real].inlined:
        real += 1
        frames = session.frames.stack(tid, 0, real + 2)
    try:  # the caller's pc even past main, where the shown stack ends
        callers = session.debugger.stack_trace(tid, real + 1, 1)
    except AliceError:
        callers = []
    saved = f"; saved rip = {hex(callers[0].pc)}" if callers else ""
    ctx.console(f" rip = {hex(frame.pc)}{where}{saved}\n")  # one console record a line, as gdb
    links = []
    if frame.inlined:
        links.append(f" inlined into frame {level + 1}")
    elif len(frames) > level + 1:
        links.append(f" called by frame at {hex(frames[level + 1].cfa or 0)}")
    if level > 0:
        links.append(f" caller of frame at {hex(frames[level - 1].cfa or 0)}")
    if links:
        ctx.console(",".join(links) + "\n")
    details = session.debugger.frame_details(tid, level)
    args = ", ".join(  # as frames show them (`print frame-arguments scalars`)
        f"{a.name}={'...' if a.aggregate else display_value(a)}" for a in session.frames.shown_args(tid, level, mi=False)
    )
    cfa = frame.cfa or 16
    base = details.base if details.base is not None else cfa - 16
    if details.language is not None:
        ctx.console(f" source language {details.language}.\n")
    if frame.inlined:  # no frame base of its own; its sp is the one it is inlined into
        ctx.console(" Arglist at unknown address.\n Locals at unknown address, Previous frame's sp in rsp\n")
        return
    ctx.console(f" Arglist at {hex(base)}, args: {args}\n")
    ctx.console(f" Locals at {hex(base)}, Previous frame's sp is {hex(cfa)}\n")
    if details.saved_registers:
        ctx.console(" Saved registers:\n ")
        ctx.console(",".join(f" {name} at {hex(at)}" for name, at in details.saved_registers) + "\n")

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
                shown.append((thread_label(session, info.tid), info, target_id(session, info.tid) + (f' "{info.name}"' if info.name else "")))  # a core: none
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


def _print_frame(ctx: Context, head: str, frame: StackFrame) -> None:
    """A frame's line and its source line, or gdb's error for a missing source file."""
    report = ctx.session.frames.source_report(frame)
    ctx.console(head + report.text)
    if report.error:
        ctx.log(report.error)


def _info_source(ctx: Context, text: str) -> None:
    from aliceserver.adapters.mi.source_paths import info_source

    info_source(ctx)


def _info_display(ctx: Context, text: str) -> None:
    from aliceserver.adapters.mi import displays

    displays.info(ctx)


def _info(ctx: Context, text: str) -> Reply:
    word, _, rest = text.partition(" ")
    table = {
        "breakpoints": _info_breakpoints, "watchpoints": _info_breakpoints,
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
    }
    aliases = {"b": "breakpoints", "br": "breakpoints", "break": "breakpoints", "reg": "registers",
               "r": "registers", "f": "frame", "dll": "sharedlibrary", "shared": "sharedlibrary",
               "handle": "signals"}
    if not word:
        raise MiError('"info" must be followed by the name of an info command.')
    name = aliases.get(word, word if word in table else None)
    if name is None:
        matches = [n for n in table if n.startswith(word)]
        if len(matches) != 1:
            raise MiError(f'Undefined info command: "{word}".  Try "help info".')
        name = matches[0]
    table[name](ctx, rest.strip())
    return None


# --- memory, source, disassembly -----------------------------------------------------------
def _x(ctx: Context, text: str) -> Reply:
    session = ctx.session
    inferior = session.inferior
    stopped = inferior.process is not None and not inferior.running and inferior.selected_tid is not None
    where = Selection(*session.selected_frame()) if stopped else Selection(None)
    if inferior.process is None:
        session.ensure_symbols()  # before `run`, x reads the program's image, as in gdb
    lines = LineBuffer(ctx.console)
    try:
        examine(session.debugger, where, session.command_memory.examine, text, lines)
    finally:
        lines.flush()
    return None


def _list(ctx: Context, text: str) -> Reply:
    session = ctx.session
    size = int(session.settings.get("listsize")) if session.settings.get("listsize").isdigit() else 10
    state = session.list_state
    if text in ("", "-"):
        if state is None:
            path = session.current_source()
            if path is None:
                raise MiError('No symbol table is loaded.  Use the "file" command.')
            places = [p for p in session.debugger.resolve_location("main") if p.source]
            centre = places[0].source.line if places and places[0].source else 1
            start = max(1, centre - size // 2 + 1) if text == "" else 1
            state = (path, start)
        elif text == "-":
            state = (state[0], max(1, state[1] - 2 * size))
    else:
        spec = session.breakpoints.normalize(text.split(",")[0])
        file, colon, line = spec.rpartition(":")
        session.ensure_symbols()
        places = session.debugger.resolve_location(spec) if session.has_symbols() else []
        if places and places[0].source is not None:
            path, centre = places[0].source.path, places[0].source.line
            if colon and line.isdigit():
                centre = int(line)
        elif colon and line.isdigit():
            path, centre = file, int(line)
        else:
            raise MiError(f'Function "{text}" not defined.')
        state = (path, max(1, centre - size // 2))
    path, start = state
    lines = session.frames.file_lines(path)
    missing = session.frames.missing_or(path, start)
    if lines is None or missing is not None:
        if missing is not None:  # gdb's print_source_lines: said, not an error
            ctx.console(missing.text)
            ctx.log(missing.error)
        session.list_state = (path, start + size)
        return None
    if start > len(lines):
        raise MiError(f"Line number {start} out of range; \"{path}\" has {len(lines)} lines.")
    for number in range(start, min(len(lines), start + size - 1) + 1):
        ctx.console(f"{number}\t{lines[number - 1]}\n")
    session.command_memory.listed = (path, start)  # gdb's last_line_listed: the first line
    session.list_state = (path, start + size)
    return None


def register_info(registry: CliRegistry) -> None:
    add = registry.add
    register_libraries(registry)
    add("print", _print, "p", "inspect")
    add("call", _call)
    add("output", _output)
    add("ptype", _ptype)
    add("whatis", _whatis)
    add("backtrace", _backtrace, "bt", "where")
    add("frame", _frame, "f")
    add("up", _up)
    add("select-frame", _select_frame)
    add("down", _down)
    add("thread", switch_thread)
    add("info", _info, "i")
    add("handle", handle)
    add("x", _x)
    add("list", _list, "l")
    add("disassemble", disassemble_command)
