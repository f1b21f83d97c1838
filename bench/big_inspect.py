"""Stack inspection at a stop in a large program: aliceserver's DAP adapter against
lldb-vscode-16, in the same run.

CPython (bench/large_program: Debian's source built with -g -O3, about 17 MB of DWARF) runs a
small script whose sort key calls `divmod`; a function breakpoint on `builtin_divmod` stops
it about 20 frames deep, in and under `_PyEval_EvalFrameDefault` and its inlined calls.
At the first stop, and then at `--later` stops after `continue`, a client asks what an
editor asks: `stackTrace` (frames 0-20), `scopes` of the top frame and `variables` of its
locals/arguments scopes. Each session is fresh; one session per adapter is run first and
not counted, so the adapters' on-disk caches (ours: the index) are warm, as after any earlier
session. Figures are the best of `--repeat` sessions (the first stop) and the median of the
later stops of the best session; ratios > 1 mean ours is slower.

Then the same on the sqlite shell (bench/sqlite_program: Debian's sqlite3 source, the
amalgamation at -O0), stopped in `hexFunc` under the VDBE by a recursive query; `--no-sqlite`
leaves it out.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench import large_program, sqlite_program
from bench.dap_requests import checkout_argv
from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session

TIMEOUT = 120.0
SCRIPT = "sorted(range(400), key=lambda x: divmod(x, 7))"
FUNCTION = "builtin_divmod"
REQUESTS = ("stackTrace", "scopes", "variables")


@dataclass(frozen=True)
class Target:
    """A program, its arguments and the function to stop in."""

    name: str
    program: Path
    args: tuple[str, ...]
    function: str


@dataclass
class Inspection:
    """Milliseconds per request at one stop, and how many frames came back."""

    ms: dict[str, float] = field(default_factory=dict)
    frames: int = 0

    @property
    def total(self) -> float:
        return sum(self.ms.values())


def inspect(client: DapClient, thread: int) -> Inspection:
    """stackTrace 0-20, scopes of the top frame, variables of its locals and arguments."""
    seen = Inspection()
    begin = time.perf_counter()
    frames = client.stack_trace(thread, 0, 20)
    now = time.perf_counter()
    seen.ms["stackTrace"], begin, seen.frames = (now - begin) * 1000, now, len(frames)
    scopes = client.scopes(int(frames[0]["id"]))
    now = time.perf_counter()
    seen.ms["scopes"], begin = (now - begin) * 1000, now
    for scope in scopes:
        hint = scope.get("presentationHint")
        label = str(scope.get("name", "")).lower()
        if hint in ("locals", "arguments") or label.startswith(("local", "argument")):
            client.variables(int(scope["variablesReference"]))
    seen.ms["variables"] = (time.perf_counter() - begin) * 1000
    return seen


@dataclass
class SessionResult:
    first: Inspection
    later: list[Inspection]

    @property
    def later_total(self) -> float:
        return statistics.median(i.total for i in self.later) if self.later else 0.0

    def later_ms(self, request: str) -> float:
        return statistics.median(i.ms[request] for i in self.later) if self.later else 0.0


def session(tool: str, argv: Sequence[str], target: Target, later: int) -> SessionResult:
    client = DapClient.spawn(argv, cwd=target.program.parent, name=tool)
    try:
        started = start_session(
            client,
            target.program,
            function_breakpoints=[target.function],
            launch=launch_arguments(target.program, args=list(target.args)),
            timeout=TIMEOUT,
        )
        thread = started.thread_id
        first = inspect(client, thread)
        after: list[Inspection] = []
        for _ in range(later):
            event = client.continue_(thread, TIMEOUT)
            if event.get("event") != "stopped":
                raise RuntimeError(f"{tool}: expected a stop, got {event}")
            thread = int(event["body"]["threadId"])
            after.append(inspect(client, thread))
    finally:
        client.close()
    return SessionResult(first, after)


def measure(target: Target, tools: dict[str, list[str]], args: argparse.Namespace) -> None:
    print(f"{target.name}: {target.program.name} {' '.join(target.args)[:60]!r}, "
          f"break {target.function}")  # fmt: skip
    runs: dict[str, list[SessionResult]] = {tool: [] for tool in tools}
    for tool, argv in tools.items():  # warms the caches; not counted
        session(tool, argv, target, 1)
    for _ in range(args.repeat):  # interleaved, so a slow spell falls on both alike
        for tool, argv in tools.items():
            runs[tool].append(session(tool, argv, target, args.later))
    best = {tool: min(results, key=lambda r: r.first.total) for tool, results in runs.items()}
    later_best = {tool: min(results, key=lambda r: r.later_total) for tool, results in runs.items()}
    print(f"  {'adapter':<13}{'frames':>7}" + "".join(f"{n:>12}" for n in REQUESTS) + f"{'total':>10}")
    for tool in tools:
        first, later_run = best[tool].first, later_best[tool]
        print(f"  {tool:<13}{first.frames:>7}" + "".join(f"{first.ms[n]:>12.1f}" for n in REQUESTS)
              + f"{first.total:>10.1f}  first stop, ms")  # fmt: skip
        print(f"  {'':<13}{'':>7}" + "".join(f"{later_run.later_ms(n):>12.1f}" for n in REQUESTS)
              + f"{later_run.later_total:>10.1f}  later stops (median), ms")  # fmt: skip
    if "lldb-vscode" in tools:
        ours, theirs = best["aliceserver"].first, best["lldb-vscode"].first
        ratios = ", ".join(f"{n} {ours.ms[n] / max(theirs.ms[n], 1e-3):.2f}" for n in REQUESTS)
        print(f"  ratio to lldb-vscode, first stop: total {ours.total / theirs.total:.2f} "
              f"({ratios})")  # fmt: skip
        ours_later = later_best["aliceserver"].later_total
        theirs_later = later_best["lldb-vscode"].later_total
        print(f"  ratio to lldb-vscode, later stops: total {ours_later / theirs_later:.2f}")


def cpython() -> Target:
    return Target("CPython", large_program.build(), ("-S", "-c", SCRIPT), FUNCTION)


def sqlite() -> Target:
    program = sqlite_program.build()
    return Target("sqlite", program, sqlite_program.ARGS, sqlite_program.FUNCTION)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only big_inspect", description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--later", type=int, default=5, help="stops after the first")
    parser.add_argument("--no-sqlite", action="store_true", help="CPython alone")
    parser.add_argument("--no-cpython", action="store_true", help="sqlite alone")
    parser.add_argument("--also", action="append", help="another checkout of ours to measure")
    args, _ = parser.parse_known_args(argv)
    tools = {"aliceserver": alice_argv()}
    for root in args.also or []:  # e.g. a worktree of an older commit
        tools[f"alice@{Path(root).name}"] = checkout_argv(root)
    lldb = find_lldb_vscode()
    if lldb is None:
        print("lldb-vscode-16: not found (Debian package lldb-16), ours alone")
    else:
        tools["lldb-vscode"] = [lldb]
    if not args.no_cpython:
        measure(cpython(), tools, args)
    if not args.no_sqlite:
        measure(sqlite(), tools, args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
