"""Generated C programs debugged by gdb and by aliceserver's MI front end; every difference.

Each seed gives one C program (conformance/cgen.py: structs, unions, bitfields, enums,
arrays around every encoding boundary, typedef chains, every base type, functions with
every kind of prologue). It is built with `gcc -g` at -O0 and at -O2, and each build is
debugged twice with the same plan of MI commands (conformance/gen_session.py), once by
`gdb -i=mi` and once by `python -m aliceserver -i=mi`: `-break-insert` on each generated
function and on a line near its end, `-exec-run`, and at every stop the stop's frame,
`print`, `ptype`, `whatis` and `print sizeof(...)` of every variable in scope (the globals
at the first stop), a few expressions on each, `-stack-list-variables --all-values`, and
`-var-create` + `-var-list-children --all-values` of aggregates; then `-exec-continue`.

Both programs run with the same small environment from the same directory and without
ASLR, so addresses (of the stack too) are compared as text. Only `$N` history numbers are
normalized. Differences are grouped by kind: the check (print, ptype, stop...), the kind of
variable and the field; one line per kind with its count and first example.

    python -m conformance.generated --programs 20 --seed 1        # summary by kind
    python -m conformance.generated --programs 20 --seed 1 -v     # and every difference
    python -m conformance.generated --programs 200 --jobs 2 --keep DIR

Exits 1 when a difference is neither deliberate (`DELIBERATE`) nor a bug known and being
fixed elsewhere (`KNOWN_BUGS`); an entry of either table that no longer occurs in the run
is reported, so the tables stay true.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from conformance.cgen import CType, Program, Variable, generate
from conformance.explained import Explained
from conformance.gen_session import (
    FIRST_AGGREGATE_CHILD,
    Answer,
    Check,
    Plan,
    Session,
    SessionRecord,
    StopPlan,
)

OPT_LEVELS = ("-O0", "-O2")
SOURCE_NAME = "gen.c"
# Arrays with more elements than this are listed in a window only (gdb lists every child).
CHILD_WINDOW = 12


@dataclass(frozen=True)
class Difference:
    seed: int
    opt: str
    check: Check
    path: str
    gdb: str
    ours: str

    @property
    def subject(self) -> str:
        return self.check.subject

    @property
    def kind(self) -> str:
        """What groups differences: the check, the kind of variable (its outer shape), the
        field, and whether one side lacks it."""
        path = re.sub(r"\[[^\]]*\]", "[]", self.path)
        subject = self.check.subject.split("(")[0].removeprefix("typedef ")
        subject = f" [{subject.split(' of ')[0]}]" if subject else ""
        shape = ""
        if "<missing>" in (self.gdb, self.ours):
            shape = " (only ours)" if self.gdb == "<missing>" else " (only gdb)"
        return f"{self.check.kind}{subject} {path}{shape}"

    def as_json(self) -> dict[str, str | int]:
        return {"seed": self.seed, "opt": self.opt, "command": self.check.command,
                "check": self.check.kind, "subject": self.check.subject, "path": self.path,
                "gdb": self.gdb, "ours": self.ours, "kind": self.kind}

    def __str__(self) -> str:
        return (f"seed {self.seed} {self.opt} {self.check.command!r} {self.path}: "
                f"gdb {_short(self.gdb)!r} ours {_short(self.ours)!r}")


def _short(text: str, limit: int = 240) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def octal_escaped(text: str) -> str:
    """Non-ASCII characters as the octal escapes of their UTF-8 bytes, as gdb prints them
    in the C locale."""
    return "".join(c if ord(c) < 0x80 else "".join(f"\\{b:03o}" for b in c.encode()) for c in text)


# Differences by design: each says why it stays.
DELIBERATE: tuple[Explained, ...] = (
    Explained(
        "Bytes of valid UTF-8 in a string print as text: gdb does so too in a UTF-8 locale "
        "(where editors run it); this tester runs both in LC_ALL=C, where gdb escapes them",
        r"", rewrite=octal_escaped, ours=r"[^\x00-\x7f]"),
    Explained(
        "sizeof of a value whose struct ends in a flexible array member is the DWARF size, as "
        "C's sizeof; gdb resizes such a value to the end of its members (resolve_dynamic_struct)",
        r"^sizeof ", gdb=r"^\$N = \d+\n$", ours=r"^\$N = \d+\n$", subject=r"flexible"),
    Explained(
        "gdb refuses a location with DW_OP_GNU_uninit before its last op (gcc puts it after a "
        "piece); ours reads the pieces and shows the value",
        r"", gdb=r"DW_OP_GNU_uninit must always be the very last op"),
    Explained(
        "The same DW_OP_GNU_uninit refusal in a var object: gdb makes it with no value, and "
        "its children have the empty value; ours shows them",
        r"^var-children(-deeper)? .*\.value$", gdb=r"^$", ours=r"^(?!<error)."),
)

# Bugs known and not fixed yet, each with its cause; listed so a run shows what is new.
# Remove an entry when a run reports it as no longer occurring.
KNOWN_BUGS: tuple[Explained, ...] = ()


# --- the plan -----------------------------------------------------------------------------

def category(ctype: CType) -> str:
    """A short name for the kind of a variable's type: it groups the differences."""
    t = ctype.resolved
    prefix = "typedef " if ctype.kind == "typedef" else ""
    if t.kind == "array":
        assert t.elem is not None
        inner = t.elem.resolved
        if inner.kind == "array":
            return f"{prefix}array 2d"
        size = t.count if t.count in (0, 1, 127, 128, 255, 256, 65535, 65536) else "n"
        return f"{prefix}array[{size}] of {category(t.elem)}"
    if t.kind == "pointer":
        assert t.elem is not None
        target = t.elem.resolved
        if target.kind == "array":
            return f"{prefix}pointer to array[{target.count}]"
        return f"{prefix}pointer to {target.kind}"
    if t.kind in ("struct", "union"):
        features = sorted({f for m in t.members for f in _features(m.ctype, m.bits, m.name)})
        return f"{prefix}{t.kind}" + (f"({','.join(features)})" if features else "")
    if t.kind == "base":
        return prefix + t.spelling
    return prefix + t.kind


