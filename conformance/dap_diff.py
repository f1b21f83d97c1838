"""Run one DAP scenario through lldb-vscode-16 and through aliceserver; list the differences.

A scenario is a C program from tests/programs, breakpoints (`@marker` for the line marked
`@bp:marker`, or a function name) and the actions after the first stop (`continue`, `next`,
`stepIn`, `stepOut`). Both adapters are driven over stdio by the same client
(tests/support/dap_client.py) with the same startup sequence; at every stop each side
records the stop reason, the top frame's file:line, the frames up to `main` (name and line)
and the top frame's arguments and locals; an exit records its exit code.

    python -m conformance.dap_diff              # every scenario, a summary table
    python -m conformance.dap_diff -v           # ... and each difference
    python -m conformance.dap_diff dap-step     # only the named scenarios

Values are normalized before comparing, since lldb and gdb-style formatting differ (see
`normalize_value`): pointers become `<ptr>` (`0x0` stays: null-ness is compared), char
values lose gdb's numeric prefix, aggregates are compared through their children
(`{x=1, y=2}`), not through the summary line each adapter writes. `--exact-pointers` keeps
pointer values (the debuggees run with the same small environment and no ASLR).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conformance.source_diff import normalize_function
from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.build import Builder, find_compiler, marker_line
from tests.support.dap_client import DapClient, DapError
from tests.support.dap_session import launch_arguments, start_session

ACTIONS = ("continue", "next", "stepIn", "stepOut")
TIMEOUT = 30.0
MAX_CHILDREN = 25  # aggregates are compared through at most this many children per level
MAX_DEPTH = 3


@dataclass(frozen=True)
class DapScenario:
    name: str
    program: str  # stem of a C file in tests/programs
    breakpoints: tuple[str, ...]  # "@marker" (a marked line) or a function name
    actions: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    compare_values: bool = True
    # Locals read before they are assigned: stack left-overs of the loader and libc start-up,
    # which differ with the launch environment and the CPU; compared by presence only.
    unassigned: tuple[str, ...] = ()
    # lldb commands run before the launch (launch `preRunCommands`), e.g. signal policies
    # that our adapter applies by default.
    lldb_commands: tuple[str, ...] = ()


@dataclass(frozen=True)
class DapStop:
    """What one adapter showed at one stop (or at the exit)."""

    event: str  # "stopped", "exited" or "terminated"
    reason: str  # normalized stop reason; the exit code for "exited"
    position: tuple[str, int] | None  # (basename, line) of the top frame
    frames: tuple[tuple[str, str, int], ...]  # (name, basename, line), top frame to main
    variables: tuple[tuple[str, str], ...]  # top frame's arguments and locals, by name

    def describe_frames(self) -> str:
        return " / ".join(f"{name}@{file}:{line}" for name, file, line in self.frames)


@dataclass(frozen=True)
class Difference:
    scenario: str
    stop: int  # 0: the first stop, n: after the n-th action; -1: the whole run
    aspect: str  # "stops", "event", "reason", "position", "frames", "variables"
    lldb: str
    ours: str

    def __str__(self) -> str:
        return (
            f"{self.scenario} stop {self.stop} {self.aspect}: lldb {self.lldb!r} ours {self.ours!r}"
        )


@dataclass
class Outcome:
    scenario: DapScenario
    lldb: list[DapStop] = field(default_factory=list)
    ours: list[DapStop] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    agreements: int = 0
    protocol_problems: list[str] = field(default_factory=list)  # our adapter's, by the schema
    seconds: float = 0.0


# --- normalization ------------------------------------------------------------------------

_HEX = re.compile(r"0x[0-9a-fA-F]+")
_CHAR = re.compile(r"^-?\d+ ('(?:[^'\\]|\\.)*')$")  # gdb: 113 'q'  (lldb: 'q')
_REASONS = {"function breakpoint": "breakpoint"}  # both are right for a function breakpoint
# The signal trampoline: lldb names its symbol, gdb-style adapters print this marker.
_TRAMPOLINES = {"__restore_rt", "<signal handler called>"}


def normalize_pointer(text: str, exact: bool) -> str:
    def one(match: re.Match[str]) -> str:
        value = int(match.group(0), 16)
        if value == 0:
            return "0x0"
        return hex(value) if exact else "<ptr>"

    return _HEX.sub(one, text)


def normalize_value(value: str, exact_pointers: bool = False) -> str:
    """One scalar's text in a form both adapters' formatting reduces to."""
    text = value.strip()
    char = _CHAR.match(text)
    if char:
        text = char.group(1)
    return normalize_pointer(text, exact_pointers)


def normalize_reason(reason: str) -> str:
    return _REASONS.get(reason, reason)


def normalize_frame_name(name: str) -> str:
    if name in _TRAMPOLINES:
        return "<signal trampoline>"
    return normalize_function(name) or name


def frames_agree(
    lldb: Sequence[tuple[str, str, int]], ours: Sequence[tuple[str, str, int]], source: str
) -> bool:
    """Same functions; same lines in the program's own source file. Lines in libc depend on
    whether its separate debug info (libc6-dbg) is installed, so they are not compared."""
    if len(lldb) != len(ours):
        return False
    for (a_name, a_file, a_line), (b_name, b_file, b_line) in zip(lldb, ours, strict=True):
        if normalize_frame_name(a_name) != normalize_frame_name(b_name):
            return False
        if source in (a_file, b_file) and (a_file, a_line) != (b_file, b_line):
            return False
    return True


def is_synthetic(name: str) -> bool:
    """Entries that are no program variable, e.g. our `(return value)` after a stepOut
    (lldb-vscode-16 has no such entry; newer lldb-dap and debugpy do)."""
    return name.startswith("(")


def is_aggregate(variable: Mapping[str, Any]) -> bool:
    """A struct, union or array: compared through its children (pointers are not expanded)."""
    if not variable.get("variablesReference"):
        return False
    kind = str(variable.get("type", "")).strip()
    return not kind.endswith("*") and not kind.endswith("&")


# --- one adapter --------------------------------------------------------------------------


@dataclass(frozen=True)
class AdapterSide:
    name: str
    argv: tuple[str, ...]
    validate: bool  # check every message against the schema (our adapter)
    strict_seq: bool  # lldb-vscode-16 sends seq 0 on everything


def sides() -> tuple[AdapterSide | None, AdapterSide]:
    lldb = find_lldb_vscode()
    ours = AdapterSide("ours", tuple(alice_argv()), validate=True, strict_seq=True)
    if lldb is None:
        return None, ours
    return AdapterSide("lldb", (lldb,), validate=False, strict_seq=False), ours


def fixed_env() -> dict[str, str]:
    """The adapters' (and so the debuggees') environment: small and the same for both."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    if "HOME" in os.environ:
        env["HOME"] = os.environ["HOME"]
    return env


