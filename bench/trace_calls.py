"""Tracing overhead: calls per second of a traced hot function, and the store's events/s.

The program calls `hit_target(i)` N times. The engine runs it untraced (baseline), then
with `hit_target` traced by a Tracer recording every call (arguments, return value: two
store rows per call), then with the default sampling of hot functions. Calls/s =
N / (t_traced - t_baseline). gdb runs the same program with `dprintf hit_target,...`
(which prints the argument at every call) for a ratio. The store is also measured alone:
rows appended by one thread, committed by its writer.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from aliceserver.debuggers.events import Exited
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig, StdioMode
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.tracing import QueryFilters, Tracer, TraceStore, query
from aliceserver.tracing.tracer import DEFAULT_MAX_RATE
from bench.common import Rate, build_program, print_table

FUNCTION = "hit_target"
GDB_SCRIPT = (
    "set pagination off\nset confirm off\nset debuginfod enabled off\n"
    'dprintf hit_target,"hit_target(%d)\\n",i\nrun\n'
)


def wait_exit(events: Subscription, tracer: Tracer | None, timeout: float) -> Exited:
    deadline = time.monotonic() + timeout
    while True:
        event = events.get(timeout=max(0.1, deadline - time.monotonic()))
        if tracer is not None:
            tracer.observe(event)
        if isinstance(event, Exited):
            return event


def engine_run(program: Path, calls: int, mode: str, directory: str) -> tuple[float, int, str]:
    """(seconds from resume to exit, calls recorded, status summary); mode: off/full/sampled."""
    debugger = PtraceDebugger()
    events = debugger.subscribe()  # before the launch: its events are ours
    store = TraceStore(f"bench-{mode}", directory)
    tracer = None
    try:
        debugger.launch(LaunchConfig(str(program), args=(str(calls),), stdio=StdioMode.PIPES))
        if mode != "off":
            max_rate = None if mode == "full" else DEFAULT_MAX_RATE
            tracer = Tracer(debugger, store, project_root=str(program.parent), max_rate=max_rate)
            change = tracer.add([FUNCTION])
            if change.added != (FUNCTION,):
                raise RuntimeError(f"could not trace {FUNCTION}: {change}")
        start = time.perf_counter()
        debugger.resume()
        exited = wait_exit(events, tracer, 60 + calls / 1000)
        elapsed = time.perf_counter() - start
        if exited.code != 0:
            raise RuntimeError(f"the program failed under the engine: {exited}")
        if tracer is None:
            return elapsed, 0, ""
        status = tracer.status()
        seen = status.functions[0].calls if status.functions else 0
        if seen != calls:
            raise RuntimeError(f"{seen} calls counted, expected {calls}")
        recorded = query(store, QueryFilters(kinds=("return",), function=FUNCTION, limit=0)).total
        return elapsed, recorded, status.summary()
    finally:
        debugger.close()
        store.close()


def gdb_run(gdb: str, program: Path, calls: int) -> float:
    with tempfile.NamedTemporaryFile("w", suffix=".gdb") as script:
        script.write(GDB_SCRIPT)
        script.flush()
        argv = [gdb, "-nx", "-batch", "-x", script.name, "--args", str(program), str(calls)]
        start = time.perf_counter()
        done = subprocess.run(argv, check=False, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=60 + calls / 200)  # fmt: skip
        elapsed = time.perf_counter() - start
    printed = len(re.findall(r"^hit_target\(\d+\)$", done.stdout, re.MULTILINE))
    if printed != calls:
        raise RuntimeError(f"gdb printed {printed} dprintf lines, expected {calls}:\n{done.stdout[-1000:]}")
    return elapsed


def gdb_baseline(gdb: str, program: Path, calls: int) -> float:
    argv = [gdb, "-nx", "-batch", "-ex", "run", "--args", str(program), str(calls)]
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    return time.perf_counter() - start


def store_rate(rows: int, directory: str) -> Rate:
    """Rows/s through append() and the writer thread, until all are committed."""
    store = TraceStore("bench-store", directory)
    try:
        row = ("return", 0, 1, FUNCTION, "/src/hits.c", 7, 1, None, 0, None, "1", 1500, None, None)
        start = time.perf_counter()
        for i in range(rows):
            store.append((*row[:1], i, *row[2:6], i, *row[7:]))
        store.flush()
        return Rate("store", rows, time.perf_counter() - start, 0.0)
    finally:
        store.close()


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="trace_calls", description=__doc__)
    parser.add_argument("--calls", type=int, default=50_000, help="calls of the traced function")
    parser.add_argument("--gdb-calls", type=int, help="calls under gdb (default: min(calls, 10000))")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement (best kept)")
    parser.add_argument("--store-rows", type=int, default=200_000)
    args = parser.parse_args(argv)
    program = build_program("hits")
    rates: list[Rate] = []
    with tempfile.TemporaryDirectory(prefix="aliceserver-trace-bench-") as directory:
        baseline = min(engine_run(program, args.calls, "off", directory)[0] for _ in range(args.repeat))
        for mode in ("full", "sampled"):
            best, recorded, summary = float("inf"), 0, ""
            for i in range(args.repeat):
                elapsed, recorded, summary = engine_run(program, args.calls, mode, directory)
                best = min(best, elapsed)
                print(f"  engine {mode} run {i + 1}/{args.repeat}: {elapsed:.3f} s, {recorded} calls recorded")
            print(f"  engine {mode}: {summary}")
            rates.append(Rate(f"engine-{mode}", args.calls, best - baseline, baseline))
        store = store_rate(args.store_rows, directory)
    gdb = shutil.which("gdb")
    gdb_rate = None
    if gdb is None:
        print("gdb: not found, skipped")
    else:
        n = args.gdb_calls or min(args.calls, 10_000)
        base = min(gdb_baseline(gdb, program, n) for _ in range(args.repeat))
        traced = min(gdb_run(gdb, program, n) for _ in range(args.repeat))
        gdb_rate = Rate("gdb-dprintf", n, traced - base, base)
        rates.insert(0, gdb_rate)
    print_table(rates)
    print(f"store: {store.per_second:,.0f} events/s ({store.hits} rows in {store.seconds:.3f} s)")
    full = rates[-2]
    ratio = f"{full.per_second / gdb_rate.per_second:.1f}" if gdb_rate is not None else "n/a"
    print(f"traced calls/s, every call recorded: {full.per_second:,.0f} (target 20,000); vs gdb dprintf: {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
