"""Jump patches standing in for the int3 traps of user breakpoints whose condition is false
most of the time (see patches/__init__.py for the parts).

A breakpoint gets a patch when its condition compiles to machine code at its address (the
trap's first hit compiles it: conditions.py keeps the IR), or when its front end's gate
has hits to let go (an ignore count, a DAP hit condition: patch_counts.py). The patch goes
in at the next moment every thread is stopped (that hit, when the condition is false,
stops the others for it; or the user's next continue). The trampoline filters: it lets
false conditions and the hits to let go pass, stops (stop_trap) otherwise and hands over
(judge_trap) when it cannot decide; either way the thread is put back at the site with the
program's registers and the breakpoint is judged as at a trap (its full condition, thread,
hit count, log message: the front end's gate), so both paths give the same stops. Every
arrival is counted (patched_sites.py) for the hit counts a trap would give. A thread the
judgement lets go, or one the user resumes from the site, runs the displaced instructions
(displaced_entry). Steps lift every patch (the traps come back): a single step must never
wander into a trampoline. A fault in the condition's code is the condition's error: the
patch is removed, the thread put back at the site, and the trap judges that hit, so the
general evaluator says "Cannot access memory..." as it does for traps.

Fork children: a detached child gets the original bytes back; when the child is followed,
the parent is let go with the original bytes and the child keeps the patches and areas.
After an exec, patches and areas are forgotten. A site that cannot be patched keeps its
trap and `refused` says why.
"""

from __future__ import annotations

import functools
import logging
import signal as sig
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.events import Output, Stopped
from aliceserver.debuggers.hits import HitPolicy
from aliceserver.debuggers.logpoints import LogSpec, log_spec
from aliceserver.debuggers.ptrace import patched_logs as logs
from aliceserver.debuggers.ptrace.conditions import ExpressionCondition
from aliceserver.debuggers.ptrace.patches.inject import all_stopped
from aliceserver.debuggers.ptrace.patches.install import PatchTable
from aliceserver.debuggers.ptrace.tracee import _NONE, _RESUME, Tracee, _Action
from aliceserver.errors import AliceError, TargetError

# The parts that make, run and remove patches (code generation, trampolines, areas,
# displaced copies) are imported when a breakpoint first has a candidate for a patch, or
# a patch is there: a session whose breakpoints have no condition never uses them.
if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.patched_sites import PatchedSite
    from aliceserver.debuggers.ptrace.patches.area import PatchArea
    from aliceserver.debuggers.ptrace.patches.sites import Refusal, SitePlan
    from aliceserver.debuggers.ptrace.patches.trampoline import RingBuffer
    from aliceserver.debuggers.ptrace.state import ProcessAccess
    from aliceserver.debuggers.ptrace.traps import PhysicalTrap
    from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir
    from aliceserver.debuggers.symbols.process import ProcessSymbols

log = logging.getLogger(__name__)

_FAULTS: Final = (sig.SIGSEGV, sig.SIGBUS)
_FOR_NOW: Final = "for now: "


# What a patch judges: the breakpoints' conditions (none: an ignore count alone), the IR
# of their `||` (None: always true), and a logpoint's spec (patched_logs.py).
_Judged = tuple[tuple[ExpressionCondition, ...], "ir.Node | None", "LogSpec | None"]


def _for_now(reason: str) -> str:
    """A refusal that may not hold at the next stop."""
    return _FOR_NOW + reason


def necessary_condition(condition: object) -> ExpressionCondition | None:
    """The expression condition a breakpoint's condition cannot hold without (the front
    ends' gates judge it first and do nothing more when it is false), or None."""
    for _ in range(4):  # gates wrap one another at most a few deep
        if isinstance(condition, ExpressionCondition):
            return condition
        if isinstance(condition, HitPolicy):
            condition = condition.condition
            continue
        necessary = getattr(condition, "necessary", None)  # the MI's gate (adapters/mi)
        if not callable(necessary):
            return None
        condition = necessary()
    return None


