"""mi_diff's scenarios with their breakpoints behind jump patches (`--patched`).

Every breakpoint the scenario sets (`-break-insert LOC`, CLI `break LOC`) gets, on both
sides, the condition `counter == counter` (mi_prog.c's global: true at every hit, and
compiled by the engine to machine code, not a constant); our server runs with
`set breakpoint jump-patches on`. The condition compiles at a breakpoint's first hit (a
trap), its patch goes in at the next continue. Every record is compared as without
patches (the breakpoints' `cond` and `times` fields too: the hit counts a trampoline
counts in the program must be gdb's).

After each command that resumes the program, our server is asked `maint info breakpoints`
(its records are not compared): which breakpoints were patched, which kept their trap and
why, and how many stops at a breakpoint came while its patch was in (from a trampoline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from conformance.mi_diff import Outcome, StepRecord, diff, resumes
from conformance.mi_scenarios import MiScenario
from tests.support.build import Builder
from tests.support.mi_client import MiClient

CONDITION = "counter == counter"
SETTING = "set breakpoint jump-patches on"
_ROW = re.compile(r'^~"(\d+(?:\.\d+)?)\s')
_NOTE = re.compile(r'^~"\\t(jump patch to 0x[0-9a-f]+|patch refused: .*?)\\n"$')


@dataclass
class MiPatchReport:
    patched: set[str] = field(default_factory=set)  # breakpoint numbers seen patched
    refused: dict[str, str] = field(default_factory=dict)  # number -> the engine's reason
    trampoline_stops: int = 0
    breakpoint_stops: int = 0

    def describe(self) -> str:
        if not self.breakpoint_stops:
            return "no breakpoint stop"
        text = f"patched {len(self.patched)}, {self.trampoline_stops}/{self.breakpoint_stops} stops via trampoline"
        refused = {n: why for n, why in self.refused.items() if n not in self.patched}
        return text + "".join(f"; {n}: {why}" for n, why in sorted(refused.items()))


def conditioned(command: str) -> str:
    """`command` with the condition when it sets a breakpoint."""
    if command.startswith("-break-insert "):
        return f'-break-insert -c "{CONDITION}" ' + command[len("-break-insert ") :]
    if command.startswith("break "):
        return f"{command} if {CONDITION}"
    return command


def patched_scenario(scenario: MiScenario) -> MiScenario:
    return replace(scenario, commands=tuple(conditioned(c) for c in scenario.commands))


def breakpoint_notes(lines: list[str]) -> dict[str, str]:
    """`maint info breakpoints`' console lines -> {number: its patch note}."""
    notes: dict[str, str] = {}
    number = None
    for line in lines:
        row = _ROW.match(line)
        if row is not None:
            number = row.group(1)
            continue
        note = _NOTE.match(line)
        if note is not None and number is not None:
            notes[number] = note.group(1)
    return notes


class PatchLook:
    """mi_diff.AfterStep for our server: the patches' state after each resuming step."""

    def __init__(self) -> None:
        self.report = MiPatchReport()

    def __call__(self, client: MiClient, step: StepRecord) -> None:
        if not resumes(step.command):
            return
        _, seen = client.command('-interpreter-exec console "maint info breakpoints"')
        notes = breakpoint_notes(seen)
        for number, note in notes.items():
            if note.startswith("jump patch to"):
                self.report.patched.add(number)
            else:
                self.report.refused[number] = note[len("patch refused: ") :]
        for record in step.exec_records:
            if isinstance(record, dict) and record.get("reason") == "breakpoint-hit":
                self.report.breakpoint_stops += 1
                hit = record.get("bkptno")
                if isinstance(hit, str) and notes.get(hit, "").startswith("jump patch to"):
                    self.report.trampoline_stops += 1


def patched_diff(scenario: MiScenario, builder: Builder) -> tuple[Outcome, MiPatchReport]:
    look = PatchLook()
    outcome = diff(patched_scenario(scenario), builder, after=look, our_options=("-iex", SETTING))
    return outcome, look.report
