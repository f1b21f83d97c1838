"""The console's breakpoint command lists and what uses the stop's breakpoints: `commands
[N...]` (its lines read from a command file), running them at the stop (`silent` first
keeps the stop quiet), `save breakpoints FILE`, `continue N` and a quiet `ignore` in a
script. The text is gdb's, written once in gdbcommands/breakpoint_scripts.py."""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable

from aliceserver.adapters.gdbcommands.breakpoint_scripts import (
    SavedBreakpoint,
    indented,
    is_silent,
    read_block,
    saved_text,
    to_run,
)
from aliceserver.adapters.mi import commands_break as breaks
from aliceserver.adapters.mi import commands_exec as execution
from aliceserver.adapters.mi import number_ranges
from aliceserver.adapters.mi.breakpoints import TRACEPOINT, WATCH_TYPES, MiBreakpoint
from aliceserver.adapters.mi.registry import (
    CliRegistry,
    Context,
    MiError,
    MiRegistry,
    Reply,
)
from aliceserver.debuggers import events as ev
from aliceserver.errors import AliceError
from aliceserver.regexes import compiled_later

_WATCH_WORDS = {kind: word for word, kind in zip(("watch", "rwatch", "awatch"), WATCH_TYPES.values(), strict=True)}


def _numbers(ctx: Context, text: str) -> list[int]:
    """`commands`' argument: numbers, ranges and `$` values (gdb's number_or_range_parser,
    a word it cannot read ends the list); none is the last breakpoint set."""
    table = ctx.session.breakpoints
    if not text.strip():
        if table.next_number == 1:
            raise MiError("Argument required (one or more breakpoint numbers).")
        return [table.next_number - 1]
    numbers = [number for number, _at in number_ranges.numbers(ctx, text)]
    for number in numbers:
        if number == 0:  # gdb names the number it expanded the word to
            ctx.log("warning: bad breakpoint number at or near '0'\n")
    return [number for number in numbers if number]


def read_commands(ctx: Context, line: str, next_line: Callable[[], str | None]) -> bool:
    """A command file's `commands [N...]` line (True): the breakpoints are looked up first,
    as gdb does, and the block up to its `end` is read only when one of them exists."""
    word, _, rest = line.strip().partition(" ")
    if word not in ("commands", "command"):
        return False
    _set_commands(ctx, rest, lambda: read_block(next_line))
    return True


def _set_commands(ctx: Context, rest: str, read: Callable[[], tuple[str, ...]]) -> None:
    table = ctx.session.breakpoints
    found: list[MiBreakpoint] = []
    for number in _numbers(ctx, rest):
        bp = table.entries.get(number)
        if bp is None:
            ctx.console(f"No breakpoint number {number}.\n")  # gdb's printf_unfiltered
        else:
            found.append(bp)
    if found:
        lines = read()
        for bp in found:
            refuse_trace_actions(bp, lines)
            ctx.session.command_memory.breakpoint_commands[bp.number] = lines
            ctx.session.notify("breakpoint-modified", [("bkpt", table.tuple(bp))])


def refuse_trace_actions(bp: MiBreakpoint, lines: tuple[str, ...]) -> None:
    """gdb's check_no_tracepoint_commands: a tracepoint's actions in another breakpoint's
    list (`collect `, `teval ` at a line's start, a while-stepping block)."""
    if bp.gdb_type == TRACEPOINT:
        return
    for line in (line.strip() for line in lines):
        if line.split(" ", 1)[0] in ("while-stepping", "ws", "stepping"):
            raise MiError("The 'while-stepping' command can only be used for tracepoints")
        for action in ("collect", "teval"):
            if line.startswith(action + " "):
                raise MiError(f"The '{action}' command can only be used for tracepoints")


_STRTOL = compiled_later(r"\s*([-+]?)(?:0[xX]([0-9a-fA-F]+)|(0[0-7]*)|([1-9][0-9]*))")


def _strtol(text: str) -> int:
    """The breakpoint number as C's strtol(text, &end, 0) reads it, with gdb's errors."""
    match = _STRTOL().match(text)
    if match is None:
        raise MiError(f'breakpoint number argument "{text}" is not a number.')
    if match.end() != len(text):
        raise MiError(f'junk at the end of breakpoint number argument "{text}".')
    sign, hexa, octal, decimal = match.groups()
    value = int(hexa, 16) if hexa else int(octal, 8) if octal else int(decimal)
    return -value if sign == "-" else value


def _break_commands(ctx: Context, args: list[str]) -> Reply:
    """-break-commands NUMBER [COMMAND...]: the list in one go, each argument a line (gdb's
    mi_cmd_break_commands); none clears it."""
    if not args:
        raise MiError("USAGE: break-commands <BKPT> [<COMMAND> [<COMMAND>...]]")
    number = _strtol(args[0])
    table = ctx.session.breakpoints
    bp = table.entries.get(number)
    if bp is None:
        raise MiError(f"breakpoint {number} not found.")
    lines = iter(args[1:])
    script = read_block(lambda: next(lines, None))
    refuse_trace_actions(bp, script)
    ctx.session.command_memory.breakpoint_commands[bp.number] = script
    ctx.session.notify_except(ctx, "breakpoint-modified", [("bkpt", table.tuple(bp))])
    return None


