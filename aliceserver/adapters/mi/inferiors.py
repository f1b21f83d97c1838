"""gdb's inferior-qualified thread ids (`INF.THR`: parsing for `thread` and `info threads
ID...`, printing) and its inferior commands (`inferior [N]`; the list itself is in
inferior_list); `clone-inferior` is refused."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.inferior_list import (
    add_inferior,
    find_inferior,
    remove_inferiors,
    switch_inferior,
)
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.adapters.mi.state import Inferior

# gdb's thread id: THR or INF.THR (tid-parse.c), and in lists also ranges and `INF.*`.
_THREAD_ID = compiled_later(r"(?:(?P<inferior>\d+)\.)?(?P<thread>\d+)$")
_LIST_ITEM = compiled_later(r"(?:(?P<inferior>\d+)\.)?(?:(?P<star>\*)|(?P<first>\d+)(?:-(?P<last>\d+))?)$")


def parse_thread_id(session: MiSession, text: str) -> tuple[Inferior, int]:
    """The inferior and thread number `THR` or `INF.THR` names; gdb's errors for a malformed
    id, thread 0 or an inferior that does not exist."""
    match = _THREAD_ID().match(text)
    if match is None or int(match["thread"]) == 0:
        raise MiError(f"Invalid thread ID: {text}")
    if match["inferior"] is None:
        return session.inferior, int(match["thread"])
    number = int(match["inferior"])
    if number == 0:
        raise MiError(f"Invalid thread ID: {text}")
    owner = find_inferior(session, number)
    if owner is None:
        raise MiError(f"No inferior number '{number}'")
    return owner, int(match["thread"])


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
        match = _LIST_ITEM().match(word)
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
    qualified = len(session.inferiors) > 1 or inferior.number != 1
    return f"{inferior.number}.{number}" if qualified else str(number)


def _inferior(ctx: Context, text: str) -> Reply:
    session = ctx.session
    if not text.strip():
        ctx.console(f"[Current inferior is {inferior_line(session)}]\n")
        return None
    word = text.strip()
    if not word.isdigit():  # gdb evaluates it as an expression
        raise MiError(f'No symbol "{word}" in current context.')
    switch_inferior(ctx, int(word))
    return None


def register_inferiors(registry: CliRegistry) -> None:
    registry.add("inferior", _inferior)
    registry.add("add-inferior", add_inferior)
    registry.add("clone-inferior", _clone_refused)
    registry.add("remove-inferiors", remove_inferiors)


def _clone_refused(ctx: Context, text: str) -> Reply:
    raise MiError('"clone-inferior" is not supported: aliceserver copies no inferior; use add-inferior and file.')
