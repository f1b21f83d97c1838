"""gdb's trace experiment commands as its native target answers them (tracepoint.c,
mi-main.c): -trace-status, -trace-start, -trace-stop, -trace-save, -trace-frame-collected,
-trace-find, and the console's tfind, tsave and tdump.

No target here runs a trace experiment (gdbserver's agent does, for gdb), so there is
never a trace frame: every search finds none, as gdb's native target does, and MI's
-trace-find then shows the selected frame, as gdb's does."""

from __future__ import annotations

import os
import re

from aliceserver.adapters.mi import displays
from aliceserver.adapters.mi.buildargv import build_argv
from aliceserver.adapters.mi.console_frames import print_frame_lines
from aliceserver.adapters.mi.console_targets import target_name
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, MiRegistry, Pairs, Reply
from aliceserver.adapters.mi.remote_commands import remote_held
from aliceserver.adapters.mi.trace_variables import long_value
from aliceserver.adapters.mi.tracepoints import tstart
from aliceserver.errors import AliceError

NOT_FOUND = "Target failed to find requested trace frame."
NO_FRAME = "No current trace frame."
# What gdb's tfile writer leaves before it asks the target for its trace state variables,
# which a target without trace support refuses: its header, register block size, status.
_TFILE_START = b"\x7fTRACE0\nR 0\nstatus 0;tunknown:0;tframes:0;tcreated:0;tfree:0;tsize:0\n\n"
_COLLECTED_USAGE = ("Usage: -trace-frame-collected [--var-print-values PRINT_VALUES] "
                    "[--comp-print-values PRINT_VALUES] [--registers-format FORMAT][--memory-contents]")  # fmt: skip


def _refused(ctx: Context) -> MiError:
    """gdb's tcomplain: the target does not do trace experiments."""
    if remote_held(ctx.session) is not None:  # gdbserver's agent would: not we
        return MiError("Target does not support this command.")
    target = target_name(ctx)
    return MiError(f"You can't do that when your target is `{target}'")


def _status(ctx: Context, args: list[str]) -> Reply:
    if remote_held(ctx.session) is not None:
        raise _refused(ctx)
    return [("supported", "0")]


def _start(ctx: Context, args: list[str]) -> Reply:
    return tstart(ctx, "")


def _stop(ctx: Context, args: list[str]) -> Reply:
    raise _refused(ctx)


def _save_file(ctx: Context, name: str, target_saves: bool) -> None:
    """gdb's trace_save_tfile on a target without traces: `-r` is refused at once, else
    the file is begun (its first lines) before the target refuses the rest."""
    if target_saves:
        raise _refused(ctx)
    path = os.path.expanduser(name)
    try:
        with open(path, "wb") as out:
            out.write(_TFILE_START)
    except OSError as error:
        raise MiError(f"Unable to open file '{path}' for saving trace data ({error.strerror})") from None
    raise _refused(ctx)


def _save(ctx: Context, args: list[str]) -> Reply:
    options = getopt("trace-save", args, flags="r", long=("ctf",))
    if len(options.rest) != 1:
        raise MiError("Exactly one argument required (file in which to save trace data)")
    if options.has("ctf"):
        raise _refused(ctx)  # gdb begins a CTF directory first; we write none
    _save_file(ctx, options.rest[0], options.has("r"))
    return None


def _tsave(ctx: Context, text: str) -> Reply:
    filename, target_saves, ctf = None, False, False
    for word in build_argv(text):
        if word == "-r":
            target_saves = True
        elif word == "-ctf":
            ctf = True
        elif word.startswith("-"):
            raise MiError(f"unknown option `{word}'")
        else:
            filename = word
    if filename is None:
        raise MiError("Argument required (file in which to save trace data).")
    if ctf:
        raise _refused(ctx)
    _save_file(ctx, filename, target_saves)
    return None


def _frame_collected(ctx: Context, args: list[str]) -> Reply:
    options = ("var-print-values", "comp-print-values", "registers-format")
    rest = list(args)
    while rest and rest[0].startswith("--") and rest[0][2:] in (*options, "memory-contents"):
        rest = rest[2:] if rest[0][2:] in options else rest[1:]
    if rest:
        raise MiError(_COLLECTED_USAGE)
    raise MiError(NO_FRAME)  # gdb's tracepoint_number is -1: no frame was ever found


def _has_stack(ctx: Context) -> bool:
    inferior = ctx.session.inferior
    return inferior.process is not None and not inferior.running and inferior.selected_tid is not None


def _frames_forgotten(ctx: Context) -> None:
    """What gdb's tfind_1 leaves when no frame is found: its frame cache cleared, and with
    it the frame selected (frame 0 of the thread is selected again, with no notice), and
    the trace frame's context variables: `$trace_line` -1."""
    if _has_stack(ctx):
        ctx.session.inferior.selected_level = 0
    try:
        ctx.session.debugger.evaluate("$trace_line = -1", calls=False)
    except AliceError:
        pass  # the program runs: the variable keeps its value until the next search


