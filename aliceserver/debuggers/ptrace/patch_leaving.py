"""Threads taken out of jump patches' trampolines before the debugger lets the program go
(a detach): once the patches are gone, nobody would be there for a trampoline's int3.

A thread at the trampoline's entry has the program's registers: it goes back to the site.
One stopped at a stop or judge trap has them in the saved block: put back at the site
(patched_sites.put_back). Any other is single-stepped, alone, until it reaches one of those
or leaves the patch's code (the displaced copy jumps back into the program); signals it
meets are kept for its detach. The trap flag of those steps, which pushfq saves with the
program's flags, is cleared after (`step_out`, shared with patch_displaced's signal case).
"""

from __future__ import annotations

import logging
import signal as sig
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.ptrace.patched_sites import PatchedSite, put_back
from aliceserver.debuggers.ptrace.patches.inject import step_alone
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.tracee import Tracee

log = logging.getLogger(__name__)

_MAX_STEPS: Final = 100_000  # a trampoline has no loop but its ring's retry
_TRAP_FLAG: Final = 0x100  # eflags.TF


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
    step_out(inferior, t, sites, _keep_for_detach)


def step_out(
    inferior: Inferior, t: Tracee, sites: Sequence[PatchedSite], on_signal: Callable[[Tracee, int], None]
) -> PatchedSite | None:
    """`t` out of any of `sites`' code: the site it was put back at (from the trampoline's
    entry or a trap), or None (it was in none, or stepped back into the program). Steps
    through pushfq leave our trap flag in the flags it saves, restored by popfq or put_back:
    it is cleared, else the program traps once nobody single-steps it (a SIGTRAP kills it)."""
    stepped = False
    for _ in range(_MAX_STEPS):
        pc = int(inferior.regs(t).rip)
        site = _site_of(pc, sites)
        if site is not None and pc != site.trampoline.entry and pc not in site.trap_addresses():
            _single_step(inferior, t, on_signal)
            stepped = True
            continue
        if site is not None and pc == site.trampoline.entry:  # the program's registers
            inferior.regs(t).rip = site.plan.address
            t.regs_dirty = True
        elif site is not None:
            put_back(inferior, t, site)
        if stepped:
            _clear_trap_flag(inferior, t)
        return site
    log.warning("thread %d did not leave the trampoline at %#x", t.tid, int(inferior.regs(t).rip))
    return None


def _clear_trap_flag(inferior: Inferior, t: Tracee) -> None:
    regs = inferior.regs(t)
    if int(regs.eflags) & _TRAP_FLAG:
        regs.eflags = int(regs.eflags) & ~_TRAP_FLAG
        t.regs_dirty = True


def _single_step(inferior: Inferior, t: Tracee, on_signal: Callable[[Tracee, int], None]) -> None:
    if t.regs_dirty:
        inferior.libc.set_regs(t.tid, t.regs)
        t.regs_dirty = False
    step_alone(inferior, t, on_signal, "leaving a trampoline")
    inferior.libc.get_regs(t.tid, t.regs)
    t.regs_valid = True


def _keep_for_detach(t: Tracee, signal: int) -> None:
    if signal != sig.SIGSTOP:  # (a stop of ours; the detach resumes the thread anyway)
        t.pending_signal = t.pending_signal or signal  # delivered at its detach
