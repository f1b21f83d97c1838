"""DAP stop round trips: aliceserver's adapter against lldb-vscode-16, in the same run.

One round trip is what a client such as VS Code does at every stop: `continue` until the
`stopped` event, then `threads`, `stackTrace` (20 frames), `scopes` of the top frame and
`variables` of its locals/arguments scopes. Both adapters run over stdio under the same
client (tests/support/dap_client.py), on bench/programs/dap_loop.c with a breakpoint on the
loop body; after `--warmup` round trips, `--iterations` are timed one by one. The median is
reported (with the 90th percentile), best of `--repeat` sessions per adapter.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.common import PROGRAMS, build_program
from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session

TIMEOUT = 30.0


@dataclass(frozen=True)
class RoundTrips:
    tool: str
    stop_ms: list[float]  # continue sent -> stopped event received
    total_ms: list[float]  # continue sent -> last variables response received
    request_ms: dict[str, list[float]]  # per request of the inspection, e.g. "stackTrace"

    @property
    def median(self) -> float:
        return statistics.median(self.total_ms)

    @property
    def p90(self) -> float:
        ordered = sorted(self.total_ms)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]

    @property
    def per_second(self) -> float:
        return 1000.0 / self.median if self.median > 0 else float("inf")


def marker_line() -> int:
    for number, text in enumerate((PROGRAMS / "dap_loop.c").read_text().splitlines(), 1):
        if "@bp:loop" in text:
            return number
    raise RuntimeError("dap_loop.c lost its @bp:loop marker")


def inspect(client: DapClient, thread: int) -> dict[str, float]:
    """What a client asks for at a stop: threads, frames, the top frame's scopes and locals.
    The milliseconds each kind of request took (variables: all scopes together)."""
    spent: dict[str, float] = {}
    begin = time.perf_counter()
    client.threads()
    now = time.perf_counter()
    spent["threads"], begin = (now - begin) * 1000, now
    frames = client.stack_trace(thread, 0, 20)
    now = time.perf_counter()
    spent["stackTrace"], begin = (now - begin) * 1000, now
    scopes = client.scopes(int(frames[0]["id"]))
    now = time.perf_counter()
    spent["scopes"], begin = (now - begin) * 1000, now
    for scope in scopes:
        hint = scope.get("presentationHint")
        label = str(scope.get("name", "")).lower()
        if hint in ("locals", "arguments") or label.startswith(("local", "argument")):
            client.variables(int(scope["variablesReference"]))
    spent["variables"] = (time.perf_counter() - begin) * 1000
    return spent


def session(
    tool: str, argv: Sequence[str], program: Path, iterations: int, warmup: int
) -> RoundTrips:
    source = PROGRAMS / "dap_loop.c"
    count = warmup + iterations + 10  # the program outlives the measurement
    client = DapClient.spawn(argv, cwd=program.parent, name=tool)
    stops: list[float] = []
    totals: list[float] = []
    requests: dict[str, list[float]] = {}
    try:
        started = start_session(
            client,
            program,
            breakpoints={source: [marker_line()]},
            launch=launch_arguments(program, args=[str(count)]),
            timeout=TIMEOUT,
        )
        thread = started.thread_id
        inspect(client, thread)
        for index in range(warmup + iterations):
            begin = time.perf_counter()
            mark = client.mark()
            client.call("continue", {"threadId": thread}, TIMEOUT)
            event = client.wait_stop_or_exit(mark, TIMEOUT)
            stopped = time.perf_counter()
            if event.get("event") != "stopped":
                raise RuntimeError(f"{tool}: expected a stop, got {event}")
            thread = int(event["body"]["threadId"])
            spent = inspect(client, thread)
            end = time.perf_counter()
            if index >= warmup:
                stops.append((stopped - begin) * 1000)
                totals.append((end - begin) * 1000)
                for name, ms in spent.items():
                    requests.setdefault(name, []).append(ms)
    finally:
        client.close()
    return RoundTrips(tool, stops, totals, requests)


def best(tool: str, argv: Sequence[str], program: Path, args: argparse.Namespace) -> RoundTrips:
    runs = [session(tool, argv, program, args.iterations, args.warmup) for _ in range(args.repeat)]
    return min(runs, key=lambda run: run.median)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench --only dap_roundtrip", description=__doc__
    )
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    args, _ = parser.parse_known_args(argv)
    program = build_program("dap_loop")
    results = [best("aliceserver", alice_argv(), program, args)]
    lldb = find_lldb_vscode()
    if lldb is None:
        print("lldb-vscode-16: not found (Debian package lldb-16), skipped")
    else:
        results.append(best("lldb-vscode", [lldb], program, args))
    print(
        f"{'adapter':<14}{'trips':>7}{'stop ms':>10}{'median ms':>11}{'p90 ms':>9}{'trips/s':>10}"
    )
    for r in results:
        print(
            f"{r.tool:<14}{len(r.total_ms):>7}{statistics.median(r.stop_ms):>10.2f}"
            f"{r.median:>11.2f}{r.p90:>9.2f}{r.per_second:>10,.0f}"
        )
    names = list(results[0].request_ms)
    print("median ms per request: " + ", ".join(names))
    for r in results:
        cells = "  ".join(f"{statistics.median(r.request_ms[n]):.2f}" for n in names)
        print(f"  {r.tool:<14}{cells}")
    if len(results) == 2:
        # > 1: our round trip is faster than lldb-vscode's.
        print(f"stop round trip ratio vs lldb-vscode: {results[1].median / results[0].median:.2f}")
    else:
        print("stop round trip ratio vs lldb-vscode: n/a")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