class JumpPatches:
    """The live process's patched breakpoints (tracer thread only)."""

    enabled_at_start = True  # the setting's default (tests run the same scenario both ways)
    log_ring_records: int | None = None  # a logpoint ring's records, when fewer than it could hold

    def __init__(self, access: ProcessAccess) -> None:
        self.enabled = self.enabled_at_start  # `set breakpoint jump-patches`
        self._access = access
        self._inferior: Inferior | None = None
        self.sites: dict[int, PatchedSite] = {}
        self._by_trap: dict[int, PatchedSite] = {}  # stop, judge and log traps' addresses
        self._retired: list[PatchedSite] = []  # removed, their code kept while a thread is in it
        self._areas: dict[tuple[str, int], PatchArea] = {}
        # site -> why a trap, and for which condition (None: a passing reason, tried again)
        self.refused: dict[int, tuple[tuple[ExpressionCondition, ...] | None, str]] = {}
        self._rerun: set[int] = set()  # threads put back at a site to run its jump again
        self.logs = logs.LogRings(self._tell)  # logpoints' rings, drained while it runs

    def _tell(self, output: Output) -> None:
        inferior = self._inferior  # (the drainer's thread too: the process's event queue)
        if inferior is not None:
            inferior.events.put(output)

    # --- what breakpoints get -----------------------------------------------------------
    def _table(self) -> PatchTable:
        return self._access.patches

    @property
    def _symbols(self) -> ProcessSymbols:
        return self._access.source.symbols

    def _candidate(self, trap: PhysicalTrap) -> _Judged | str | None:
        """What a patch at `trap` would judge, why it cannot have one, or None (no reason
        for a patch: no condition nor ignore count, disabled, not compiled yet). Several
        breakpoints here: the `||` of their conditions, each judged by its gate at a stop."""
        wanted = [bp for bp in trap.logical if bp.enabled]
        if (
            not self.enabled
            or not wanted
            or any(bp.internal or bp.condition is None for bp in wanted)
        ):
            return None  # (one that stops at every hit is best served by its trap)
        conditions = [necessary_condition(bp.condition) for bp in wanted]
        spec = log_spec(wanted[0].condition) if len(wanted) == 1 else None
        if spec is not None:
            values = logs.value_nodes(spec, trap.address)
            if values is None or isinstance(values, str):
                return values
        if len(wanted) == 1 and conditions[0] is None:
            if spec is not None:
                return (), None, spec
            from aliceserver.debuggers.ptrace.patch_counts import counting_gate

            counting = counting_gate(wanted[0].condition)
            return ((), None, None) if counting is not None and counting.ignored() > 0 else None
        nodes = []
        for condition in conditions:
            if condition is None:
                return None
            compiled, node = condition.machine_ir(trap.address)
            if not compiled:
                return None
            if node is None:
                return "the condition is not compiled to machine code here"
            nodes.append(node)
        from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir

        either = functools.reduce(lambda left, right: ir.Logical("||", left, right), nodes)
        return tuple(c for c in conditions if c is not None), either, spec

    def refusal(self, address: int) -> str | None:
        known = self.refused.get(address)
        return None if known is None else known[1]

    def note(self, address: int) -> str:
        """The breakpoint's state as `maint info breakpoints` and DAP tell it."""
        site = self.sites.get(address)
        if site is not None:
            from aliceserver.debuggers.ptrace.patches.trampoline import RingBuffer

            strings = site.log is not None and site.log.strings
            longer = f"; a %s of {RingBuffer.STRING_BYTES} bytes or more is printed at a trap" if strings else ""
            return f"jump patch to {site.code_at:#x}{longer}"
        refusal = self.refusal(address)
        trap = self._inferior.traps.by_address.get(address) if self._inferior is not None else None
        if refusal is None and trap is not None:  # not tried yet, but known already
            candidate = self._candidate(trap)
            refusal = candidate if isinstance(candidate, str) else None
        return "" if refusal is None else f"patch refused: {refusal}"

    def _current(self, inferior: Inferior) -> None:
        if inferior is not self._inferior:
            # The shared table's other patches are the new process's (calls recorded from
            # its exec stop): only ours go.
            self.forget(others_too=False)
            self._inferior = inferior

    def forget(self, *, others_too: bool = True) -> None:
        """The process exec'd or is gone: its patches and areas with it (their counts kept,
        their logpoints' last records told); `others_too`: the call recorder's as well."""
        table = self._table()
        for address in [] if others_too else self.sites:
            table.by_address.pop(address, None)
        self.fold_counts()
        self.logs.close()
        for site in self.sites.values():
            site.window.settle()
        for area in self._areas.values():
            area.discard()
        self._areas.clear()
        self.sites.clear()
        self._by_trap.clear()
        self._retired.clear()
        self.refused.clear()
        self._rerun.clear()
        if others_too:
            table.forget_all()

    # --- at a stop, before the program goes on --------------------------------------------
    def before_continue(self, inferior: Inferior) -> None:
        """The user's continue (every thread stopped): patches made, rebuilt or removed as
        the breakpoints now say, and threads at a site sent through its displaced copy."""
        self._current(inferior)
        self._free_retired(inferior)
        for site in list(self.sites.values()):
            if self._candidate(site.trap) != (site.conditions, site.node, site.log):
                self._remove(inferior, site)
            else:  # the ignore count as the gate has it now (`ignore` while stopped)
                site.window.reopen(judging=self._counting_now(inferior, site))
        for trap in list(inferior.traps.by_address.values()):
            if trap.address not in self.sites:
                self._try(inferior, trap)
        self.redirect(inferior)

    def settle(self, inferior: Inferior) -> None:
        """At a reported stop (every thread stopped): what the program let go, told."""
        if inferior is self._inferior:
            self.logs.drain()  # the messages before the stop that follows them
            for site in self.sites.values():
                site.window.settle()

    def shown(self, inferior: Inferior, stop: Stopped) -> Stopped:
        """At a reported stop: threads in a displaced copy at their original instruction."""
        if inferior is not self._inferior or not (self.sites or self._retired):
            return stop

        def remove(site: PatchedSite) -> None:
            if self.sites.get(site.plan.address) is site:
                self._remove(inferior, site)

        from aliceserver.debuggers.ptrace import patch_displaced as displaced

        return displaced.shown_stop(inferior, stop, [*self.sites.values(), *self._retired], remove)

    def before_signal(self, inferior: Inferior, t: Tracee) -> None:
        """`t` gets a signal as it resumes: out of any patch's code first (patch_displaced)."""
        if inferior is self._inferior and (self.sites or self._retired):
            from aliceserver.debuggers.ptrace import patch_displaced as displaced

            displaced.leave_for_signal(inferior, t, [*self.sites.values(), *self._retired])

    @staticmethod
    def _counting_now(inferior: Inferior, site: PatchedSite) -> bool:
        """Whether a thread is between the trampoline's count and its compare."""
        low, high = site.trampoline.condition_true, site.trampoline.stop_trap
        return any(low <= int(inferior.regs(t).rip) < high
                   for t in inferior.threads.values() if not t.gone and not t.new)  # fmt: skip

    def before_step(self, inferior: Inferior) -> None:
        """A step: the traps come back in place of every patch."""
        self._current(inferior)
        for site in list(self.sites.values()):
            self._remove(inferior, site)
        for tid in self._rerun:
            t = inferior.threads.get(tid)
            if t is not None and not t.gone:
                t.deferred_hit = True  # its hit is judged at the trap, as other deferred ones
        self._rerun.clear()

    def lift_all(self, inferior: Inferior) -> None:
        """Original bytes back everywhere, no thread left in a trampoline (a detach)."""
        if inferior is self._inferior:
            self.logs.drain()  # room in the rings: a thread stepped out writes its record
            from aliceserver.debuggers.ptrace.patch_leaving import leave_trampolines

            leave_trampolines(inferior, [*self.sites.values(), *self._retired])
        self.before_step(inferior)
        self.logs.close()  # the last records told; none come once the jumps are gone

    def after_trap_hit(self, inferior: Inferior, t: Tracee, trap: PhysicalTrap) -> _Action:
        """A trap hit the breakpoint let go: when a patch can now take the trap's place,
        stop the other threads, patch, and let them all go on."""
        self._prepare_log(inferior, trap)
        candidate = self._candidate(trap)
        if (
            not isinstance(candidate, tuple)
            or trap.address in self.refused
            or not self._may_stop_all(inferior)
        ):
            return _RESUME
        self._current(inferior)
        inferior._stop_others(t.tid)
        if inferior._report_pending():
            return _NONE
        self._try(inferior, trap)
        self.redirect(inferior)
        inferior.resume()
        return _NONE

    @staticmethod
    def _may_stop_all(inferior: Inferior) -> bool:
        """Whether the program runs freely: no call of ours in it, no step in progress, no
        scheduler locking (those resume threads their own way)."""
        return (
            inferior.calls_running == 0
            and inferior.locked is None
            and not any(
                t.plan is not None or t.stepping or t.step_over is not None
                for t in inferior.threads.values()
            )
        )

    def redirect(self, inferior: Inferior) -> None:
        """Threads at a patched site run its displaced copy, but those put back there to
        run the jump again (still so at the next continue when another stop came before
        they ran: their hit is not judged yet)."""
        rerun = set()
        for t in inferior.threads.values():
            if t.gone or t.running or t.new:
                continue
            regs = inferior.regs(t)
            site = self.sites.get(int(regs.rip))
            if site is not None and t.tid in self._rerun:
                rerun.add(t.tid)
            elif site is not None:
                regs.rip = site.trampoline.displaced_entry
                t.regs_dirty = True
        self._rerun = rerun

    def _refused_for(self, address: int, conditions: tuple[ExpressionCondition, ...]) -> bool:
        known = self.refused.get(address)  # (an ignore count alone is tried at each continue)
        return known is not None and bool(conditions) and known[0] == conditions

    # --- making and removing patches ------------------------------------------------------
    def _try(self, inferior: Inferior, trap: PhysicalTrap) -> None:
        self._prepare_log(inferior, trap)
        candidate = self._candidate(trap)
        if candidate is None:
            self.refused.pop(trap.address, None)
            return
        if isinstance(candidate, str):  # judged again at each continue
            self.refused[trap.address] = (None, candidate)
            return
        if self._refused_for(trap.address, candidate[0]):
            return
        from aliceserver.debuggers.ptrace.patches.codegen import Uncompilable

        try:
            problem = self._install(inferior, trap, *candidate)
        except (AliceError, OSError, Uncompilable) as error:
            problem = str(error)
        if problem is not None and problem.startswith(_FOR_NOW):
            self.refused[trap.address] = (
                None,
                problem[len(_FOR_NOW) :],
            )  # tried at the next continue
        elif problem is None:
            log.debug(
                "breakpoint at %#x: jump patch to %#x",
                trap.address,
                self.sites[trap.address].code_at,
            )
            self.refused.pop(trap.address, None)
        else:
            log.info("breakpoint at %#x keeps its trap: %s", trap.address, problem)
            self.refused[trap.address] = (candidate[0], problem)

    def _prepare_log(self, inferior: Inferior, trap: PhysicalTrap) -> None:
        """A logpoint's values compiled at its address, from a thread stopped there."""
        wanted = [bp for bp in trap.logical if bp.enabled]
        spec = log_spec(wanted[0].condition) if len(wanted) == 1 and self.enabled else None
        if spec is None or logs.value_nodes(spec, trap.address) is not None:
            return
        for t in inferior.threads.values():
            if (
                not t.gone
                and not t.new
                and not t.running
                and int(inferior.regs(t).rip) == trap.address
            ):
                logs.prepare_values(spec, t.tid, trap.address)
                return

    def _install(self, inferior: Inferior, trap: PhysicalTrap, conditions: tuple[ExpressionCondition, ...],
                 node: ir.Node | None, spec: LogSpec | None) -> str | None:  # fmt: skip
        """Patch `trap`'s site, or say why not."""
        if not all_stopped(inferior):
            return _for_now("the program's threads are not all stopped")
        from aliceserver.debuggers.ptrace.patches.sites import Refusal  # a first patch's

        plan = self._plan(inferior, trap.address)
        if isinstance(plan, Refusal):
            return plan.reason
        for t in inferior.threads.values():
            if not t.gone and not t.new and plan.address < int(inferior.regs(t).rip) < plan.end:
                return _for_now(
                    f"thread {t.tid} is stopped inside the instructions the jump would replace"
                )
        try:
            area = self._area(inferior, trap.address, plan.end)
        except TargetError as error:  # (no thread able to run the mmap now, a full gap...)
            return _for_now(str(error))
        log = None
        if spec is not None:
            nodes = logs.value_nodes(spec, trap.address)
            assert isinstance(nodes, list)
            log = (spec, logs.logpoint_values(nodes), self._log_ring(area))
        from aliceserver.debuggers.ptrace.patched_sites import build_site

        site = build_site(inferior, self._table(), trap, conditions, node, plan, area, log)
        self.sites[trap.address] = site
        if spec is not None:
            self.logs.add(area.data_address, trap.address, spec)
        for at in site.trap_addresses():
            self._by_trap[at] = site
        for t in inferior.threads.values():  # hits waiting for the trap: run the jump instead
            if t.deferred_hit and not t.gone and int(inferior.regs(t).rip) == trap.address:
                t.deferred_hit = False
                self._rerun.add(t.tid)
        return None

    def _log_ring(self, area: PatchArea) -> RingBuffer:
        """The ring of `area`'s logpoints, made with the first of them."""
        ring = self.logs.ring_of(area.data_address)
        if ring is None:
            ring, offset = logs.allocate_ring(area, self.log_ring_records)
            self.logs.add_ring(area.data_address, ring, area.data, offset)
        return ring

    def _plan(self, inferior: Inferior, address: int) -> SitePlan | Refusal:
        module = self._symbols.module_at(address)
        area = self._areas.get((module.path, module.base)) if module is not None else None
        near = area.code_address if area is not None else None
        from aliceserver.debuggers.ptrace.patched_sites import plan_at

        return plan_at(inferior, self._symbols, self._table(), address, near)

    def _area(self, inferior: Inferior, low: int, high: int) -> PatchArea:
        module = self._symbols.module_at(low)
        key = (module.path, module.base) if module is not None else ("", low & ~0xFFFFFFF)
        area = self._areas.get(key)
        if area is None or not area.reaches(low, high):
            from aliceserver.debuggers.ptrace.patches.area import map_patch_area

            area = self._areas[key] = map_patch_area(inferior, low, data_size=logs.DATA_SIZE)
        return area

    def _remove(self, inferior: Inferior, site: PatchedSite) -> None:
        """Take a patch out, the trap back in when its breakpoint still wants one."""
        site.fold()
        site.window.settle()
        try:
            self._table().remove(inferior, site.plan.address)
        except OSError as error:  # its code went without our hearing of it: nothing to restore
            log.info("patch at %#x dropped: %s", site.plan.address, error)
            self._table().by_address.pop(site.plan.address, None)
        del self.sites[site.plan.address]
        self._retired.append(site)
        self._free_retired(inferior)
        if site.trap.wanted and site.trap.address in inferior.traps.by_address:
            inferior.insert_trap(site.trap)

    def _free_retired(self, inferior: Inferior) -> None:
        if not all_stopped(inferior):
            return
        pcs = {
            int(inferior.regs(t).rip) for t in inferior.threads.values() if not t.gone and not t.new
        }
        for site in list(self._retired):
            if not any(site.holds(pc) for pc in pcs):
                self._retired.remove(site)
                for at in site.trap_addresses():
                    self._by_trap.pop(at, None)
                self.logs.drop(site.plan.address, site.log)
                site.free()

    def fold_counts(self) -> None:
        """Every patch's arrivals into its breakpoint's hit count (before they are shown)."""
        for site in self.sites.values():
            site.fold()

    def serves(self, inferior: Inferior, trap: PhysicalTrap) -> bool:
        """Before an int3 goes in: whether the patch at its address stands for it (no int3
        then); a patch whose span it falls inside is removed first."""
        for site in list(self.sites.values()):
            if site.plan.address <= trap.address < site.plan.end:
                if site.trap is trap and self._candidate(trap) == (
                    site.conditions,
                    site.node,
                    site.log,
                ):
                    return True
                if all_stopped(inferior):
                    self._remove(inferior, site)
        return False

    def code_unmapped(self, address: int) -> None:
        """The code at `address` went (a library unloaded): its patch with it, nothing to
        write back; a new load of the library is patched afresh."""
        site = self.sites.pop(address, None)
        if site is None:
            return
        site.fold()
        site.window.settle()
        self._table().by_address.pop(address, None)
        self._retired.append(site)  # its trampoline is freed once no thread is in it
        self.refused.pop(address, None)

    def trap_dropped(self, inferior: Inferior, trap: PhysicalTrap) -> None:
        """A trap taken out (disabled, deleted): its patch too, at once when every thread is
        stopped (else at the next continue)."""
        site = self.sites.get(trap.address)
        if site is not None and not trap.wanted and all_stopped(inferior):
            self._remove(inferior, site)

    # --- stops in a trampoline --------------------------------------------------------------
    def trap_hit(self, inferior: Inferior, t: Tracee, pc: int) -> Stopped | _Action | None:
        """An int3 of a trampoline at `pc` (stop or judge): the breakpoint judged as at its
        trap; None when `pc` is none of ours. A logpoint's full ring: drained, and the thread
        reserves its record again (it waits for the server, as gdb's dprintf would)."""
        site = self._by_trap.get(pc)
        if site is None:
            return None
        if pc == site.trampoline.ring_full:
            self.logs.drain()
            if not inferior._collecting and logs.finish_records(
                inferior, t, [s.trampoline for s in (*self.sites.values(), *self._retired)]
            ):
                self.logs.drain()  # their records, which held back the rest
            inferior.regs(t).rip = site.trampoline.ring_retry
            t.regs_dirty = True
            return _RESUME  # (while others are being stopped: it stays, and retries later)
        from aliceserver.debuggers.ptrace.patched_sites import put_back  # (a site: imported)

        put_back(inferior, t, site)
        site.judged += 1  # counted here, or when it runs the jump (or trap) again
        site.fold()
        if site.plan.address not in self.sites or inferior._collecting:
            self._rerun.add(t.tid)
            return _RESUME
        self._rerun.discard(t.tid)  # its hit is judged now
        if pc == site.trampoline.stop_trap:  # every number of the window is taken by now
            site.window.settle()
        hit = inferior._breakpoint_hit(t, site.trap)
        if hit is _RESUME:
            inferior.regs(t).rip = site.trampoline.displaced_entry
        return hit

    def fault(self, inferior: Inferior, t: Tracee, signo: int) -> Stopped | _Action | None:
        """A SIGSEGV/SIGBUS: None when its pc is not in a trampoline; else the condition's
        error (or ours) at the site, never the program's crash."""
        if signo not in _FAULTS or not (self.sites or self._retired):
            return None
        pc = int(inferior.regs(t).rip)
        site = next((s for s in [*self.sites.values(), *self._retired] if s.holds(pc)), None)
        if site is None or pc >= site.trampoline.displaced_entry:
            return None  # the program's own instructions (its displaced copy too): its crash
        trampoline = site.trampoline
        in_condition = any(
            low <= pc < high for low, high in (trampoline.condition_range, trampoline.values_range)
        )
        if not in_condition:
            inferior.events.put(Output("console", (
                f"aliceserver: {sig.Signals(signo).name} at {pc:#x} in the jump patch of the breakpoint at "
                f"{site.plan.address:#x}; the patch is removed and the breakpoint uses a trap\n")))  # fmt: skip
        from aliceserver.debuggers.ptrace.patched_sites import put_back

        put_back(inferior, t, site)
        site.judged += 1  # counted at the trap, or when it runs the jump again
        if inferior._collecting:
            self._rerun.add(t.tid)  # it faults again when it runs the jump, judged then
            return _RESUME
        self._rerun.discard(t.tid)
        inferior._stop_others(t.tid)
        if site.plan.address in self.sites:
            self.refused[site.plan.address] = (site.conditions, f"its condition faulted at {pc:#x}")
            self._remove(inferior, site)
        hit = inferior._breakpoint_hit(t, site.trap) if site.trap.inserted else _RESUME
        if isinstance(hit, Stopped):
            return hit
        inferior.resume()
        return _NONE

    # --- fork children ----------------------------------------------------------------------
    def strip(self, write: Callable[[int, bytes], None]) -> None:
        """Original bytes written through `write` (a fork child's or a left parent's memory)."""
        self._table().strip_child(write)

    def vfork_started(self, inferior: Inferior) -> None:
        """A vfork child shares the memory until it execs: the patches come out (and the
        traps in, which the vfork code then takes out as well)."""
        for site in list(self.sites.values()):
            site.fold()
            site.window.settle()
            inferior.memory.write(site.plan.address, site.plan.original)
            self._table().by_address.pop(site.plan.address, None)
            del self.sites[site.plan.address]
            self._retired.append(site)
            if site.trap.wanted:
                inferior.insert_trap(site.trap)
