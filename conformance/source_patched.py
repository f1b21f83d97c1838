"""source_diff's scenarios with the breakpoints behind jump patches (`--patched`).

Each scenario's breakpoint gets a condition that holds at every hit and that the engine
compiles to machine code (`x == x` on an integer argument or local that gdb shows at the
first stop: a load from the frame or a register, not a constant), gdb the same condition,
and jump patches are forced on. The condition compiles at the breakpoint's first hit (a
trap, as in every mode: conditions.py), and the patch goes in at the next continue; so a
scenario without a `continue` gets one at its end (on both sides) and runs through the
patched code to the next hit or the exit. Every stop is compared with gdb's as in the trap
mode; and the engine's general registers at each stop (27: rip, rsp, eflags, fs_base...)
with the same stop of two runs through traps (patches off), but those that differ between
the two trap runs by themselves (a pid, a pointer guard's mangling): a stop presented from
a trampoline must be the trap's stop exactly.

It is not vacuous: `PatchReport` says per scenario which sites were patched (the engine's
breakpoint state, `maint info breakpoints`' note), how many stops were presented from a
trampoline (a stop at a site while its patch is in: its int3 is not in memory then), and
for a site that kept its trap, why (the note's refusal): "trap fallback" in the summary.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from typing import Any

from aliceserver.debuggers.events import Stopped, StopReason
from conformance.explained import SOURCE_KNOWN_BUGS, explained_by, unexplained
from conformance.source_diff import (
    Builders,
    Difference,
    Outcome,
    Scenario,
    StopRecord,
    compare,
    engine_stops,
    gdb_stops,
    location_spec,
)
from tests.support.gdb import gdb_env

PATCHED = "jump patch to "
REFUSED = "patch refused: "
# gdb's text of an integer or a character: a value `x == x` compares as a number
_INTEGER = re.compile(r"^-?\d+( '.*')?$")

REMOTE_REFUSAL = (
    "Jump patches are not available over a remote target (the patches need the live "
    "ptrace engine: injected mmap, trampolines); run --patched without --remote."
)


@dataclass
class PatchReport:
    """What the patched mode saw on the engine's side of one scenario."""

    condition: str | None
    patched: set[int] = field(default_factory=set)  # sites seen with their patch in
    refused: dict[int, str] = field(default_factory=dict)  # site -> the engine's reason
    trampoline_stops: int = 0  # stops at a site while its patch was in
    sites: list[int] = field(default_factory=list)
    why_not: str | None = None  # no condition at all (then every site keeps its trap)

    @property
    def trap_fallback(self) -> bool:
        return not self.patched

    def describe(self) -> str:
        if self.why_not is not None:
            return f"trap fallback: {self.why_not}"
        if self.trap_fallback:
            reasons = sorted(set(self.refused.values())) or ["no patch and no reason given"]
            return "trap fallback: " + "; ".join(reasons)
        text = f"patched {len(self.patched)}/{len(self.sites)}, {self.trampoline_stops} stops via trampoline"
        for site in self.sites:
            if site not in self.patched:  # (a site never hit: its condition never compiled)
                text += f"; {site:#x}: {self.refused.get(site, 'trap, never patched')}"
        return text


class PatchProbe:
    """source_diff.EngineProbe: conditional breakpoints, jump patches on (`patches`), their
    state read after every resume and at every stop, and the registers at every stop."""

    def __init__(self, report: PatchReport, patches: bool = True) -> None:
        self.report = report
        self.patches = patches
        self.registers: list[dict[str, int]] = []

    def insert(self, dbg: Any, address: int) -> None:
        patches = dbg.jump_patches
        patches.enabled = self.patches  # `set breakpoint jump-patches on|off`
        condition = self.report.condition
        if condition is not None:
            problem = dbg.condition_problem(condition, address)
            if problem is not None:  # gdb would refuse the breakpoint: the mode is broken
                raise ValueError(f"condition {condition!r} at {address:#x}: {problem}")
        made = dbg.expression_condition(condition) if condition else None
        dbg.insert_breakpoint(address, condition=made)
        self.report.sites.append(address)
        if not self.report.sites[1:]:
            self._observe(patches)

    def _observe(self, patches: Any) -> None:
        """The sites' state read as each continue leaves them, before the program runs
        (on the engine's thread: no race with a program that exits at once)."""
        before_continue = patches.before_continue

        def observed(inferior: Any) -> None:
            before_continue(inferior)
            self._record({a: patches.note(a) for a in self.report.sites})

        patches.before_continue = observed

    def _record(self, notes: dict[int, str]) -> None:
        for address, note in notes.items():
            if note.startswith(PATCHED):
                self.report.patched.add(address)
            elif note.startswith(REFUSED):
                self.report.refused[address] = note[len(REFUSED) :]

    def resumed(self, dbg: Any, action: str) -> None:
        pass  # (the continue's patches are seen by _observe)

    def stopped(self, dbg: Any, stop: Stopped) -> None:
        self.registers.append(dict(dbg.read_registers(stop.thread_id).values))
        notes = {b.address: b.note for b in dbg.breakpoints() if b.address in self.report.sites}
        self._record(notes)
        # While a site is patched its int3 is out of memory: a breakpoint stop there came
        # through the trampoline (steps lift every patch first).
        if stop.reason == StopReason.BREAKPOINT and notes.get(stop.address, "").startswith(PATCHED):
            self.report.trampoline_stops += 1