def _commands(ctx: Context, text: str) -> Reply:
    """`commands [N...]` typed: its list is the lines that follow, each after a `>` prompt
    (gdb's read_command_lines); a person at a terminal is told how it ends."""
    from aliceserver.adapters.mi.control_commands import typed_block

    def read() -> tuple[str, ...]:
        if ctx.from_tty and ctx.ui.reads_terminal():
            named = text.strip() or str(ctx.session.breakpoints.next_number - 1)
            ctx.console(f"Type commands for breakpoint(s) {named}, one per line.\n"
                        'End with a line saying just "end".\n')
        return typed_block(ctx, 0)

    _set_commands(ctx, text, read)
    return None


def _end(ctx: Context, text: str) -> Reply:
    raise MiError("This command cannot be used at the top level.")


def shown_commands(ctx: Context, bp: MiBreakpoint) -> str:
    """The breakpoint's command list as `info breakpoints` shows it, under its row."""
    return indented(ctx.session.breakpoints.script(bp), 4)


# --- at the stop ------------------------------------------------------------------------------
def on_stop(session: object, stop: ev.Stopped) -> bool:
    """Keeps gdb's stop_bpstat for this stop: the breakpoints it is for and their command
    lists (before a temporary one goes). True when one's list starts with `silent`: the
    stop is not shown."""
    from aliceserver.adapters.mi.session import MiSession

    assert isinstance(session, MiSession)
    table = session.breakpoints
    hit: list[MiBreakpoint] = []
    if stop.reason is ev.StopReason.BREAKPOINT:
        hit = table.for_address_ids(stop.breakpoint_ids)
    elif stop.reason is ev.StopReason.WATCHPOINT:
        hit = table.for_watch_ids(stop.breakpoint_ids)
    memory = session.command_memory
    memory.stop_breakpoints = tuple(bp.number for bp in hit)
    memory.stop_momentary = session.origin is not None and session.origin.kind == "until-location"
    lists = [memory.breakpoint_commands.get(bp.number, ()) for bp in hit]
    memory.actions = [to_run(lines) for lines in lists if to_run(lines)]
    return any(is_silent(lines) for lines in lists)


def run_actions(ctx: Context) -> None:
    """gdb's bpstat_do_actions after a stop a command file or the command line waited
    for: each command of the lists in turn; one that sets the program running ends them,
    and the lists of the stop it comes to run next."""
    from aliceserver.adapters.gdbcommands.control_flow import parse, run_list
    from aliceserver.adapters.mi.control_commands import SessionHooks

    session = ctx.session
    memory = session.command_memory
    inner = dataclasses.replace(ctx, from_tty=False, extra={})
    while memory.actions:
        lists, memory.actions = memory.actions, []
        for lines in lists:
            hooks = SessionHooks(inner, breakpoint_list=True)
            resumed = run_list(parse(lines), hooks)
            if hooks.exited:
                session.exit_requested = True
            if session.exit_requested:
                return
            if resumed:
                break  # the program ran and stopped: that stop's lists run next


# --- commands that use the breakpoints -----------------------------------------------------
def _recreate(bp: MiBreakpoint) -> str:
    if bp.is_watch:
        return f"{_WATCH_WORDS[bp.gdb_type]} {bp.location}"
    if bp.gdb_type == TRACEPOINT:  # gdb's tracepoint::print_recreate: its passcount on the next line
        thread = f" thread {bp.thread}" if bp.thread is not None else ""
        return f"trace {bp.location}{thread}" + (f"\n  passcount {bp.passcount}" if bp.passcount else "")
    if bp.dprintf is not None:
        return f"dprintf {bp.location},{bp.dprintf}"
    command = ("t" if bp.temporary else "") + ("hbreak" if bp.hardware else "break")
    return f"{command} {bp.location}" + (f" thread {bp.thread}" if bp.thread is not None else "")


_SAVE_HELP = """List of save subcommands:

save breakpoints -- Save current breakpoint definitions as a script.
save gdb-index -- Save a gdb-index file.
save tracepoints -- Save current tracepoint definitions as a script.

Type "help save" followed by save subcommand name for full documentation.
Type "apropos word" to search for commands related to "word".
Type "apropos -v word" for full documentation of commands related to "word".
Command name abbreviations are allowed if unambiguous.
"""


