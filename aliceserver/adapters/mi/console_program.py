"""gdb's `info program` (infcmd.c's info_program_command): the process, where it stopped
and why, from the last stop (gdb's last target status and its stop_bpstat)."""

from __future__ import annotations

from aliceserver.adapters.mi.commands_stack import target_id
from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers import events as ev
from aliceserver.errors import AliceError

_DELETED = "It stopped at a breakpoint that has since been deleted.\n"
# A stop at a momentary breakpoint gdb deletes once there (finish, until, advance).
_MOMENTARY = (ev.StopReason.FUNCTION_FINISHED, ev.StopReason.BREAKPOINT)


def info_program(ctx: Context, text: str) -> None:
    session = ctx.session
    inferior = session.inferior
    if inferior.process is None or inferior.core is not None:
        ctx.console("The program being debugged is not being run.\n")
        return
    if inferior.running:
        raise MiError("Selected thread is running.")
    stop = inferior.run.last_stop
    if stop is None:
        raise MiError("No selected thread.")
    how = "attached" if inferior.process.attached else "child"
    try:
        pc = session.frames.frame(stop.thread_id, 0).pc
    except AliceError as error:
        raise MiError(str(error)) from None
    ctx.console(f"\tUsing the running image of {how} {target_id(session, stop.thread_id)}.\n"
                f"Program stopped at {pc:#x}.\n" + _why(ctx, stop))
    if ctx.from_tty:
        ctx.console('Type "info stack" or "info registers" for more information.\n')


def _why(ctx: Context, stop: ev.Stopped) -> str:
    if ctx.session.command_memory.stop_momentary:
        return _DELETED
    if stop.reason is ev.StopReason.STEP:
        return "It stopped after being stepped.\n"
    numbers = ctx.session.command_memory.stop_breakpoints
    if numbers:
        entries = ctx.session.breakpoints.entries
        return "".join(f"It stopped at breakpoint {n}.\n" if n in entries else _DELETED for n in numbers)
    if stop.reason in _MOMENTARY:
        return _DELETED
    if stop.reason in (ev.StopReason.SIGNAL, ev.StopReason.CRASH, ev.StopReason.PAUSE):
        from aliceserver.adapters.mi.notify import signal_meaning, signal_name

        name = "SIGINT" if stop.reason is ev.StopReason.PAUSE else signal_name(stop.signal, stop.signal_name)
        return f"It stopped with signal {name}, {signal_meaning(name)}.\n"
    return ""
