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

from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.patched_sites import PatchedSite, put_back
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, decode

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.tracee import Tracee

log = logging.getLogger(__name__)

_WAIT_ONE: Final = binding.WALL | binding.WNOTHREAD
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
            except OSError as error:  # (it went meanwhile: nothing left to move)
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
    inferior.libc.ptrace(binding.PTRACE_SINGLESTEP, t.tid, 0, 0)
    _, status = inferior.libc.waitpid(t.tid, _WAIT_ONE)
    decoded = decode(status)
    if decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
        inferior._classify(t, decoded)
        raise OSError(f"thread {t.tid} ended")
    if decoded.kind is WaitKind.INTERRUPT:
        t.interrupt_sent = False
    elif decoded.kind is WaitKind.SIGNAL_STOP and decoded.value not in (sig.SIGTRAP, sig.SIGSTOP):
        t.pending_signal = t.pending_signal or decoded.value  # delivered at its detach
    inferior.libc.get_regs(t.tid, t.regs)
    t.regs_valid = True