def _save(ctx: Context, text: str) -> Reply:
    """`save breakpoints FILE` (gdb's save_breakpoints); catchpoints are left out."""
    word, _, rest = text.strip().partition(" ")
    if not word:  # a prefix command alone lists its subcommands
        ctx.console(_SAVE_HELP)
        return None
    if "gdb-index".startswith(word) and word.startswith("g"):
        raise MiError("save gdb-index is not supported by aliceserver.")
    if not ("breakpoints".startswith(word) or "tracepoints".startswith(word)):
        raise MiError(f'Undefined save command: "{text.strip()}".  Try "help save".')
    path = rest.strip()
    if not path:
        raise MiError("Argument required (file name in which to save)")
    session = ctx.session
    memory = session.command_memory
    only_traces = "tracepoints".startswith(word) and not "breakpoints".startswith(word)
    saved = [bp for bp in session.breakpoints.sorted()
             if bp.catch is None and (bp.gdb_type == TRACEPOINT or not only_traces)]  # fmt: skip
    entries = [
        SavedBreakpoint(_recreate(bp), bp.condition, bp.ignore,
                        () if bp.dprintf is not None else memory.breakpoint_commands.get(bp.number, ()), bp.enabled)
        for bp in saved]
    if not entries:
        ctx.log("warning: Nothing to save.\n")
        return None
    # with a tracepoint among them, gdb writes the trace state variables first
    variables = session.breakpoints.trace_variables if any(bp.gdb_type == TRACEPOINT for bp in saved) else {}
    head = "".join(f"tvariable ${name}" + (f" = {initial}" if initial else "") + "\n"
                   for name, initial in variables.items())  # fmt: skip
    full = os.path.expanduser(path)
    try:
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(head + saved_text(entries))
    except OSError as error:
        raise MiError(f"Unable to open file '{full}' for saving ({error.strerror})") from None
    if ctx.from_tty:
        ctx.console(f"Saved to file '{full}'.\n")
    return None


def _ignore_message(number: int, count: int) -> str:
    """gdb's set_ignore_count, for a person (without its line's end)."""
    if count == 0:
        return f"Will stop next time breakpoint {number} is reached."
    if count == 1:
        return f"Will ignore next crossing of breakpoint {number}."
    return f"Will ignore next {count} crossings of breakpoint {number}."


def _continue(ctx: Context, text: str) -> Reply:
    """`continue N`: the ignore count of each breakpoint the program stopped at is N-1."""
    session = ctx.session
    if text.strip():
        session.require_process()
        try:
            count = int(session.evaluate_display(text.strip()).split()[0], 0)
        except (ValueError, IndexError):
            raise MiError(f"Invalid number \"{text.strip()}\".") from None
        quiet = dataclasses.replace(ctx, cli=False)
        stopped = [n for n in session.command_memory.stop_breakpoints if n in session.breakpoints.entries]
        for number in stopped:
            breaks.after(quiet, str(number), str(max(count - 1, 0)))
            if ctx.from_tty:  # gdb: the message ends with a period, then two blanks
                ctx.console(_ignore_message(number, max(count - 1, 0)) + "  ")
        if not stopped and ctx.from_tty:
            ctx.console("Not stopped at any breakpoint; argument ignored.\n")
    return execution.resume(ctx)


def _ignore(ctx: Context, text: str) -> Reply:
    """`ignore N COUNT`: its message only for a person (gdb's from_tty); COUNT is an
    expression, the errors gdb's ignore_command's."""
    words = text.split(None, 1)
    if not words:
        raise MiError("Argument required (a breakpoint number).")
    number = words[0]
    if number.startswith("$"):  # gdb's get_number: a convenience variable's value
        try:
            number = str(int(ctx.session.evaluate(number).value.split()[0], 0))
        except (AliceError, ValueError, IndexError):
            number = "0"
    if not number.isdigit() or int(number) == 0:
        raise MiError(f"bad breakpoint number: '{text.strip()}'")
    if len(words) < 2:
        raise MiError("Second argument (specified ignore-count) is missing.")
    count = words[1].strip()
    if not re.fullmatch(r"-?\d+", count):  # gdb evaluates it
        count = ctx.session.evaluate(count).value.split()[0]
    breaks.after(ctx if ctx.from_tty else dataclasses.replace(ctx, cli=False), number, count)
    return None


def register_breakpoint_commands(registry: CliRegistry) -> None:
    """Registered after console.py's own `continue` and `ignore`, which these replace."""
    registry.add("commands", _commands, "command")
    from aliceserver.adapters.mi.control_commands import register as register_control

    register_control(registry)
    registry.add("end", _end)
    registry.add("save", _save)
    registry.add("continue", _continue, "c", "cont", "fg")
    registry.add("ignore", _ignore)
    from aliceserver.adapters.mi.dprintf import (
        register_console,  # it needs this module's neighbours
    )

    register_console(registry)



def _fix_script_output(ctx: Context, args: list[str]) -> Reply:
    """-fix-breakpoint-script-output: MI 2 and 3 write a script as the list MI 4 does."""
    ctx.session.config.script_fixed = True
    return None


def register(registry: MiRegistry) -> None:
    registry.add("break-commands", _break_commands)
    registry.add("fix-breakpoint-script-output", _fix_script_output)
