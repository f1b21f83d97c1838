"""Tracing overhead: calls per second of a traced hot function, and the store's events/s.

The program calls `hit_target(i)` N times. The engine runs it untraced (baseline), then
with `hit_target` traced by a Tracer recording every call (arguments, return value: two
store rows per call) by traps, with the default sampling of hot functions (traps), and by
jump patches (records in rings in the program, drained into the store by a server thread).
Calls/s = N / (t_traced - t_baseline), t from the resume to: the program's exit
("patched-prog": the rings hold the records, the drain goes on after), every record handed
to the store's queue ("patched"), every row committed ("patched-commit": queries see
them), the first query's answer ("patched-query": a page of the function's returns, the
default 100, and their total). The patched runs use the default ring
memory (settings as a user gets them) and report what the rings dropped. The overhead with a pattern that matches nothing hot: `main` patched, many calls, program time
against the untraced run. gdb runs the same program with `dprintf hit_target,...` for a
ratio. The store is also measured alone: rows appended by one thread, committed by its writer.
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
from dataclasses import dataclass
from pathlib import Path

from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.model import LaunchConfig, StdioMode
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.debuggers.ptrace.patches.trace_rings import RingLayout
from aliceserver.tracing import QueryFilters, Tracer, TraceStore, query
from aliceserver.tracing.tracer import DEFAULT_MAX_RATE
from bench.common import Rate, build_program, print_table

FUNCTION = "hit_target"
GDB_SCRIPT = (
    "set pagination off\nset confirm off\nset debuginfod enabled off\n"
    'dprintf hit_target,"hit_target(%d)\\n",i\nrun\n'
)


@dataclass(frozen=True, slots=True)
class Run:
    elapsed: float  # resume to the exit, the last records drained into the store's queue
    program: float  # resume to the Exited event (the program's own time)
    recorded: int  # calls with a return row in the store
    summary: str
    final_rows: int = 0  # rows the drain at the exit handed over
    final_seconds: float = 0.0
    queryable: float = 0.0  # resume to the first query's answer
    committed: float = 0.0  # resume to every row committed in the store
    dropped: int = 0  # records the rings dropped (counted)


def engine_run(program: Path, calls: int, mode: str, directory: str, ring_slots: int = 0) -> Run:
    """One run under the engine; mode: off, traps (every call), sampled (traps, default
    rate), patched (every call), cold (patches on `main` only: nothing hot traced)."""
    debugger = PtraceDebugger()
    events = debugger.subscribe()  # before the launch: its events are ours
    store = TraceStore(f"bench-{mode}", directory)
    tracer = None
    try:
        debugger.launch(LaunchConfig(str(program), args=(str(calls),), stdio=StdioMode.PIPES))
        debugger.insert_breakpoint(debugger.lookup_symbol("main"), temporary=True)
        debugger.resume()  # patches need a thread stopped where it can run system calls
        while not isinstance(events.get(timeout=30), Stopped):
            pass
        recorder = debugger.call_recorder
        if ring_slots and recorder is not None:  # a ring holding the whole run: nothing dropped
            recorder.layout = RingLayout(rings=1, capacity=ring_slots)
        if mode != "off":
            max_rate = DEFAULT_MAX_RATE if mode == "sampled" else None
            tracer = Tracer(debugger, store, project_root=str(program.parent), max_rate=max_rate,
                            patches=mode in ("patched", "cold"))  # fmt: skip
            target = "main" if mode == "cold" else FUNCTION
            change = tracer.add([target])
            if change.added != (target,):
                raise RuntimeError(f"could not trace {target}: {change}")
        start = time.perf_counter()
        debugger.resume()
        deadline = start + 60 + calls / 1000
        while not isinstance(event := events.get(timeout=max(0.1, deadline - time.perf_counter())), Exited):
            if tracer is not None:
                tracer.observe(event)
        program_time = time.perf_counter() - start
        queued = store.counts[0]
        if tracer is not None:
            tracer.observe(event)  # the last records drained before the exit is recorded
        elapsed = time.perf_counter() - start
        if event.code != 0:
            raise RuntimeError(f"the program failed under the engine: {event}")
        if tracer is None or mode == "cold":
            return Run(elapsed, program_time, 0, tracer.status().summary() if tracer else "")
        final_rows = store.counts[0] - queued - 1  # less the exit row
        status = tracer.status()
        seen = status.functions[0].calls if status.functions else 0
        if seen != calls:
            raise RuntimeError(f"{seen} calls counted, expected {calls}")
        store.flush(timeout=600)
        committed = time.perf_counter() - start
        # The first query a user makes: a page (the default 100) of the function's returns,
        # with the total; the store's indexes are built after it.
        first = query(store, QueryFilters(kinds=("return",), function=FUNCTION))
        queryable = time.perf_counter() - start
        recorded = first.total
        if len(first.events) != min(recorded, QueryFilters().limit):
            raise RuntimeError(f"the first query gave {len(first.events)} events of {recorded}")
        traced = status.functions[0]
        summary = f"{status.summary()}; {traced.how}, overflow {traced.overflow}; rings {status.ring_memory}"
        return Run(elapsed, program_time, recorded, summary, final_rows, elapsed - program_time, queryable,
                   committed, traced.overflow)  # fmt: skip
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


def best_run(program: Path, calls: int, mode: str, directory: str, repeat: int, ring_slots: int = 0) -> Run:
    runs = []
    for i in range(repeat):
        run = engine_run(program, calls, mode, directory, ring_slots)
        print(f"  engine {mode} run {i + 1}/{repeat}: {run.elapsed:.3f} s (program {run.program:.3f} s), "
              f"{run.recorded} calls recorded")  # fmt: skip
        runs.append(run)
    best = min(runs, key=lambda r: r.elapsed)
    print(f"  engine {mode}: {best.summary}")
    return best


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="trace_calls", description=__doc__)
    parser.add_argument("--calls", type=int, default=50_000, help="calls of the traced function (traps)")
    parser.add_argument("--patched-calls", type=int, default=1_000_000, help="the same, with patches")
    parser.add_argument("--cold-calls", type=int, default=200_000_000, help="calls for the overhead run")
    parser.add_argument("--gdb-calls", type=int, help="calls under gdb (default: min(calls, 10000))")
    parser.add_argument("--repeat", type=int, default=2, help="runs per measurement (best kept)")
    parser.add_argument("--store-rows", type=int, default=200_000)
    args = parser.parse_args(argv)
    program = build_program("hits")
    rates: list[Rate] = []
    with tempfile.TemporaryDirectory(prefix="aliceserver-trace-bench-") as directory:
        def off(calls: int) -> float:
            return min(engine_run(program, calls, "off", directory).elapsed for _ in range(args.repeat))

        baseline, patched_baseline = off(args.calls), off(args.patched_calls)
        # The overhead: untraced and `main` patched alternately (the machine's speed drifts).
        cold_baseline, cold_time = float("inf"), float("inf")
        for _ in range(args.repeat + 3):
            cold_baseline = min(cold_baseline, engine_run(program, args.cold_calls, "off", directory).program)
            cold_time = min(cold_time, engine_run(program, args.cold_calls, "cold", directory).program)
        for mode in ("traps", "sampled"):
            run = best_run(program, args.calls, mode, directory, args.repeat)
            rates.append(Rate(f"engine-{mode}", args.calls, run.elapsed - baseline, baseline))
        patched = best_run(program, args.patched_calls, "patched", directory, args.repeat)
        if patched.recorded != args.patched_calls:
            print(f"  patched: only {patched.recorded} of {args.patched_calls} calls recorded (rings overflowed)")
        n, base = args.patched_calls, patched_baseline
        program_rate = Rate("patched-prog", n, patched.program - base, base)
        handed = Rate("patched", patched.recorded, patched.elapsed - base, base)
        committed = Rate("patched-commit", patched.recorded, patched.committed - base, base)
        queried = Rate("patched-query", patched.recorded, patched.queryable - base, base)
        rates += [handed, program_rate, committed, queried]
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
    drain = patched.final_rows / patched.final_seconds if patched.final_seconds > 0 else float("inf")
    print(f"patched, default ring memory: {patched.recorded:,} of {args.patched_calls:,} calls recorded, "
          f"{patched.dropped:,} records dropped ({patched.summary})")  # fmt: skip
    print(f"drain at the exit: {patched.final_rows:,} rows in {patched.final_seconds:.3f} s ({drain:,.0f} rows/s)")
    overhead = 100 * (cold_time - cold_baseline) / cold_baseline
    print(f"overhead with nothing hot traced (main patched, {args.cold_calls:,} calls): {overhead:+.1f}% "
          f"({cold_time:.3f} s vs {cold_baseline:.3f} s untraced, best of {args.repeat + 3} each)")  # fmt: skip
    for name, rate in (("traps", rates[-6]), ("patched, program side", program_rate),
                       ("patched, until handed to the store", handed),
                       ("patched, until every row is committed", committed),
                       ("patched, until the first query answers", queried)):  # fmt: skip
        ratio = f"{rate.per_second / gdb_rate.per_second:.1f}" if gdb_rate is not None else "n/a"
        print(f"traced calls/s, every call recorded, {name}: {rate.per_second:,.0f}; vs gdb dprintf: {ratio}x")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
