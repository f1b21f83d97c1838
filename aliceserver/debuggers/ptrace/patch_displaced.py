"""Threads stopped inside a jump patch's displaced copy of its site, shown where the
program is: a watchpoint that fires on a displaced store, or a signal there, leaves the
thread's pc in the copy (the trampoline's page), where no symbol, line or frame is.

At a reported stop (every thread stopped) such a thread is moved to the original
instruction its pc stands for (relocate.py's map from the copy back to the originals):
its registers are the program's there, as the copy runs with them. When that instruction
is inside the patched bytes (not the site itself, nor the first one after the span), the
patch comes out first, so the original instructions are back under the pc (the engine's
next continue patches the site again once no thread is inside it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.ptrace.patches.relocate import relocation

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.patched_sites import PatchedSite
    from aliceserver.debuggers.ptrace.tracee import Tracee


def original_address(site: PatchedSite, pc: int) -> int | None:
    """The program's address that `pc`, in `site`'s displaced copy, stands for (None:
    `pc` is not in the copy)."""
    entry = site.trampoline.displaced_entry
    if not entry <= pc < site.trampoline.end:
        return None
    moved = relocation(site.plan.original, site.plan.address, entry)
    offset = pc - entry
    if offset >= len(moved.code):  # the jump back to the end of the span
        return site.plan.end
    # The relocated instruction holding `offset` (a call's expansion is several).
    start = max(origin for origin in moved.origins if origin[0] <= offset)
    return site.plan.address + start[1]


def bring_back(
    inferior: Inferior, sites: Iterable[PatchedSite], remove: Callable[[PatchedSite], None]
) -> dict[int, int]:
    """Every stopped thread in a displaced copy moved to its original address; `remove`
    takes out a patch that covers such an address (first: no patch comes out with a thread
    inside its span). {tid: its old pc} of those moved."""
    targets: dict[int, tuple[Tracee, int, int]] = {}
    covering: list[PatchedSite] = []
    for site in list(sites):
        for t in inferior.threads.values():
            if t.gone or t.new or t.running:
                continue
            pc = int(inferior.regs(t).rip)
            target = original_address(site, pc)
            if target is None:
                continue
            targets[t.tid] = (t, pc, target)
            if site.plan.address < target < site.plan.end and site not in covering:
                covering.append(site)
    for site in covering:
        remove(site)  # (its code is kept while a thread's pc is in it)
    for t, _, target in targets.values():
        inferior.regs(t).rip = target
        t.regs_dirty = True
    return {tid: pc for tid, (_, pc, _) in targets.items()}


def shown_stop(
    inferior: Inferior, stop: Stopped, sites: Iterable[PatchedSite], remove: Callable[[PatchedSite], None]
) -> Stopped:
    """`stop` with its thread, and every other, out of the displaced copies (bring_back)."""
    moved = bring_back(inferior, sites, remove)
    if moved.get(stop.thread_id) != stop.address:
        return stop
    return replace(stop, address=int(inferior.regs(inferior.threads[stop.thread_id]).rip))
