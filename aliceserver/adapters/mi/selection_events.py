"""gdb's user-selected-context notifications: when a command changes the selected inferior,
thread or frame, every UI hears of it in its own language (gdb's observers in
cli-interp.c and mi-interp.c). A console prints `[Switching to thread ...]` and the frame;
an MI channel gets the same lines as console records, then `=thread-selected`. A command
that changes nothing prints the selection on its own UI only and notifies no one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.output import Value, record
from aliceserver.adapters.mi.registry import Context
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.adapters.mi.ui import Ui


@dataclass(frozen=True, slots=True)
class Selected:
    """What the user has selected: compared before and after a command."""

    inferior: int
    tid: int | None
    level: int


def selected(session: MiSession) -> Selected:
    inferior = session.inferior
    return Selected(current_inferior_number(session), inferior.selected_tid, inferior.selected_level)


def current_inferior_number(session: MiSession) -> int:
    return session.inferior.number


def print_selection(ctx: Context, *, inferior: bool = False, thread: bool = False, frame: bool = False) -> None:
    """gdb's print_selected_inferior and print_selected_thread_frame on ctx's UI."""
    from aliceserver.adapters.mi.commands_stack import target_id
    from aliceserver.adapters.mi.console_frames import print_frame_lines
    from aliceserver.adapters.mi.inferiors import inferior_line, thread_label

    session = ctx.session
    state = session.inferior
    if inferior:
        ctx.console(f"[Switching to inferior {inferior_line(session)}]\n")
    tid = state.selected_tid
    if tid is None or tid not in state.threads or not (thread or frame):
        return
    if thread:
        head = f"[Switching to thread {thread_label(session, tid)} ({target_id(session, tid)})]"
        ctx.console(head + ("(running)\n" if state.running else "\n"))
    if frame and not state.running:
        print_frame_lines(ctx, tid, state.selected_level)


def announce(ctx: Context, *, inferior: bool = False, thread: bool = False, frame: bool = False,
             mi: bool = True, cli: bool = True) -> None:
    """The selection changed: tell every UI (and ctx's own, should it be none of them).
    `mi=False` for -thread-select and -stack-select-frame, whose answer is their own
    result, `cli=False` for `select-frame`, which is silent: gdb suppresses those."""
    session = ctx.session
    uis: list[Ui] = [ui for ui in session.uis if not ui.closed]
    if ctx.ui not in uis:
        uis.append(ctx.ui)
    for ui in uis:
        if (ui.is_mi and not mi) or (not ui.is_mi and not cli):
            continue
        here = Context(session, ui, cli=True, from_tty=False)
        try:
            print_selection(here, inferior=inferior, thread=thread, frame=frame)
        except AliceError as error:
            here.log(f"{error}\n")
        if ui.is_mi and (thread or frame):
            _thread_selected(session, ui)


def _thread_selected(session: MiSession, ui: Ui) -> None:
    state = session.inferior
    tid = state.selected_tid
    if tid is None or tid not in state.threads:
        return
    pairs: list[tuple[str, Value]] = [("id", str(state.threads[tid]))]
    if not state.running:
        try:
            level_frame = session.frames.frame(tid, state.selected_level)
            pairs.append(("frame", session.frames.tuple(level_frame, tid, args=True)))
        except AliceError:
            pass
    ui.line(record("=", "thread-selected", pairs))


def after_change(ctx: Context, before: Selected, *, mi: bool = True) -> bool:
    """Announce the thread and frame if the selection moved since `before`."""
    if selected(ctx.session) == before:
        return False
    announce(ctx, thread=True, frame=True, mi=mi)
    return True