# Scenarios whose first stop shows no integer to compare (or is not the breakpoint's):
# a global of the program, or the breakpoint function's argument.
CONDITIONS = {
    "threads-worker": "worker_hits == worker_hits",
    "lines-O2": "seed == seed",
    "lines-no-line-caller": "seed == seed",
    "lines-no-line-caller-O2": "seed == seed",
    "inline-O2": "start_value == start_value",
    "inline-O2-steps": "start_value == start_value",
    "basic-signal-stop": "sig == sig",
    "cpp-reference": "ref == ref",
}


def scalar_condition(first: StopRecord) -> str | None:
    """`x == x` on the first integer argument or local gdb showed at the first stop."""
    for name, value in (*first.arguments, *first.locals):
        if _INTEGER.match(value) and re.fullmatch(r"[A-Za-z_]\w*", name):
            return f"{name} == {name}"
    return None


def patched_scenario(scenario: Scenario) -> Scenario:
    """The scenario ending with a `continue`: every site hit by then gets its patch."""
    if scenario.actions[-1:] == ("continue",):
        return scenario
    return replace(scenario, actions=(*scenario.actions, "continue"))


Registers = list[dict[str, int]]
# A second thread's leftovers in the registers a call or syscall may change depend on how
# the threads were scheduled (two trap runs can agree and a third not): not compared.
SCHEDULED = {"threads-worker": frozenset({"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"})}


def register_differences(name: str, traps: Registers, again: Registers, patches: Registers) -> list[Difference]:
    """The registers at each stop with patches against the same stop with traps (the
    `gdb` side of these Differences is the trap run), but those that differ between two
    runs with traps (a pid, a pointer guard's mangling: each process its own)."""
    found = []
    for index, (trap, other, patch) in enumerate(zip(traps, again, patches, strict=False)):
        changed = sorted(n for n in (trap.keys() | patch.keys()) - SCHEDULED.get(name, frozenset())
                         if trap.get(n) != patch.get(n) and trap.get(n) == other.get(n))  # fmt: skip
        if changed:
            show = {n: (trap.get(n), patch.get(n)) for n in changed}
            found.append(Difference(name, index, "registers (traps / patches)",
                                    str({n: hex(v[0]) if v[0] is not None else None for n, v in show.items()}),
                                    str({n: hex(v[1]) if v[1] is not None else None for n, v in show.items()})))  # fmt: skip
    if len(traps) != len(patches):
        found.append(Difference(name, -1, "stops (traps / patches)", str(len(traps)), str(len(patches))))
    return found


@dataclass
class PatchedOutcome:
    outcome: Outcome
    report: PatchReport


def patched_diff(scenario: Scenario, builders: Builders, engine: Any | None = None) -> PatchedOutcome:
    """`scenario` in the patched mode: gdb's and the engine's stops with the same
    condition, compared; and what the engine's patches did."""
    started = time.monotonic()
    program = builders.build(scenario)
    spec = location_spec(scenario, builders.more.programs_dir)
    env = gdb_env()
    condition = CONDITIONS.get(scenario.name)
    if condition is None:
        plain = gdb_stops(scenario, program, spec, env)  # its first stop names the variables
        condition = scalar_condition(plain[0]) if plain else None
    report = PatchReport(condition)
    if condition is None:
        report.why_not = "no integer argument or local at the first stop for a condition"
    run = patched_scenario(scenario)
    gdb = gdb_stops(run, program, spec, env, condition=condition)
    probe = PatchProbe(report)
    ours = engine_stops(run, program, spec, env, engine, probe=probe)
    traps = [PatchProbe(PatchReport(condition), patches=False) for _ in range(2)]
    for trap_run in traps:  # the same stops through the traps, twice: what varies by itself
        engine_stops(run, program, spec, env, probe=trap_run)
    outcome = compare(run, gdb, ours)
    outcome.differences += register_differences(run.name, traps[0].registers, traps[1].registers, probe.registers)
    outcome.explained = explained_by(outcome.differences, SOURCE_KNOWN_BUGS)
    outcome.differences = unexplained(outcome.differences, SOURCE_KNOWN_BUGS)
    outcome.seconds = time.monotonic() - started
    return PatchedOutcome(outcome, report)