class Recorder:
    def __init__(self, client: DapClient, exact_pointers: bool, values: bool) -> None:
        self.client = client
        self.exact = exact_pointers
        self.values = values

    def stop(self, event: Mapping[str, Any]) -> DapStop:
        name = str(event.get("event"))
        body = event.get("body") or {}
        if name != "stopped":
            code = str(body.get("exitCode", "")) if name == "exited" else ""
            return DapStop(name, code, None, (), ())
        thread = int(body["threadId"])
        frames = self.client.stack_trace(thread)
        names: list[tuple[str, str, int]] = []
        for frame in frames:
            source = frame.get("source") or {}
            if source and frame.get("presentationHint") == "subtle" and frame.get("name") != "main":
                continue  # gdb's inferred tail-call frames, which lldb-16 does not show
            file = os.path.basename(str(source.get("path") or source.get("name") or ""))
            names.append((str(frame.get("name")), file, int(frame.get("line", 0))))
            if frame.get("name") == "main":
                break  # lldb goes on into libc's start-up frames
        position = None
        if frames:
            source = frames[0].get("source") or {}
            path = source.get("path") or source.get("name")
            if path:
                position = (os.path.basename(str(path)), int(frames[0].get("line", 0)))
        variables: tuple[tuple[str, str], ...] = ()
        if self.values and frames:
            variables = tuple(sorted(self.frame_variables(int(frames[0]["id"])).items()))
        return DapStop(
            name, normalize_reason(str(body.get("reason"))), position, tuple(names), variables
        )

    def frame_variables(self, frame_id: int) -> dict[str, str]:
        """Arguments and locals (lldb has one Locals scope, ours Locals and Arguments)."""
        found: dict[str, str] = {}
        for scope in self.client.scopes(frame_id):
            hint = scope.get("presentationHint")
            label = str(scope.get("name", "")).lower()
            if hint in ("locals", "arguments") or label.startswith(("local", "argument")):
                for variable in self.client.variables(int(scope["variablesReference"])):
                    if not is_synthetic(str(variable["name"])):
                        found[str(variable["name"])] = self.value(variable, 1)
        return found

    def value(self, variable: Mapping[str, Any], depth: int) -> str:
        if not is_aggregate(variable) or depth > MAX_DEPTH:
            return normalize_value(str(variable.get("value", "")), self.exact)
        children = self.client.variables(int(variable["variablesReference"]))
        parts = [
            f"{child.get('name')}={self.value(child, depth + 1)}"
            for child in children[:MAX_CHILDREN]
        ]
        if len(children) > MAX_CHILDREN:
            parts.append("...")
        return "{" + ", ".join(parts) + "}"


