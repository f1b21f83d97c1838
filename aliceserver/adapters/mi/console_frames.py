"""Console commands on the stack and the selected frame and thread: backtrace, frame,
select-frame, up, down, thread."""

from __future__ import annotations

import re

from aliceserver.adapters.mi import sigframes
from aliceserver.adapters.mi.backtrace_options import past_main, past_option
from aliceserver.adapters.mi.commands_stack import target_id
from aliceserver.adapters.mi.console_symbols import selected_frame_level
from aliceserver.adapters.mi.frames import hex16, printed_value
from aliceserver.adapters.mi.inferiors import parse_thread_id, thread_label
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.selection_events import announce, print_selection
from aliceserver.debuggers.model import StackFrame, VariableScope


def frame_what(ctx: Context, default: str, chosen: str | None = None) -> str:
    """gdb's print_what for a frame: the command's own (`default`) unless `print frame-info`
    (or bt's -frame-info, `chosen`) says otherwise."""
    what = chosen or ctx.session.settings.get("print frame-info")
    return default if what == "auto" else what


def frame_line(ctx: Context, tid: int, level: int, what: str = "location", arguments: str | None = None) -> str:
    session = ctx.session
    frame = session.frames.frame(tid, level)
    callee = session.frames.frame(tid, level - 1) if level > 0 else None
    if frame.signal_trampoline:  # gdb's print_frame_info: the label alone, whatever print_what
        return f"#{level:<2d} {sigframes.SIGNAL_HANDLER_CALLED}\n"
    if callee is None or sigframes.is_label_frame(callee):  # at its pc: frame 0, a call's or signal's caller
        with_pc = not session.at_line_start(frame)
    else:  # a return address; none shown where an inlined call was made (its line is the call's)
        with_pc = not callee.inlined
    if what == "source-line" and frame.source is not None and frame.source.line:
        return f"{hex16(frame.pc)}\t" if with_pc and session.settings.get("print address") == "on" else ""
    text = session.frames.describe(frame, tid, with_pc=with_pc, what=what, arguments=arguments)
    return f"#{level:<2d} {text}\n"  # gdb's level field is 2 wide, then a space (#299 main)


def _backtrace(ctx: Context, text: str) -> Reply:
    session = ctx.session
    tid = session.require_stopped("No stack.")
    words = text.split()
    full = False
    options: dict[str, str] = {}
    while words and (words[0] in ("full", "-full", "no-filters", "-no-filters", "hide", "-hide")
                     or words[0] in ("-frame-info", "-frame-arguments", "-past-main", "-past-entry")):
        word = words.pop(0)
        if word in ("-frame-info", "-frame-arguments"):  # gdb's frame print options
            options[word] = _option_value(ctx, word, words.pop(0) if words else "")
        elif word in ("-past-main", "-past-entry"):  # boolean: a value only if one follows
            value = words.pop(0) if words and words[0].lower() in _BOOLEAN_WORDS else "on"
            options[word] = past_option(ctx, word, value)
        full = full or word.endswith("full")  # gdb's qualifiers come before the count
    if "-past-main" in options:
        with past_main(ctx.session, options["-past-main"] == "on"):
            return _shown_backtrace(ctx, tid, words, full, options)
    return _shown_backtrace(ctx, tid, words, full, options)


def _shown_backtrace(ctx: Context, tid: int, words: list[str], full: bool, options: dict[str, str]) -> Reply:
    session = ctx.session
    what = frame_what(ctx, "location", options.get("-frame-info"))
    counts = [_frame_count(ctx, " ".join(words))] if words else []
    n = int(counts[0]) if counts else None
    # `bt N` unwinds one frame past the N shown (to tell whether more follow), not the whole stack
    frames = session.frames.stack(tid, 0, n + 1) if n is not None and n >= 0 else session.frames.stack(tid)
    more = n is not None and n >= 0 and len(frames) > n
    if n is not None:
        frames = frames[:n] if n >= 0 else frames[n:]
    for frame in frames:
        head = frame_line(ctx, tid, frame.level, what, options.get("-frame-arguments"))
        if what in ("source-line", "source-and-location"):
            print_frame(ctx, head, frame)
        else:
            ctx.console(head)
        if full:
            locals_ = session.debugger.frame_variables(tid, frame.level, VariableScope.LOCALS)
            if not locals_:  # gdb: no block at all where there is no debug info
                nodebug = frame.source is None and not frame.signal_trampoline
                ctx.console("No symbol table info available.\n" if nodebug else "No locals.\n")
            for info in locals_:
                ctx.console(f"        {info.name} = {printed_value(info)}\n")
    # gdb tells only a person (from_tty: not -batch, not a script) that frames were left
    # out after the last shown; `bt -N` shows the outermost, so none follow.
    if more and ctx.from_tty:
        ctx.console("(More stack frames follow...)\n")
    return None


_BOOLEAN_WORDS = ("on", "off", "1", "0", "yes", "no", "enable", "disable")


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
    head = frame_line(ctx, tid, level, what)
    if what in ("source-line", "source-and-location"):
        print_frame(ctx, head, ctx.session.frames.frame(tid, level))
    else:
        ctx.console(head)


def _up(ctx: Context, text: str, silent: bool = False) -> Reply:
    session = ctx.session
    tid = session.require_stopped("No stack.")
    count = _frame_count(ctx, text) if text else 1  # an expression, as gdb's parse_and_eval_long
    level = session.inferior.selected_level + count
    depth = len(session.frames.stack(tid, 0, max(level, session.inferior.selected_level) + 1))  # no deeper than needed
    if level >= depth:
        if session.inferior.selected_level == depth - 1:
            raise MiError("Initial frame selected; you cannot go up.")
        level = depth - 1
    _move(ctx, max(level, 0), silent)
    return None


def _move(ctx: Context, level: int, silent: bool) -> None:
    """up's and down's selection; their -silently forms print nothing and tell no one (gdb
    notifies only from up and down themselves)."""
    if silent:
        ctx.session.inferior.selected_level = level
    else:
        _select(ctx, level)


def _down(ctx: Context, text: str, silent: bool = False) -> Reply:
    session = ctx.session
    session.require_stopped("No stack.")
    count = _frame_count(ctx, text) if text else 1  # an expression, as gdb's parse_and_eval_long
    level = session.inferior.selected_level - count
    if level < 0:
        if session.inferior.selected_level == 0:
            raise MiError("Bottom (innermost) frame selected; you cannot go down.")
        level = 0
    _move(ctx, level, silent)
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


def print_frame(ctx: Context, head: str, frame: StackFrame) -> None:
    """A frame's line and its source line, or gdb's error for a missing source file."""
    report = ctx.session.frames.source_report(frame)
    ctx.console(head + report.text)
    if report.error:
        ctx.log(report.error)


def register_frames(registry: CliRegistry) -> None:
    add = registry.add
    add("backtrace", _backtrace, "bt", "where")
    add("frame", _frame, "f")
    add("up", _up)
    add("up-silently", lambda ctx, text: _up(ctx, text, silent=True))
    add("select-frame", _select_frame)
    add("down", _down, "do", "dow")
    add("down-silently", lambda ctx, text: _down(ctx, text, silent=True))
    add("thread", switch_thread)
