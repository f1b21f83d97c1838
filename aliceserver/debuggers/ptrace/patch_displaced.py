"""Threads stopped inside a jump patch's displaced copy of its site, shown where the
program is: a watchpoint that fires on a displaced store, or a signal there, leaves the
thread's pc in the copy (the trampoline's page), where no symbol, line or frame is.

At a reported stop (every thread stopped) such a thread is moved to the original
instruction its pc stands for (relocate.py's map from the copy back to the originals):
its registers are the program's there, as the copy runs with them. When that instruction
is inside the patched bytes (not the site itself, nor the first one after the span), the
patch comes out first, so the original instructions are back under the pc (the engine's
next continue patches the site again once no thread is inside it).

A thread about to get a signal while its pc is in a patch's code is first moved out
(`leave_for_signal`), as gdbserver moves threads out of its jump pads: the handler's frame
then returns to the program (its backtrace shows the site's function, as with a trap),
never into a trampoline, which has no symbol, line or unwind information.
"""

from __future__ import annotations

import functools
import signal as sig
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.ptrace.patch_leaving import step_out
from aliceserver.debuggers.ptrace.patches.inject import _requeue
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


def leave_for_signal(inferior: Inferior, t: Tracee, sites: list[PatchedSite]) -> None:
    """`t` (stopped, a signal to be delivered) out of any patch's code (patch_leaving's
    step_out, our steps' trap flag cleared): put back at the site, it runs the jump again
    after the handler, its arrival counted once. Signals met meanwhile are sent again after."""
    met: list[int] = []
    try:
        site = step_out(inferior, t, sites, functools.partial(_met, inferior, met))
        if site is not None:
            site.judged += 1  # counted again when it runs the jump
    finally:
        for signo in met:  # (sent during the steps, each would stop the next step again)
            _requeue(inferior.pid, t.tid, signo)


def _met(inferior: Inferior, met: list[int], t: Tracee, signo: int) -> None:
    if signo == sig.SIGSTOP and inferior.wake_sent:
        inferior.wake_sent = False  # the engine's wake-up: the command it was for runs now
    else:
        met.append(signo)
