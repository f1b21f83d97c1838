"""The console's `list`, `thread apply`/`frame apply` (and taas, tfaas, faas), `return` and
`save breakpoints`: MI's wrappers of the shared gdb commands in adapters/gdbcommands."""

from __future__ import annotations

import dataclasses

from aliceserver.adapters.gdbcommands.apply import (
    ApplyFlags,
    apply_each,
    parse_flags,
    parse_thread_ids,
    thread_header,
)
from aliceserver.adapters.mi import commands_exec as execution
from aliceserver.adapters.mi.breakpoint_commands import register_breakpoint_commands
from aliceserver.adapters.mi.commands_stack import target_id
from aliceserver.adapters.mi.console_frames import frame_line, print_frame
from aliceserver.adapters.mi.console_list import register_list
from aliceserver.adapters.mi.queries import confirm
from aliceserver.adapters.mi.registry import CliHandler, CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.return_values import return_value, returning_function
from aliceserver.adapters.mi.thread_names import named
from aliceserver.errors import AliceError


@dataclasses.dataclass
class _Captured(Context):
    """A command run for `thread apply`/`frame apply`: what it prints is kept, as gdb's
    execute_command_to_string keeps it, to be shown after the header."""

    captured: list[str] = dataclasses.field(default_factory=list)

    def console(self, text: str, *, line_start: bool = False) -> None:
        self.captured.append(text)


def _run_captured(ctx: Context, command: str, tid: int, level: int) -> str:
    from aliceserver.adapters.mi.console import run_console_command  # it registers these commands

    inferior = ctx.session.inferior
    saved = inferior.selected_tid, inferior.selected_level
    inferior.selected_tid, inferior.selected_level = tid, level
    captured = _Captured(**{f.name: getattr(ctx, f.name) for f in dataclasses.fields(Context)})
    try:
        run_console_command(captured, command)
    finally:
        if inferior.selected_tid == tid and inferior.selected_level == level:  # the command moved none
            inferior.selected_tid, inferior.selected_level = saved
    return "".join(captured.captured)


def _apply_to_threads(ctx: Context, numbers: list[int], command: str, flags: ApplyFlags) -> None:
    session = ctx.session
    inferior = session.inferior
    names = {info.tid: named(session, info).name for info in session.debugger.threads()} if inferior.process else {}

    def header(number: int) -> str:
        tid = inferior.tid_of(number)
        assert tid is not None
        return thread_header(number, target_id(session, tid), names.get(tid, ""))

    def run(number: int, text: str) -> str:
        tid = inferior.tid_of(number)
        assert tid is not None
        return _run_captured(ctx, text, tid, 0)

    apply_each(numbers, header, run, command, flags, ctx.console)


def _live_numbers(ctx: Context) -> list[int]:
    session = ctx.session
    inferior = session.inferior
    if inferior.process is None:
        return []
    return sorted(inferior.threads.get(info.tid) or inferior.add_thread(info.tid) for info in session.debugger.threads())


def _thread_apply(ctx: Context, text: str) -> Reply:
    """`thread apply all|ID-LIST [OPTION]... COMMAND`."""
    word, _, rest = text.strip().partition(" ")
    if word == "all":
        flags, command = parse_flags("thread apply all", rest, ascending=True)
        if not command:
            raise MiError("Please specify a command at the end of 'thread apply all'")
        live = _live_numbers(ctx)
        _apply_to_threads(ctx, live if flags.ascending else live[::-1], command, flags)
        return None
    ranges, rest = parse_thread_ids(text)
    flags, command = parse_flags("thread apply", rest)
    if not command:
        raise MiError("Please specify a command following the thread ID list")
    live = _live_numbers(ctx)
    numbers: list[int] = []
    for first, last in ranges:
        if last is None:  # I.*: every thread, quietly
            numbers += live
            continue
        for number in range(first, last + 1):
            if number in live:
                numbers.append(number)
            else:
                numbers.append(-number)  # told in order, as gdb warns while it goes
    for number in numbers:
        if number < 0:
            ctx.log(f"warning: Unknown thread {-number}\n")
        else:
            _apply_to_threads(ctx, [number], command, flags)
    return None