def breakpoint_requests(
    scenario: DapScenario, source: Path
) -> tuple[dict[str | Path, list[int]], list[str]]:
    lines = [marker_line(source, b[1:]) for b in scenario.breakpoints if b.startswith("@")]
    functions = [b for b in scenario.breakpoints if not b.startswith("@")]
    return ({source: lines} if lines else {}), functions


def run_side(
    side: AdapterSide,
    scenario: DapScenario,
    program: Path,
    source: Path,
    exact_pointers: bool = False,
) -> tuple[list[DapStop], list[str]]:
    """The stops `side` reports for `scenario`, and (ours) the protocol problems seen."""
    client = DapClient.spawn(
        side.argv,
        cwd=program.parent,
        env=fixed_env(),
        validate=side.validate,
        strict_seq=side.strict_seq,
        name=side.name,
    )
    stops: list[DapStop] = []
    try:
        lines, functions = breakpoint_requests(scenario, source)
        launch = launch_arguments(program, args=scenario.args, cwd=program.parent)
        if side.name == "lldb" and scenario.lldb_commands:
            launch["preRunCommands"] = list(scenario.lldb_commands)
        session = start_session(
            client,
            program,
            breakpoints=lines,
            function_breakpoints=functions,
            launch=launch,
            timeout=TIMEOUT,
        )
        recorder = Recorder(client, exact_pointers, scenario.compare_values)
        event = session.stop
        for step in range(len(scenario.actions) + 1):
            if event is None:
                break
            stops.append(recorder.stop(event))
            if event.get("event") != "stopped" or step == len(scenario.actions):
                break
            thread = int(event["body"]["threadId"])
            event = client.resume(scenario.actions[step], thread, TIMEOUT)
        return stops, (client.problems() if side.validate else [])
    finally:
        client.close()


# --- comparison ---------------------------------------------------------------------------


def compare(
    scenario: DapScenario, lldb: Sequence[DapStop], ours: Sequence[DapStop], source: str
) -> Outcome:
    outcome = Outcome(scenario, list(lldb), list(ours))

    def check(stop: int, aspect: str, same: bool, theirs: str, mine: str) -> None:
        if same:
            outcome.agreements += 1
        else:
            outcome.differences.append(Difference(scenario.name, stop, aspect, theirs, mine))

    check(-1, "stops", len(lldb) == len(ours), str(len(lldb)), str(len(ours)))
    for index, (a, b) in enumerate(zip(lldb, ours, strict=False)):
        check(index, "event", a.event == b.event, a.event, b.event)
        if a.event != b.event:
            continue
        check(index, "reason", a.reason == b.reason, a.reason, b.reason)
        if a.event != "stopped":
            continue
        check(index, "position", a.position == b.position, str(a.position), str(b.position))
        same = frames_agree(a.frames, b.frames, source)
        check(index, "frames", same, a.describe_frames(), b.describe_frames())
        if scenario.compare_values:
            mine = dict(b.variables)
            theirs = dict(a.variables)
            for name in sorted(set(theirs) | set(mine)):
                same_value = theirs.get(name) == mine.get(name)
                if name in scenario.unassigned:
                    same_value = (name in theirs) == (name in mine)
                check(
                    index,
                    f"variable {name}",
                    same_value,
                    theirs.get(name, "<absent>"),
                    mine.get(name, "<absent>"),
                )
    return outcome


def diff(
    scenario: DapScenario,
    builder: Builder,
    lldb: AdapterSide,
    ours: AdapterSide,
    exact_pointers: bool = False,
) -> Outcome:
    started = time.monotonic()
    program = builder.build(scenario.program)
    source = builder.source(scenario.program)
    theirs, _ = run_side(lldb, scenario, program, source, exact_pointers)
    mine, problems = run_side(ours, scenario, program, source, exact_pointers)
    outcome = compare(scenario, theirs, mine, source.name)
    outcome.protocol_problems = problems
    outcome.seconds = time.monotonic() - started
    return outcome


