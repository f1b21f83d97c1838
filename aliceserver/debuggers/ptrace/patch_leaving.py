"""Threads taken out of jump patches' trampolines before the debugger lets the program go
(a detach): once the patches are gone, nobody would be there for a trampoline's int3.

A thread at the trampoline's entry has the program's registers: it goes back to the site.
One stopped at a stop or judge trap has them in the saved block: put back at the site
(patched_sites.put_back). Any other is single-stepped, alone, until it reaches one of those
or leaves the patch's code (the displaced copy jumps back into the program); signals it
meets are kept for its detach.
"""

from __future__ import annotations

import logging
import signal as sig
from collections.abc import Sequence
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.ptrace.patched_sites import PatchedSite, put_back
from aliceserver.debuggers.ptrace.patches.inject import step_alone
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.tracee import Tracee

log = logging.getLogger(__name__)

_MAX_STEPS: Final = 100_000  # a trampoline has no loop but its ring's retry


def leave_trampolines(inferior: Inferior, sites: Sequence[PatchedSite]) -> None:
    """Every stopped thread whose pc is in one of `sites`' code moved to the program state it
    stands for (every thread stopped)."""
    if not sites:
        return
    for t in inferior.threads.values():
        if not t.gone and not t.new and not t.running:
            try:
                _leave(inferior, t, sites)
            except (OSError, TargetError) as error:  # (it went meanwhile: nothing to move)
                log.debug("thread %d left in a trampoline: %s", t.tid, error)


def _site_of(pc: int, sites: Sequence[PatchedSite]) -> PatchedSite | None:
    return next((site for site in sites if site.holds(pc)), None)


def _leave(inferior: Inferior, t: Tracee, sites: Sequence[PatchedSite]) -> None:
    for _ in range(_MAX_STEPS):
        pc = int(inferior.regs(t).rip)
        site = _site_of(pc, sites)
        if site is None:
            return
        if pc == site.trampoline.entry:  # the program's registers, as the jump left them
            inferior.regs(t).rip = site.plan.address
            t.regs_dirty = True
            return
        if pc in site.trap_addresses():
            put_back(inferior, t, site)
            return
        _single_step(inferior, t)
    log.warning("thread %d did not leave the trampoline at %#x", t.tid, int(inferior.regs(t).rip))


def _single_step(inferior: Inferior, t: Tracee) -> None:
    if t.regs_dirty:
        inferior.libc.set_regs(t.tid, t.regs)
        t.regs_dirty = False
    step_alone(inferior, t, _keep_for_detach, "leaving a trampoline")
    inferior.libc.get_regs(t.tid, t.regs)
    t.regs_valid = True


def _keep_for_detach(t: Tracee, signal: int) -> None:
    if signal != sig.SIGSTOP:  # (a stop of ours; the detach resumes the thread anyway)
        t.pending_signal = t.pending_signal or signal  # delivered at its detach
