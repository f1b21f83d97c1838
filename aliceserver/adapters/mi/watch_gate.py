"""Whether a watchpoint's trap stops the program, as gdb's bpstat_stop_status decides it
(bpstat_check_watchpoint): a write watchpoint whose value did not change does not stop
(x86 traps every write), nor a read one whose value did (x86 traps its writes); then its
thread (`watch X thread N`), its condition (`watch X if COND`, `condition N COND`) and
its ignore count, each in gdb's order. The value it keeps is the new one either way.
The engine asks it at the trap, on its own thread (`judge`), so a trap it passes over
lets a `next` or `finish` under way go on as gdb's does; the stop's verdict and what it
had to say are kept for the stop's report (`verdict`).

And gdb's `watch EXPR [thread N] [task N] [mask M] [if COND]` (watch_command_1): the
`PARAMETER VALUE` pairs read from the end, then the expression up to its `if`."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.break_keywords import Keywords, condition_end, thread_number
from aliceserver.adapters.mi.frames import display_value
from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers import events as ev
from aliceserver.debuggers.catch_events import WatchGate
from aliceserver.debuggers.model import VariableScope
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoint_record import MiBreakpoint
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.debuggers.model import StackFrame

_WRITE = "hw watchpoint"  # breakpoint_record.WATCH_TYPES[""]
_READ = "read watchpoint"


@dataclass
class Verdict:
    """The watchpoints a trap stops for, in number order (empty: go on), and what gdb
    says while it judges them (a condition that cannot be tested), told with the stop."""

    watchers: list[MiBreakpoint]
    logs: list[str] = field(default_factory=list)  # to every UI's log stream
    consoles: list[str] = field(default_factory=list)  # to every console
    trapped: tuple[int, ...] = ()  # the engine's watches the trap named, judged at the trap

    def tell(self, session: MiSession) -> None:
        for text in self.logs:
            for ui in session.uis:
                if not ui.closed:
                    ui.log(text)
        for text in self.consoles:
            session.console_all(text)


def install(session: MiSession) -> None:
    """Let the engine ask `judge` at each trap, where it can (catch_events.WatchGate)."""
    debugger = session.debugger
    if isinstance(debugger, WatchGate):
        debugger.set_watch_gate(lambda stop: judge(session, stop), owner="mi")


def judge(session: MiSession, stop: ev.Stopped) -> bool:
    """On the engine's thread: whether the trap stops; its verdict kept for the stop."""
    found = stopping(session, stop)
    if found is None:
        return True
    if found.watchers or found.logs or found.consoles:
        found.trapped = stop.breakpoint_ids
        session.breakpoints.watch_verdicts[stop.thread_id] = found
    return bool(found.watchers)


def verdict(session: MiSession, stop: ev.Stopped) -> Verdict | None:
    """The verdict on a watch stop: the one the engine asked for at its trap, else judged
    now (an engine that does not ask); None when it is no watchpoint's trap judged here."""
    kept = session.breakpoints.watch_verdicts.pop(stop.thread_id, None)
    if stop.reason is not ev.StopReason.WATCHPOINT or stop.watches_left:
        return None
    return kept if kept is not None and kept.trapped == stop.breakpoint_ids else stopping(session, stop)


def stopping(session: MiSession, stop: ev.Stopped) -> Verdict | None:
    """The verdict on this watch stop; None when it is no watchpoint's trap this module
    judges."""
    if stop.reason is not ev.StopReason.WATCHPOINT or stop.watches_left:
        return None
    found = session.breakpoints.for_watch_ids(
        stop.breakpoint_ids + _sharing(session, stop.breakpoint_ids)
    )
    if not found:
        return None
    told = Verdict([])
    told.watchers = [bp for bp in sorted(found, key=lambda bp: bp.number) if _stops(session, stop, bp, told)]
    return told


def _sharing(session: MiSession, ids: tuple[int, ...]) -> tuple[int, ...]:
    """The engine's other watchpoints on the memory of those that trapped: gdb checks
    every watchpoint whose address the trap names (two on `a` both tell their change)."""
    try:
        watches = session.debugger.watchpoints()
    except AliceError:
        return ()
    hit = [(w.address, w.address + w.size) for w in watches if w.id in ids]
    return tuple(w.id for w in watches if w.id not in ids and w.enabled
                 and any(w.address < end and start < w.address + w.size for start, end in hit))  # fmt: skip


def remember_frame(session: MiSession, bp: MiBreakpoint) -> None:
    """Keep the selected frame for a watchpoint whose expression reads its locals, and its
    function for a condition that does."""
    where = session.console_selection()
    if where.thread_id is None:
        return
    frame = session.frames.frame(where.thread_id, where.level)
    if _reads_locals(session, bp.spec or bp.location):
        bp.watch_frame = (frame.function, frame.cfa)
    condition_changed(session, bp)


