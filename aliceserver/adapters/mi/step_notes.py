"""What gdb says when `step` or `next` starts where the line table knows no line: its
prepare_one_step (with `step-mode off`) steps to the exit of the function around the pc
and says so first, on the console of whichever interpreter asked (MI's too)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi.output import stream
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.registry import Context
    from aliceserver.adapters.mi.session import MiSession


def say_no_line(ctx: Context, tid: int) -> None:
    """The note below, in one console record on MI as gdb writes it (one gdb_printf)."""
    note = no_line_note(ctx.session, tid)
    if note and ctx.ui.is_mi:
        ctx.ui.line(stream("~", note))
    else:
        ctx.console(note)


def no_line_note(session: MiSession, tid: int) -> str:
    """gdb's `Single stepping until exit from function NAME,...` for a step from frame 0
    of `tid` where it has no line; empty where it has one, or no name is known (gdb then
    refuses to step: a case left to the engine as before)."""
    try:
        frame = session.frames.frame(tid, 0)
    except AliceError:
        return ""
    if (frame.source is not None and frame.source.line) or frame.called_from_debugger or frame.inlined:
        return ""
    # find_pc_partial_function's name: the trampoline's symbol, not its frame label
    name = frame.symbol.name if frame.signal_trampoline else frame.function
    if not name:
        return ""
    return f"Single stepping until exit from function {name},\nwhich has no line number information.\n"
