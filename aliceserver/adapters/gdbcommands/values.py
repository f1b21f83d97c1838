"""gdb's `show values` and `show convenience` (value.c): the session's value history and
convenience variables, which the engine keeps for every front end."""

from __future__ import annotations

from aliceserver.adapters.gdbcommands.selection import CommandMemory, Selection, Write
from aliceserver.debuggers.base import IDebugger
from aliceserver.errors import AliceError, ProtocolError

_PAGE = 10  # gdb shows ten history values at a time


def show_values(debugger: IDebugger, where: Selection, memory: CommandMemory, argument: str, write: Write) -> None:
    """`show values` (the last ten), `show values N` (ten around $N), `show values +` (the
    ten after those shown last)."""
    count = debugger.history_count()
    text = argument.strip()
    if not text:
        first = count - 9
    elif text == "+":
        first = memory.values_shown
    else:
        try:
            first = int(text, 0) - 5
        except ValueError:
            raise ProtocolError(f'No symbol "{text}" in current context.') from None
    first = max(first, 1)
    number = first
    for number in range(first, min(first + _PAGE, count + 1)):
        write(f"${number} = {_shown(debugger, where, f'${number}')}\n")
    memory.values_shown = number + 1 if count >= first else first


def show_convenience(debugger: IDebugger, where: Selection, write: Write) -> None:
    """Every convenience variable, newest first, as `$name = value`."""
    for name in debugger.convenience_names():
        write(f"${name} = {_shown(debugger, where, f'${name}')}\n")


def _shown(debugger: IDebugger, where: Selection, expression: str) -> str:
    """The value as print shows it (not recorded), or gdb's `<error: ...>` in its place."""
    try:
        info = debugger.evaluate(expression, where.thread_id, where.level)
    except AliceError as error:
        return f"<error: {error}>"
    return info.value