def condition_changed(session: MiSession, bp: MiBreakpoint) -> None:
    """A watchpoint's new condition: the function whose locals it reads, if any (gdb's
    cond_exp_valid_block), from the selected frame."""
    bp.cond_function = None
    where = session.console_selection()
    if where.thread_id is not None and _reads_locals(session, bp.condition):
        bp.cond_function = session.frames.frame(where.thread_id, where.level).function or ""


def watch_level(session: MiSession, tid: int, bp: MiBreakpoint) -> int | None:
    """The level of the watchpoint's frame in the thread's stack now (0 for one that has
    none); None when that frame is not on the stack."""
    if bp.watch_frame is None:
        return 0
    return _level(session, tid, lambda f: (f.function, f.cfa) == bp.watch_frame)


def _level(session: MiSession, tid: int, wanted: Callable[[StackFrame], bool]) -> int | None:
    try:
        frames = session.frames.stack(tid)
    except AliceError:
        return None
    return next((f.level for f in frames if wanted(f)), None)


def value_now(session: MiSession, tid: int, bp: MiBreakpoint) -> str | None:
    """The watched value as the stop shows it, read in the watchpoint's frame."""
    level = watch_level(session, tid, bp)
    try:
        return display_value(session.evaluate(bp.value_expression, tid=tid, level=level or 0))
    except AliceError:
        return None


def _reads_locals(session: MiSession, text: str | None) -> bool:
    """Whether `text` names a local or an argument of the selected frame (gdb's innermost
    block of the expression is a function's)."""
    where = session.console_selection()
    if not text or where.thread_id is None:
        return False
    names: set[str] = set()
    for scope in (VariableScope.LOCALS, VariableScope.ARGUMENTS):
        try:
            names |= {
                info.name
                for info in session.debugger.frame_variables(where.thread_id, where.level, scope)
            }
        except AliceError:
            continue
    return bool(names & set(re.findall(r"(?<![\w.$>])[A-Za-z_]\w*", text)))


def _stops(session: MiSession, stop: ev.Stopped, bp: MiBreakpoint, told: Verdict) -> bool:
    if bp.gdb_type == _READ:  # x86 traps its writes too: a changed value was written
        new = value_now(session, stop.thread_id, bp)
        if new is not None and new != bp.old_value:
            bp.old_value = new
            return False
    if bp.gdb_type == _WRITE:
        new = value_now(session, stop.thread_id, bp)
        if new is not None and new == bp.old_value:
            return False  # gdb's WP_VALUE_NOT_CHANGED
    if bp.thread is not None and session.inferior.threads.get(stop.thread_id) != bp.thread:
        return False
    if bp.condition:
        # gdb: the innermost frame of the function whose locals the condition reads
        level = (
            0
            if bp.cond_function is None
            else _level(session, stop.thread_id, lambda f: f.function == bp.cond_function)
        )
        if level is None:  # gdb stops, and says why
            told.logs.append("warning: Watchpoint condition cannot be tested in the current scope\n")
            return True
        try:
            value = session.debugger.evaluate(f"({bp.condition}) != 0", stop.thread_id, level).value
        except AliceError as error:  # gdb stops, and says why
            told.consoles.append(f"Error in testing breakpoint condition:\n{error}\n")
            return True
        if value.strip() in ("0", "false"):
            _keep_value(session, stop, bp)
            return False
    if bp.ignore > 0:
        bp.ignore -= 1
        bp.hits += 1  # gdb counts an ignored hit
        _keep_value(session, stop, bp)
        return False
    return True


def _keep_value(session: MiSession, stop: ev.Stopped, bp: MiBreakpoint) -> None:
    """A write watchpoint that did not stop keeps the value it changed to (the next
    trap compares with it, as gdb's watchpoint_check)."""
    if bp.gdb_type == _WRITE:
        new = value_now(session, stop.thread_id, bp)
        bp.old_value = new if new is not None else bp.old_value


def watch_keywords(session: MiSession, text: str) -> tuple[str, Keywords]:
    """The expression of `watch TEXT` and its thread and condition, with gdb's errors."""
    thread: int | None = None
    rest = text.rstrip()
    while True:  # `thread N`, `task N`, `mask M` from the end, each a whole word
        found = re.search(r"(?:^|[ \t])(thread|task|mask)[ \t]+(\S+)$", rest)
        if found is None or not rest[: found.start()].strip():
            break
        word, value = found.group(1), found.group(2)
        if word == "thread":
            thread = thread_number(session, value)
        elif word == "task":
            if not re.fullmatch(r"[+-]?\d+", value):
                raise MiError(f"Invalid task ID: {value}")
            raise MiError(f"Unknown task {int(value)}.")
        else:
            raise MiError("This target does not support masked watchpoints.")
        rest = rest[: found.start()].rstrip()
    end = condition_end(rest, 0)
    expression, tail = rest[:end].strip(), rest[end:].strip()
    condition = None
    if tail:
        word, _, after = tail.partition(" ")
        if not ("if".startswith(word) and word):
            raise MiError("Junk at end of command.")
        end = condition_end(after, 0)
        condition, tail = after[:end], after[end:].strip()
        if tail:
            raise MiError("Junk at end of command.")
    return expression, Keywords(condition, thread)