SCENARIOS: tuple[DapScenario, ...] = (
    # The markers and actions of source_diff's scenarios, in DAP terms.
    DapScenario("basic-deep", "src_basic", ("@leaf",), ("next", "stepOut", "next")),
    DapScenario(
        "basic-recursion",
        "src_basic",
        ("@fact_base",),
        ("stepOut", "next", "stepOut"),
        unassigned=("below",),  # at the base case and just after the call returns
    ),
    DapScenario("basic-into", "src_basic", ("@call_top",), ("stepIn", "stepIn", "stepIn", "next")),
    DapScenario("basic-loop", "src_basic", ("loop_sum",), ("next",) * 12),
    DapScenario("basic-values", "src_basic", ("@vars",), ("stepOut", "next")),
    DapScenario(
        "basic-signal",
        "src_basic",
        ("@handler",),
        ("next",),
        # Ours passes SIGUSR1 to the program without stopping (source_diff tells gdb the same).
        lldb_commands=("process handle SIGUSR1 --stop false --notify false --pass true",),
    ),
    # The program the DAP client tests use: a loop breakpoint to the exit, and stepping.
    DapScenario("dap-loop", "dap_basic", ("@main_loop",), ("continue", "continue")),
    DapScenario(
        "dap-step",
        "dap_basic",
        ("@sum_loop",),
        ("stepIn", "next", "stepOut", "next"),
        unassigned=("r",),  # square's r at the stepIn stop, before `int r = v * v` runs
    ),
    DapScenario("dap-function", "dap_basic", ("square",), ("stepOut", "continue")),
)


def by_name(names: Sequence[str]) -> list[DapScenario]:
    known = {s.name: s for s in SCENARIOS}
    missing = [n for n in names if n not in known]
    if missing:
        raise KeyError(f"unknown scenarios: {', '.join(missing)}")
    return [known[n] for n in names]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m conformance.dap_diff", description=__doc__)
    parser.add_argument("scenarios", nargs="*", help="names (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every difference")
    parser.add_argument("--cache", type=Path, help="build directory (default: a temporary one)")
    parser.add_argument(
        "--exact-pointers", action="store_true", help="compare pointer values, not just null-ness"
    )
    options = parser.parse_args(argv)
    chosen = by_name(options.scenarios) if options.scenarios else list(SCENARIOS)
    lldb, ours = sides()
    compiler = find_compiler()
    if lldb is None or compiler is None:
        missing = "lldb-vscode-16 (Debian: lldb-16)" if lldb is None else "gcc"
        print(f"dap_diff: skipped, {missing} not found")
        return 0
    rows: list[tuple[str, str, str, str, str]] = []
    total = 0
    with tempfile.TemporaryDirectory(prefix="alice-dap-diff-") as tmp:
        cache = options.cache or Path(tmp)
        cache.mkdir(parents=True, exist_ok=True)
        builder = Builder(cache, compiler)
        for scenario in chosen:
            try:
                outcome = diff(scenario, builder, lldb, ours, options.exact_pointers)
            except (DapError, OSError, LookupError, AssertionError) as error:
                total += 1
                rows.append(
                    (scenario.name, "-", "-", "-", f"error: {type(error).__name__}: {error}")
                )
                continue
            count = len(outcome.differences) + len(outcome.protocol_problems)
            total += count
            aspects = sorted({d.aspect.split(" ")[0] for d in outcome.differences})
            if outcome.protocol_problems:
                aspects.append(f"{len(outcome.protocol_problems)} protocol problems")
            rows.append(
                (
                    scenario.name,
                    str(len(outcome.lldb)),
                    str(outcome.agreements),
                    str(count),
                    ", ".join(aspects) if aspects else f"ok ({outcome.seconds:.1f}s)",
                )
            )
            if options.verbose:
                for difference in outcome.differences:
                    print(f"  {difference}")
                for problem in outcome.protocol_problems:
                    print(f"  {scenario.name} protocol: {problem}")
    header = ("scenario", "stops", "agree", "differ", "notes")
    widths = [max(len(r[i].splitlines()[0]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
    print(f"{len(chosen)} scenarios, {total} differences")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