def _features(ctype: CType, bits: int, name: str, depth: int = 0) -> list[str]:
    out = []
    if bits:
        out.append("bitfield64" if bits > 32 else "bitfield")
    if not name:
        out.append("anonymous")
    if ctype.kind == "array" and ctype.count == 0:
        out.append("flexible")
    inner = ctype.resolved
    if inner.kind in ("struct", "union") and depth < 8:  # a flexible array further in
        nested = {f for m in inner.members for f in _features(m.ctype, m.bits, m.name, depth + 1)}
        out += ["flexible"] if "flexible" in nested else []
    return out


def _first_member(t: CType) -> str:
    for member in t.members:
        if member.name:
            return member.name
    return ""


def variable_checks(variable: Variable, full: bool, counter: list[int]) -> list[Check]:
    """The checks on one variable: print only, or every question (`full`)."""
    name, subject = variable.name, category(variable.ctype)
    checks = [Check(f"print {name}", "print", subject)]
    if not full:
        return checks
    checks += [
        Check(f"ptype {name}", "ptype", subject),
        Check(f"whatis {name}", "whatis", subject),
        Check(f"print sizeof({name})", "sizeof", subject),
    ]
    t = variable.ctype.resolved
    expressions: list[str] = []
    if t.kind == "array" and t.count:
        expressions += [f"{name}[0]", f"{name}[{t.count - 1}]", f"&{name}", f"sizeof({name}[0])"]
        checks.append(Check(f"whatis {name}[0]", "whatis-expr", subject))
    elif t.kind in ("struct", "union") and _first_member(t):
        expressions += [f"{name}.{_first_member(t)}", f"&{name}"]
        checks.append(Check(f"print/x {name}", "print/x", subject))
    elif t.kind == "pointer":
        assert t.elem is not None
        expressions += [f"*{name}"]
        checks.append(Check(f"whatis *{name}", "whatis-expr", subject))
    elif t.kind == "enum":
        expressions += [f"/d {name}", f"(int){name}", f"{name} == {t.enumerators[0][0]}"]
    elif t.kind == "base":
        expressions += [f"/x {name}", f"{name} + 1", f"-{name}", f"{name} * 2"]
    elif t.kind == "float":
        expressions += [f"{name} * 2", f"(int){name}"]
    elif t.kind == "bool":
        expressions += [f"!{name}", f"/x {name}"]
    # "/x name" is a format, written without the space: print/x name.
    checks += [Check(f"print{e}" if e.startswith("/") else f"print {e}", "expr", subject)
               for e in expressions]
    if t.kind in ("struct", "union", "array"):
        counter[0] += 1
        var = f"vo{counter[0]}"
        window = f" 0 {CHILD_WINDOW}" if t.kind == "array" and t.count > CHILD_WINDOW else ""
        checks += [
            Check(f"-var-create {var} * {name}", "var-create", subject),
            Check(f"-var-list-children --all-values {var}{window}", "var-children", subject),
            Check(f"-var-list-children --all-values {FIRST_AGGREGATE_CHILD} 0 {CHILD_WINDOW}",
                  "var-children-deeper", subject),
            Check(f"-var-delete {var}", "var-delete", subject),
        ]
    return checks


