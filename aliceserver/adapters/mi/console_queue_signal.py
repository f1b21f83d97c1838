"""gdb's `queue-signal SIGNAL`: the selected thread gets the signal when it resumes (it
replaces the one it stopped with; 0 clears that), as gdb 13's queue_signal_command: a
name (SIGUSR1), gdb's numbers 1-15, or an expression; refused for a signal set not to
pass to the program."""

from __future__ import annotations

from aliceserver.adapters.mi.console_signals import _by_gdb_number, _linux_signals, _system_number
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.debuggers.target_queries import TargetQueries


def _signal(ctx: Context, text: str) -> int:
    """This system's number of the signal `text` names; 0 for none."""
    if text in _linux_signals():
        return _system_number(text)
    session = ctx.session
    inferior = session.inferior
    info = session.debugger.evaluate(text, inferior.selected_tid, inferior.selected_level)
    if info.error:
        raise MiError(info.value)
    try:
        number = int(info.value.split()[0], 0)
    except ValueError:
        raise MiError("Invalid number \"" + info.value + "\".") from None
    return 0 if number == 0 else _system_number(_by_gdb_number(number))


def queue_signal(ctx: Context, text: str) -> Reply:
    session = ctx.session
    inferior = session.inferior
    if inferior.process is None or inferior.core is not None:
        raise MiError("The program is not being run.")
    if inferior.running:
        raise MiError("Cannot execute this command while the selected thread is running.")
    if not text.strip():
        raise MiError("Argument required (signal number).")
    number = _signal(ctx, text.strip())
    if number and not session.debugger.signal_policy(number).pass_to_program:
        raise MiError("Signal handling set to not pass this signal to the program.")
    debugger = session.debugger
    if not isinstance(debugger, TargetQueries) or inferior.selected_tid is None:
        raise MiError('"queue-signal" is not supported by aliceserver here.')
    debugger.queue_signal(inferior.selected_tid, number)
    return None


def signal_command(ctx: Context, text: str) -> Reply:
    """gdb's signal_command: resume the program with the signal (0: with none, clearing
    the one it stopped with), whatever `handle` says of it."""
    session = ctx.session
    inferior = session.inferior
    if inferior.process is None or inferior.core is not None:
        raise MiError("The program is not being run.")
    if not text.strip():
        raise MiError("Argument required (signal number).")
    number = _signal(ctx, text.strip())
    debugger = session.debugger
    if not isinstance(debugger, TargetQueries) or inferior.selected_tid is None:
        raise MiError('"signal" is not supported by aliceserver here.')
    name = text.strip() if text.strip() in _linux_signals() else _name_of(number)
    said = f"Continuing with signal {name}.\n" if number else "Continuing with no signal.\n"
    debugger.queue_signal(inferior.selected_tid, number)
    from aliceserver.adapters.mi.commands_exec import resume

    return resume(ctx, said)


def _name_of(number: int) -> str:
    return next((name for name in _linux_signals() if _system_number(name) == number), str(number))


def register(registry: CliRegistry) -> None:
    registry.add("queue-signal", queue_signal)
    registry.add("signal", signal_command)
