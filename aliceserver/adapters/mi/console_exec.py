"""gdb's console commands that run, step, stop and leave the program: run/start/starti,
continue, next/step/finish/until/advance/jump, stepi/nexti, kill, detach, attach, interrupt."""

from __future__ import annotations

import logging
import re

from aliceserver.adapters.mi import commands_exec as execution
from aliceserver.adapters.mi import commands_misc as misc
from aliceserver.adapters.mi import console_tui, core_commands
from aliceserver.adapters.mi.inferior_list import as_current, find_inferior
from aliceserver.adapters.mi.queries import confirm
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.debuggers.model import StepKind
from aliceserver.errors import AliceError

logger = logging.getLogger(__name__)


def _count(text: str, default: int = 1) -> int:
    if not text:
        return default
    try:
        return int(text, 0)
    except ValueError:
        raise MiError(f'Invalid number "{text}".') from None


# --- execution -----------------------------------------------------------------------------
def _run(ctx: Context, text: str, start: bool = False, first_instruction: bool = False) -> Reply:
    session = ctx.session
    if session.inferior.process is not None and ctx.from_tty:  # gdb's kill_if_already_running
        confirm(ctx, "The program being debugged has been started already.\nStart it from the beginning? ",
                "Program not restarted.")
    if text:
        execution.set_args(ctx, text)
    if not session.inferior.program:  # gdb's start sets its tbreak on main first
        if start:
            raise MiError('No symbol table loaded.  Use the "file" command.')
        if ctx.from_tty:
            ctx.console("Starting program:  \n")  # gdb says it before it finds no program

    def announce() -> None:  # after the old process's end (gdb's kill_if_already_running)
        if session.inferior.program and ctx.from_tty:
            args = " ".join(session.inferior.args)
            ctx.console(f"Starting program: {session.inferior.program} {args}\n")

    return execution.run(ctx, start=start, first_instruction=first_instruction, announce=announce)


def _step(kind: StepKind, name: str = "step"):  # type: ignore[no-untyped-def]
    def handler(ctx: Context, text: str) -> Reply:
        return execution.step(ctx, kind, _count(text), name)

    return handler


def _continue(ctx: Context, text: str) -> Reply:
    if text:
        number = ctx.session.inferior.selected_tid
        hit = [bp for bp in ctx.session.breakpoints.sorted() if bp.hits]
        if hit and number is not None:
            hit[-1].ignore = max(0, _count(text) - 1)
    return execution.resume(ctx)


def _finish(ctx: Context, text: str) -> Reply:
    if text:  # after gdb's checks of the program and its thread
        ctx.session.require_process()
        if ctx.session.inferior.running:
            raise MiError("Cannot execute this command while the selected thread is running.")
        raise MiError('The "finish" command does not take any arguments.')
    return execution.finish(ctx)


def _until(ctx: Context, text: str) -> Reply:
    return execution.until(ctx, text or None)


def _advance(ctx: Context, text: str) -> Reply:
    if not text:
        raise MiError("Argument required (a location).")
    return execution.until(ctx, text, anywhere=True)  # gdb's advance stops in any frame


def _jump(ctx: Context, text: str) -> Reply:
    if ctx.session.inferior.process is None:  # gdb asks for a process before an argument
        raise MiError("The program is not being run.")
    if not text:
        raise MiError("Argument required (starting address).")
    return execution.jump(ctx, text)


def _kill(ctx: Context, text: str) -> Reply:
    if ctx.session.inferior.core is not None:  # a core target has nothing to kill
        confirm(ctx, "Kill the program being debugged? ")
        raise MiError("You can't do that without a process to debug.")
    ctx.session.require_process()
    confirm(ctx, "Kill the program being debugged? ")
    execution.kill(ctx)
    return None


def _detach(ctx: Context, text: str, *, quitting: bool = False) -> Reply:
    session = ctx.session
    words = text.split()
    if words and len(words[0]) > 1 and "checkpoint".startswith(words[0]):
        return console_tui.no_checkpoint(ctx, "detach", " ".join(words[1:]))
    if words and "inferiors".startswith(words[0]):
        return _detach_inferiors(ctx, words[1:])
    if core_commands.close_core(ctx):
        return None
    session.require_process()
    process = session.inferior.process
    assert process is not None
    if ctx.from_tty:
        ctx.console(f"Detaching from program: {session.inferior.program or process.program}, process {process.pid}\n")
    return misc.detach(ctx, quitting=quitting)


def _detach_inferiors(ctx: Context, words: list[str]) -> Reply:
    """gdb's `detach inferiors ID...`: each one with a process detached, a warning for
    each other one (its current inferior kept)."""
    if not words:
        raise MiError("Requires argument (inferior id(s) to detach)")
    numbers: list[int] = []
    for word in words:
        found = re.fullmatch(r"(\d+)(?:-(\d+))?", word)
        if found is None:  # (gdb's number_or_range_parser ends there, silently)
            break
        numbers += range(int(found.group(1)), int(found.group(2) or found.group(1)) + 1)
    for number in numbers:
        inferior = find_inferior(ctx.session, number)
        if inferior is None or inferior.process is None:
            ctx.log(f"warning: Inferior ID {number} {'not known' if inferior is None else 'is not running'}.\n")
            continue
        with as_current(ctx.session, inferior):
            _detach(ctx, "")
    return None


def _attach(ctx: Context, text: str) -> Reply:
    if not text:
        raise MiError("Argument required (process-id to attach).")
    program = ctx.session.inferior.program
    if ctx.from_tty and text.strip().isdigit():  # gdb's target_announce_attach
        where = f"process {int(text)}"
        ctx.console(f"Attaching to program: {program}, {where}\n" if program else f"Attaching to {where}\n")
    return misc.attach(ctx, text)


def _interrupt(ctx: Context, text: str) -> Reply:
    return execution.interrupt(ctx)


def end_program(ctx: Context) -> None:
    """gdb's quit_force (kill_or_detach), after -gdb-exit's ^exit, `quit` or the end of
    -batch: a program still alive is killed, quietly, an attached one detached, each told
    as the console's `kill` and `detach` tell them (=thread-exited, =thread-group-exited)."""
    process = ctx.session.inferior.process
    if process is None or ctx.session.inferior.core is not None:
        return
    try:
        if process.attached:
            _detach(ctx, "", quitting=True)
        else:
            execution.kill(ctx, quiet=True)
    except AliceError as error:  # (closing the debugger ends it anyway)
        logger.info("program not ended at exit: %s", error)


def register(registry: CliRegistry) -> None:
    add = registry.add
    add("run", _run, "r")
    add("start", lambda ctx, text: _run(ctx, text, start=True))
    add("starti", lambda ctx, text: _run(ctx, text, first_instruction=True))
    add("continue", _continue, "c", "cont", "fg")
    add("next", _step(StepKind.OVER), "n")
    add("step", _step(StepKind.INTO), "s")
    add("finish", _finish, "fin")
    add("until", _until, "u")
    add("advance", _advance)
    add("jump", _jump, "j")
    add("stepi", lambda ctx, text: execution.stepi(ctx, False, _count(text)), "si")
    add("nexti", lambda ctx, text: execution.stepi(ctx, True, _count(text)), "ni")
    add("kill", _kill, "k")
    add("detach", _detach)
    add("attach", _attach)
    add("interrupt", _interrupt)