def plan(program: Program) -> Plan:
    """Every command of one session; the same for both debuggers. Breakpoints are numbered
    in the order they are set: 2i+1 is function i's entry, 2i+2 its end line."""
    setup: list[Check] = []
    stops: dict[str, StopPlan] = {}
    counter = [0]
    for index, function in enumerate(program.functions):
        setup.append(Check(f"-break-insert {function.name}", "break-function", function.kind))
        setup.append(Check(f"-break-insert {SOURCE_NAME}:{function.end_line}", "break-line",
                           function.kind))
        # At entry the arguments are set (the locals are not yet); at the end every local is.
        for number, (where, full) in enumerate((("entry", False), ("end", True)), 2 * index + 1):
            checks: list[Check] = []
            if number == 1:
                for variable in program.globals:
                    checks += variable_checks(variable, True, counter)
            for variable in function.variables:
                checks += variable_checks(variable, full, counter)
            checks.append(Check("-stack-list-variables --all-values", "locals", function.kind))
            stops[str(number)] = StopPlan(f"{where} {function.kind}",
                                          tuple(checks))
    return Plan(tuple(setup), stops)


# --- running and comparing ------------------------------------------------------------------

@dataclass
class ProgramOutcome:
    seed: int
    differences: list[Difference] = field(default_factory=list)
    checks: int = 0
    checks_per_build: int = 0
    broke: list[str] = field(default_factory=list)
    build_error: str = ""
    seconds: float = 0.0