def _taas(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("Please specify a command to apply on all threads")
    return _thread_apply(ctx, f"all -s {text}")


def _tfaas(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("Please specify a command to apply on all frames of all threads")
    return _thread_apply(ctx, f"all -s -- frame apply all -s {text}")


def _frame_apply(ctx: Context, text: str) -> Reply:
    """`frame apply all|COUNT|level LEVEL... [OPTION]... COMMAND`."""
    session = ctx.session
    word, _, rest = text.strip().partition(" ")
    if not word:
        raise MiError("Missing COUNT argument.")
    tid = session.require_stopped("No stack.")
    selected = session.inferior.selected_level
    depth = len(session.frames.stack(tid))
    if word == "all":
        levels = list(range(depth))
    elif word == "level":
        spec, _, rest = rest.strip().partition(" ")
        first, _, last = spec.partition("-")
        if not first.isdigit() or (last and not last.isdigit()):
            raise MiError("Missing or invalid LEVEL... argument")
        levels = [n for n in range(int(first), int(last or first) + 1) if n < depth]
    else:
        try:
            count = int(word, 0)
        except ValueError:
            raise MiError(f"Invalid number \"{word}\".") from None
        levels = list(range(selected, min(depth, selected + count))) if count >= 0 else \
            list(range(max(depth + count, 0), depth))
    flags, command = parse_flags(f"frame apply {word}", rest)
    if not command:
        raise MiError("Please specify a command to apply on the selected frames")
    apply_each(levels, lambda level: frame_line(ctx, tid, level),
               lambda level, line: _run_captured(ctx, line, tid, level), command, flags, ctx.console)
    return None


def _faas(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("Please specify a command to apply on all frames")
    return _frame_apply(ctx, f"all -s {text}")


def _with_apply(own: CliHandler, apply: CliHandler) -> CliHandler:
    """`thread apply ...`/`frame apply ...` as `apply`; any other argument is the command's own."""

    def handler(ctx: Context, text: str) -> Reply:
        word, _, rest = text.strip().partition(" ")
        return apply(ctx, rest) if word == "apply" else own(ctx, text)

    return handler


def _thread_apply_command(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("Please specify a thread ID list")
    return _thread_apply(ctx, text)


def _function_at(ctx: Context, address: int) -> str:
    try:
        symbol = ctx.session.debugger.lookup_address(address)
    except AliceError:
        return ""
    return symbol.name or ""


def _jump(ctx: Context, text: str) -> Reply:
    """gdb's jump_command: asks before jumping into another function, then continues
    there."""
    session = ctx.session
    inferior = session.inferior
    if inferior.process is None:  # gdb asks for a process before an argument
        raise MiError("The program is not being run.")
    if not text:
        raise MiError("Argument required (starting address).")
    if inferior.process is not None and not inferior.running and inferior.selected_tid is not None:
        places = session.debugger.resolve_location(session.breakpoints.normalize(text, last_displayed=True))
        if places:
            here = _function_at(ctx, session.frames.frame(inferior.selected_tid, 0).pc)
            there = places[0]
            line = there.source.line if there.source is not None else 0
            if here and _function_at(ctx, there.address) != here:
                confirm(ctx, f"Line {line} is not in `{here}'.  Jump anyway? ")
    return execution.jump(ctx, text)


def _return(ctx: Context, text: str) -> Reply:
    """gdb's return_command: the value is computed (cast to the function's return type)
    before the selected frame and those inner to it are popped; a person is asked first
    and shown the frame now current."""
    session = ctx.session
    tid = session.require_stopped("No selected frame.")
    level = session.inferior.selected_level
    frame = session.frames.frame(tid, level)
    function = returning_function(session, frame)
    write = return_value(session, function, text) if text else None
    execution.refuse_return_into_call(ctx)
    if ctx.from_tty:
        asked = f"Make {function} return now? " if function else "Make selected stack frame return now? "
        confirm(ctx, asked, "Not confirmed")  # gdb's words here, with no period
    execution.force_return(ctx)
    if write is not None:
        write(tid)
    if ctx.from_tty:
        top = session.frames.frame(tid, 0)
        print_frame(ctx, frame_line(ctx, tid, 0), top)  # a missing file: gdb's error
    return None


def register_workflow(registry: CliRegistry) -> None:
    """Registered after the commands they extend (`thread`, `frame`, `list`)."""
    register_list(registry)
    for name, apply in (("thread", _thread_apply_command), ("frame", _frame_apply)):
        found = registry.lookup(name)
        assert found is not None, name
        registry.add(name, _with_apply(found[1], apply))
    registry.add("jump", _jump, "j")
    registry.add("return", _return)
    registry.add("taas", _taas)
    registry.add("tfaas", _tfaas)
    registry.add("faas", _faas)
    register_breakpoint_commands(registry)
