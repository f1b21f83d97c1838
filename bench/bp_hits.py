"""Breakpoint hits per second: this engine against gdb, on a function called N times.

Each tool runs the program once with a breakpoint on `hit_target` that counts every hit
and lets the program go on (gdb: `commands / silent / continue / end`; the engine: a
condition returning False), and once without it; hits/s = hits / (t_breakpoint - t_baseline).
Each measurement is repeated and the best (shortest) time kept.
"""

from __future__ import annotations

import argparse
import importlib
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Exited, Output
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig, StdioMode
from bench.common import Rate, build_program, print_table

FUNCTION = "hit_target"
GDB_SETUP = "set pagination off\nset confirm off\nset debuginfod enabled off\n"
GDB_BREAK = f"break {FUNCTION}\ncommands 1\nsilent\ncontinue\nend\n"
GDB_RUN = "run\ninfo breakpoints\n"
GDB_HITS = re.compile(r"already hit (\d+) times?")


def gdb_run(gdb: str, program: Path, hits: int, *, breakpoint: bool) -> tuple[float, int]:
    """One gdb session in batch mode: (wall seconds, hits gdb counted)."""
    script = GDB_SETUP + (GDB_BREAK if breakpoint else "") + GDB_RUN
    with tempfile.NamedTemporaryFile("w", suffix=".gdb") as commands:
        commands.write(script)
        commands.flush()
        argv = [gdb, "-nx", "-batch", "-x", commands.name, "--args", str(program), str(hits)]
        start = time.perf_counter()
        done = subprocess.run(
            argv,
            check=False,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60 + hits / 500,
        )
        elapsed = time.perf_counter() - start
    output = done.stdout + done.stderr
    if done.returncode != 0 or "exited normally" not in output:
        raise RuntimeError(f"gdb run failed (exit {done.returncode}):\n{output[-2000:]}")
    found = GDB_HITS.search(output)
    return elapsed, int(found.group(1)) if found else 0


def wait_exit(events: Subscription, timeout: float) -> Exited:
    """Drain the engine's events until Exited; fail loudly if it does not come."""
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    while True:
        try:
            event = events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            message = f"no Exited event within {timeout:.0f} s; last events: {seen[-5:]}"
            raise TimeoutError(message) from None
        if isinstance(event, Exited):
            return event
        if not isinstance(event, Output):
            seen.append(repr(event))


def engine_run(
    factory: Callable[[], IDebugger], program: Path, hits: int, *, breakpoint: bool
) -> tuple[float, int]:
    """One engine session: (seconds from resume() to Exited, the breakpoint's hit_count)."""
    dbg = factory()
    events = dbg.subscribe()  # before the launch: its events are ours
    try:
        dbg.launch(LaunchConfig(program=str(program), args=(str(hits),), stdio=StdioMode.PIPES))
        bp_id = None
        if breakpoint:
            address = dbg.lookup_symbol(FUNCTION)
            bp_id = dbg.insert_breakpoint(address, condition=lambda tid: False).id
        start = time.perf_counter()
        dbg.resume()
        exited = wait_exit(events, timeout=60 + hits / 500)
        elapsed = time.perf_counter() - start
        if exited.code != 0:
            raise RuntimeError(f"program did not exit cleanly under the engine: {exited}")
        if bp_id is None:
            return elapsed, 0
        counts = [b.hit_count for b in dbg.breakpoints() if b.id == bp_id]
        if not counts:
            raise RuntimeError(f"breakpoint {bp_id} is gone from breakpoints() after exit")
        return elapsed, counts[0]
    finally:
        dbg.close()


def best_rate(tool: str, run: Callable[[bool], tuple[float, int]], hits: int, repeat: int) -> Rate:
    """Best-of-`repeat` baseline and breakpoint runs; checks every run counted `hits` hits."""
    baseline, with_bp = float("inf"), float("inf")
    for i in range(repeat):
        base_s = run(False)[0]
        bp_s, counted = run(True)
        if counted != hits:
            raise RuntimeError(f"{tool} counted {counted} hits, expected {hits}")
        baseline, with_bp = min(baseline, base_s), min(with_bp, bp_s)
        print(f"  {tool} run {i + 1}/{repeat}: baseline {base_s:.3f} s, breakpoint {bp_s:.3f} s")
    return Rate(tool, hits, with_bp - baseline, baseline)


def load_engine() -> Callable[[], IDebugger]:
    module = importlib.import_module("aliceserver.debuggers.ptrace.engine")
    return cast(Callable[[], IDebugger], module.PtraceDebugger)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="bp_hits", description=__doc__)
    parser.add_argument("--hits", type=int, default=100_000, help="calls under the engine")
    parser.add_argument(
        "--gdb-hits",
        type=int,
        help="calls under gdb (default: min(hits, 20000); gdb is slow)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (best kept)")
    parser.add_argument("--tools", default="gdb,engine", help="comma-separated: gdb, engine")
    args = parser.parse_args(argv)
    tools = set(args.tools.split(","))
    if not tools <= {"gdb", "engine"}:
        parser.error(f"unknown tools: {sorted(tools - {'gdb', 'engine'})}")
    program = build_program("hits")
    rates: dict[str, Rate] = {}

    if "engine" in tools:  # first: a broken engine fails before gdb's slow runs
        factory, n = load_engine(), args.hits
        rates["engine"] = best_rate(
            "engine",
            lambda bp: engine_run(factory, program, n, breakpoint=bp),
            n,
            args.repeat,
        )
    gdb = shutil.which("gdb")
    if "gdb" in tools and gdb is None:
        print("gdb: not found, skipped")
    elif "gdb" in tools and gdb is not None:
        gdb_path, m = gdb, args.gdb_hits or min(args.hits, 20_000)
        rates["gdb"] = best_rate(
            "gdb",
            lambda bp: gdb_run(gdb_path, program, m, breakpoint=bp),
            m,
            args.repeat,
        )

    print_table([rates[t] for t in ("gdb", "engine") if t in rates])
    if "gdb" in rates and "engine" in rates:
        ratio = f"{rates['engine'].per_second / rates['gdb'].per_second:.1f}"
    else:
        ratio = "n/a"
    print(f"breakpoint hits ratio vs gdb: {ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