def build(program: Program, directory: Path, opt: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / SOURCE_NAME
    source.write_text(program.source)
    binary = directory / "gen"
    command = ["gcc", "-g", opt, "-fno-stack-protector", "-w", "-o", str(binary), SOURCE_NAME]
    subprocess.run(command, cwd=directory, check=True, capture_output=True, text=True)
    return binary


def compare(seed: int, opt: str, plan_: Plan, gdb: SessionRecord,
            ours: SessionRecord) -> list[Difference]:
    out: list[Difference] = []
    for section in ["setup", *gdb.order, *(s for s in ours.order if s not in gdb.sections)]:
        stop = plan_.stops.get(section.removeprefix("bkpt "))
        label = stop.label if stop else section
        checks = [Check("-exec-continue", "stop", label), *(stop.checks if stop else ())]
        if section == "setup":
            checks = list(plan_.setup)
        theirs, mine = gdb.sections.get(section), ours.sections.get(section)
        if theirs is None or mine is None:  # a stop only one side made
            out.append(Difference(seed, opt, checks[0], "reached",
                                  "stopped here" if theirs else "not reached",
                                  "stopped here" if mine else ours.broke or "not reached"))
            continue
        for index, check in enumerate(checks[: len(theirs)]):
            if index >= len(mine):
                out.append(Difference(seed, opt, check, "session", "answered",
                                      ours.broke or "no answer"))
                break
            out += _leaf_differences(seed, opt, check, theirs[index], mine[index])
    return out


def _leaf_differences(seed: int, opt: str, check: Check, theirs: Answer,
                      mine: Answer) -> list[Difference]:
    """The differing leaves of one answer; an item one side lacks altogether (a child, a
    variable) is one difference, not one per field."""
    out: list[Difference] = []
    reported: set[str] = set()
    for path in list(theirs) + [p for p in mine if p not in theirs]:
        gdb, ours = theirs.get(path, "<missing>"), mine.get(path, "<missing>")
        if gdb == ours:
            continue
        item = _item_of(path)
        if item and not (_has_item(theirs, item) and _has_item(mine, item)):
            if item in reported:
                continue
            reported.add(item)
            path = item
            gdb, ours = ("<missing>", "present") if gdb == "<missing>" else ("present", "<missing>")
        out.append(Difference(seed, opt, check, path, gdb, ours))
    return out


def _item_of(path: str) -> str:
    """`children[3]` of `children[3].value`; empty for a path not inside a list item."""
    match = re.match(r"(.*\])\.[^.\[\]]+$", path)
    return match.group(1) if match else ""


def _has_item(answer: Answer, item: str) -> bool:
    return any(path.startswith(item + ".") for path in answer)


def run_program(seed: int, work: Path) -> ProgramOutcome:
    start = time.perf_counter()
    program = generate(seed)
    outcome = ProgramOutcome(seed)
    checks = plan(program)
    outcome.checks_per_build = len(checks.setup) + sum(len(s.checks) + 1 for s in checks.stops.values())
    for opt in OPT_LEVELS:
        try:
            binary = build(program, work / f"seed{seed}{opt}", opt)
        except subprocess.CalledProcessError as error:
            outcome.build_error = f"{opt}: {error.stderr.strip()[:400]}"
            break
        gdb = Session(binary, gdb=True).run(checks)
        ours = Session(binary, gdb=False).run(checks)
        if gdb.broke:
            outcome.broke.append(f"gdb {opt}: {gdb.broke}")
        outcome.checks += sum(len(answers) for answers in gdb.sections.values())
        outcome.differences += compare(seed, opt, checks, gdb, ours)
    outcome.seconds = time.perf_counter() - start
    return outcome


# --- reporting ----------------------------------------------------------------------------

@dataclass
class Report:
    outcomes: list[ProgramOutcome]

    @property
    def differences(self) -> list[Difference]:
        return [d for o in self.outcomes for d in o.differences]

    def explained_by(self, table: tuple[Explained, ...]) -> list[Difference]:
        return [d for d in self.differences if any(e.explains(d) for e in table)]

    def unexplained(self) -> list[Difference]:
        return [d for d in self.differences
                if not any(e.explains(d) for e in (*DELIBERATE, *KNOWN_BUGS))]

    def stale(self) -> list[Explained]:
        found = self.differences
        return [e for e in (*DELIBERATE, *KNOWN_BUGS) if not any(e.explains(d) for d in found)]

    def problems(self) -> list[str]:
        """What makes a run fail besides differences: builds, gdb itself breaking."""
        out = [f"seed {o.seed}: build failed: {o.build_error}" for o in self.outcomes if o.build_error]
        out += [f"seed {o.seed}: {b}" for o in self.outcomes for b in o.broke]
        return out


def by_kind(differences: list[Difference]) -> list[tuple[str, int, Difference]]:
    groups: dict[str, list[Difference]] = {}
    for difference in differences:
        groups.setdefault(difference.kind, []).append(difference)
    rows = [(kind, len(found), found[0]) for kind, found in groups.items()]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


def print_report(report: Report, verbose: bool) -> None:
    programs = len(report.outcomes)
    checks = sum(o.checks for o in report.outcomes)
    print(f"{programs} programs, {programs * len(OPT_LEVELS)} builds, {checks} checks, "
          f"{len(report.differences)} differences")
    sections = (
        ("unexplained", report.unexplained()),
        ("known bugs (KNOWN_BUGS)", report.explained_by(KNOWN_BUGS)),
        ("deliberate (DELIBERATE)", report.explained_by(DELIBERATE)),
    )
    for title, found in sections:
        if not found:
            continue
        print(f"\n{title}: {len(found)} differences in {len(by_kind(found))} kinds")
        for kind, count, first in by_kind(found):
            print(f"  {count:6d}  {kind}\n          e.g. {first}")
        if verbose:
            for difference in found:
                print(f"    {difference}")
    for entry in report.stale():
        print(f"\nno longer occurs in this run (remove it if fixed): {entry.reason}")
    for problem in report.problems():
        print(f"\nproblem: {problem}")


def run(seeds: Sequence[int], jobs: int, work: Path) -> Report:
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = list(pool.map(lambda seed: run_program(seed, work), seeds))
    return Report(outcomes)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.generated", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=10, help="how many programs (seeds)")
    parser.add_argument("--seed", type=int, default=1, help="the first seed")
    parser.add_argument("--jobs", type=int, default=1, help="programs debugged at once")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every difference")
    parser.add_argument("--keep", type=Path, help="build the programs in DIR and keep them")
    parser.add_argument("--json", type=Path, help="write every difference to FILE (JSON lines)")
    options = parser.parse_args(argv)
    if shutil.which("gdb") is None or shutil.which("gcc") is None:
        print("generated: skipped, gdb or gcc not found")
        return 0
    seeds = range(options.seed, options.seed + options.programs)
    with tempfile.TemporaryDirectory(prefix="alice-generated-") as tmp:
        work = options.keep or Path(tmp)
        report = run(seeds, options.jobs, work)
    print_report(report, options.verbose)
    if options.json:
        with options.json.open("w") as out:
            for difference in report.differences:
                out.write(json.dumps(difference.as_json()) + "\n")
    return 1 if report.unexplained() or report.problems() else 0


if __name__ == "__main__":
    sys.exit(main())
