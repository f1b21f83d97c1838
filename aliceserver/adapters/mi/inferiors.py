"""gdb's inferior-qualified thread ids (`INF.THR`) and its inferior commands, for the one
inferior aliceserver debugs: `info inferiors`, `inferior [1]`, thread id parsing for
`thread`, `info threads ID...`; `add-inferior`, `clone-inferior` and `remove-inferiors`
are refused in gdb's words where it has some."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.selection_events import announce

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

# gdb's thread id: THR or INF.THR (tid-parse.c), and in lists also ranges and `INF.*`.
_THREAD_ID = re.compile(r"(?:(?P<inferior>\d+)\.)?(?P<thread>\d+)$")
_LIST_ITEM = re.compile(r"(?:(?P<inferior>\d+)\.)?(?:(?P<star>\*)|(?P<first>\d+)(?:-(?P<last>\d+))?)$")
ONE_INFERIOR = "aliceserver debugs one inferior"


def parse_thread_id(text: str) -> int:
    """The thread number of `THR` or `1.THR`; gdb's errors for a malformed id, thread 0 or
    another inferior (none exists here)."""
    match = _THREAD_ID.match(text)
    if match is None or int(match["thread"]) == 0:
        raise MiError(f"Invalid thread ID: {text}")
    inferior = match["inferior"]
    if inferior is not None and int(inferior) != 1:
        if int(inferior) == 0:
            raise MiError(f"Invalid thread ID: {text}")
        raise MiError(f"No inferior number '{int(inferior)}'")
    return int(match["thread"])


@dataclass(frozen=True, slots=True)
class ThreadFilter:
    """The threads `info threads ID...` names: (first, last) ranges of inferior 1."""

    ranges: tuple[tuple[int, int], ...]

    def wants(self, number: int) -> bool:
        return any(first <= number <= last for first, last in self.ranges)


def thread_filter(text: str) -> ThreadFilter | None:
    """gdb's tid_range_parser over `info threads`' arguments; None: no arguments (all)."""
    words = text.split()
    if not words:
        return None
    ranges: list[tuple[int, int]] = []
    for i, word in enumerate(words):
        match = _LIST_ITEM.match(word)
        first = int(match["first"]) if match is not None and match["first"] else 1
        last = int(match["last"]) if match is not None and match["last"] else first
        inferior = match["inferior"] if match is not None else None
        if match is None or (match["star"] and inferior is None) or first == 0 or last < first \
                or (inferior is not None and int(inferior) == 0):
            raise MiError(f"Invalid thread ID: {' '.join(words[i:])}")
        if inferior is not None and int(inferior) != 1:
            continue  # no such inferior: it names no thread
        ranges.append((1, 1 << 31) if match["star"] else (first, last))
    return ThreadFilter(tuple(ranges))


def _description(ctx: Context) -> str:
    process = ctx.session.inferior.process
    return f"process {process.pid}" if process is not None else "<null>"


def inferior_line(session: MiSession) -> str:
    """`N [process PID] (PROGRAM)`, as gdb's `[Switching to inferior ...]` names it."""
    inferior = session.inferior
    process = inferior.process
    description = f"process {process.pid}" if process is not None else "<null>"
    return f"{inferior.number} [{description}] ({inferior.program or '<noexec>'})"


def thread_label(session: MiSession, tid: int) -> str:
    """gdb's print_thread_id: `T`, or `N.T` once there is more than inferior 1."""
    inferior = session.inferior
    number = inferior.threads.get(tid, 0)
    return str(number) if inferior.number == 1 else f"{inferior.number}.{number}"


def info_inferiors(ctx: Context, text: str) -> None:
    words = text.split()
    if any(not word.isdigit() for word in words):
        raise MiError("Arguments must be numbers or '$' variables.")
    if words and "1" not in {str(int(word)) for word in words}:
        ctx.console("No inferiors.\n")
        return
    inferior = ctx.session.inferior
    connection = "1 (native)" if inferior.process is not None else ""
    ctx.console("  Num  Description       Connection           Executable        \n"
                f"* 1    {_description(ctx):<17} {connection:<20} {inferior.program or '':<17} \n")


def _inferior(ctx: Context, text: str) -> Reply:
    session = ctx.session
    inferior = session.inferior
    if not text.strip():
        ctx.console(f"[Current inferior is {inferior_line(session)}]\n")
        return None
    word = text.strip()
    if not word.isdigit():  # gdb evaluates it as an expression
        raise MiError(f'No symbol "{word}" in current context.')
    if int(word) != 1:
        raise MiError(f"Inferior ID {int(word)} not known.")
    # as gdb: every UI hears of it, even when this inferior already was the current one
    live = inferior.process is not None and inferior.selected_tid is not None
    announce(ctx, inferior=True, thread=live, frame=live)
    return None


def _remove_inferiors(ctx: Context, text: str) -> Reply:
    words = text.split()
    if not words:
        raise MiError("Requires an argument (inferior id(s) to remove)")
    for word in words:
        if not word.isdigit():
            raise MiError("Arguments must be numbers or '$' variables.")
        number = int(word)
        if number == 1:
            ctx.log("warning: Can not remove current inferior 1.\n")
        else:
            ctx.log(f"warning: Inferior ID {number} not known.\n")
    return None


def _refused(name: str):  # type: ignore[no-untyped-def]
    def handler(ctx: Context, text: str) -> Reply:
        raise MiError(f'"{name}" is not supported: {ONE_INFERIOR}.')

    return handler


def register_inferiors(registry: CliRegistry) -> None:
    registry.add("inferior", _inferior)
    registry.add("add-inferior", _refused("add-inferior"))
    registry.add("clone-inferior", _refused("clone-inferior"))
    registry.add("remove-inferiors", _remove_inferiors)