def _shown_frame(ctx: Context) -> Pairs:
    """What gdb's print_stack_frame (LOC_AND_ADDRESS) adds to -trace-find's answer."""
    if not _has_stack(ctx):
        return []
    session = ctx.session
    tid, level = session.selected_frame()
    return [("frame", session.frames.tuple(session.frames.frame(tid, level), tid, args=True))]


def _line_found(ctx: Context, spec: str) -> None:
    """-trace-find line SPEC: the line must be one the program has."""
    session = ctx.session
    if re.fullmatch(r"\d+", spec.strip()):
        source = session.current_source()
        if source is None or not session.debugger.resolve_location(f"{source}:{spec.strip()}"):
            raise MiError(f"No line {spec.strip()} in the current file.")
    elif not session.debugger.resolve_location(spec.strip()):
        raise MiError(f'Function "{spec.strip()}" not defined.')


_ARITY = {"frame-number": (2, "frame number is required"), "tracepoint-number": (2, "tracepoint number is required"),
          "pc": (2, "PC is required"), "pc-inside-range": (3, "Start and end PC are required"),
          "pc-outside-range": (3, "Start and end PC are required"), "line": (2, "Line is required")}  # fmt: skip


def _find(ctx: Context, args: list[str]) -> Reply:
    """-trace-find MODE ...: found="0", and the selected frame as gdb prints it (but `none`)."""
    if not args:
        raise MiError("trace selection mode is required")
    mode = args[0]
    if mode == "none":
        _frames_forgotten(ctx)
        return [("found", "0")]
    if mode not in _ARITY:
        raise MiError(f"Invalid mode '{mode}'")
    count, message = _ARITY[mode]
    if len(args) != count:
        raise MiError(message)
    if mode.startswith("pc"):
        for expression in args[1:]:
            long_value(ctx, expression)  # gdb's parse_and_eval_address: its errors
    elif mode == "line":
        _line_found(ctx, args[1])
    _frames_forgotten(ctx)
    return [("found", "0"), *_shown_frame(ctx)]


def _not_found(ctx: Context) -> Reply:
    """gdb's tfind_1 when no frame is found: an error when typed, words from a script."""
    if ctx.from_tty:
        raise MiError(NOT_FOUND)
    _frames_forgotten(ctx)
    ctx.console("No trace frame found\n")
    return None


def _left(ctx: Context) -> Reply:
    """`tfind none`: no trace frame was looked at; the program's frame is shown again."""
    _frames_forgotten(ctx)
    ctx.console("No longer looking at any trace frame\n")
    if ctx.from_tty and _has_stack(ctx):
        tid, level = ctx.session.selected_frame()
        print_frame_lines(ctx, tid, level)
        text = displays.stop_text(ctx.session)
        if text:
            ctx.console(text)
    return None


_TFIND_SUBCOMMANDS = ("end", "line", "none", "outside", "pc", "range", "start", "tracepoint")


def _tfind(ctx: Context, text: str) -> Reply:
    """`tfind [N|-|-1]` and its subcommands start, end, none, pc, tracepoint, line, range, outside."""
    word, _, rest = text.strip().partition(" ")
    rest = rest.strip()
    # a subcommand by any prefix (their first letters differ); other words are an expression
    word = next((name for name in _TFIND_SUBCOMMANDS if word and name.startswith(word)), word)
    if word in ("end", "none"):
        return _left(ctx)
    if word == "start":
        return _not_found(ctx)
    if word == "pc":
        if rest:
            long_value(ctx, rest)
        else:
            ctx.session.require_stopped()  # gdb reads the pc: "No registers." without a program
        return _not_found(ctx)
    if word == "tracepoint":
        if not rest:
            raise MiError("No current tracepoint -- please supply an argument.")
        long_value(ctx, rest)
        return _not_found(ctx)
    if word in ("range", "outside"):
        if not rest:
            ctx.console(f"Usage: tfind {word} STARTADDR, ENDADDR\n")
            return None
        for part in rest.split(",", 1):
            long_value(ctx, part)
        return _not_found(ctx)
    if word == "line":
        if rest:
            _line_found(ctx, rest)
        else:
            ctx.session.require_stopped()
        return _not_found(ctx)
    if word == "-":
        raise MiError("not debugging trace buffer")
    if word in ("", "-1"):
        return _not_found(ctx) if word == "" else _left(ctx)
    number = long_value(ctx, text)
    if number < -1:
        raise MiError(f"invalid input ({number} is less than zero)")
    return _left(ctx) if number == -1 else _not_found(ctx)


def register(registry: MiRegistry) -> None:
    registry.add("trace-status", _status)
    registry.add("trace-start", _start)
    registry.add("trace-stop", _stop)
    registry.add("trace-save", _save)
    registry.add("trace-frame-collected", _frame_collected)
    registry.add("trace-find", _find)


def register_console(registry: CliRegistry) -> None:
    registry.add("tfind", _tfind)
    registry.add("tsave", _tsave)
    registry.add("tdump", lambda ctx, text: _no_frame())


def _no_frame() -> Reply:
    raise MiError(NO_FRAME)
