"""Tracing overhead on a program whose trace pattern matches nothing hot (goal: < 5%).

bench/programs/overhead_work.c does several seconds of real work through many small
functions (tokenizing, hashing, a hash table, small structs); `cold_*` are called once per
round or once per run. Each pair of runs under the engine is one untraced run and one
with `cold_*` traced by jump patches (the default tracer, rows into a store), in turns
(ABAB...), so a drift of the machine's speed touches both alike. The figure is the
program's own CPU time (CLOCK_PROCESS_CPUTIME_ID, every thread, printed at its exit), not
wall time: other load on the machine does not count. The server's CPU time during the run
is shown too (its drain and copier threads). gdb runs the same pairs with
`dprintf cold_round_report,...` for comparison. Overhead = median(traced) / median(untraced)
- 1; the spread is the range of the pairs' own ratios.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from aliceserver.debuggers.events import Exited, Output
from aliceserver.debuggers.model import LaunchConfig, StdioMode
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.tracing import Tracer, TraceStore
from bench.common import build_program

PATTERN = "cold_*"
COLD = {"cold_setup": 1, "cold_round_report": -1, "cold_summary": 1}  # -1: once per round
GDB_DPRINTF = 'dprintf cold_round_report,"round %d\\n",round'
_CPU = re.compile(r"cpu_ns=(\d+)")


@dataclass(frozen=True, slots=True)
class Sample:
    cpu: float  # the program's CPU seconds
    server_cpu: float  # this process's CPU seconds from the resume to the exit (0: gdb)
    wall: float


def program_cpu(stdout: str) -> float:
    found = _CPU.search(stdout)
    if found is None:
        raise RuntimeError(f"the program printed no cpu_ns: {stdout[-500:]!r}")
    return int(found.group(1)) / 1e9


def engine_run(program: Path, rounds: int, traced: bool, directory: str) -> Sample:
    debugger = PtraceDebugger()
    events = debugger.subscribe()  # before the launch: its events are ours
    store = TraceStore("bench-overhead", directory)
    tracer = None
    try:
        debugger.launch(LaunchConfig(str(program), args=(str(rounds),), stdio=StdioMode.PIPES))
        if traced:  # at the exec stop: patched at once
            tracer = Tracer(debugger, store, project_root=str(program.parent))
            tracer.add([PATTERN])
            how = {f.name: f.how for f in tracer.status().functions}
            if sorted(how) != sorted(COLD) or set(how.values()) != {"patched"}:
                raise RuntimeError(f"{PATTERN} is not traced by patches alone: {how}")
        printed: list[str] = []
        cpu, wall = time.process_time(), time.perf_counter()
        debugger.resume()
        while not isinstance(event := events.get(timeout=120), Exited):
            if tracer is not None:
                tracer.observe(event)
            if isinstance(event, Output) and event.category == "stdout":
                printed.append(event.text)
        if tracer is not None:
            tracer.observe(event)
        sample = Sample(program_cpu("".join(printed)), time.process_time() - cpu, time.perf_counter() - wall)
        if event.code != 0:
            raise RuntimeError(f"the program failed under the engine: {event}")
        if tracer is not None:
            calls = {f.name: f.calls for f in tracer.status().functions}
            wanted = {name: rounds if n < 0 else n for name, n in COLD.items()}
            if calls != wanted:
                raise RuntimeError(f"calls counted {calls}, expected {wanted}")
        return sample
    finally:
        debugger.close()
        store.close()


def gdb_run(gdb: str, program: Path, rounds: int, traced: bool) -> Sample:
    commands = ["-ex", "set debuginfod enabled off", "-ex", "set pagination off"]
    if traced:
        commands += ["-ex", GDB_DPRINTF]
    argv = [gdb, "-nx", "-batch", *commands, "-ex", "run", "--args", str(program), str(rounds)]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    wall = time.perf_counter() - start
    printed = len(re.findall(r"^round \d+$", done.stdout, re.MULTILINE))
    if "exited normally" not in done.stdout or printed != (rounds if traced else 0):
        raise RuntimeError(f"gdb run failed ({printed} dprintf lines):\n{done.stdout[-1500:]}{done.stderr[-500:]}")
    return Sample(program_cpu(done.stdout), 0.0, wall)


def pairs(run: Callable[[bool], Sample], count: int, name: str) -> list[tuple[Sample, Sample]]:
    """`count` pairs of (untraced, traced) runs, taken in turns."""
    taken = []
    for i in range(count):
        plain, traced = run(False), run(True)
        print(f"  {name} pair {i + 1}/{count}: untraced {plain.cpu:.3f} s CPU, traced {traced.cpu:.3f} s "
              f"({100 * (traced.cpu / plain.cpu - 1):+.1f}%); server CPU {plain.server_cpu:.3f} / "
              f"{traced.server_cpu:.3f} s", flush=True)  # fmt: skip
        taken.append((plain, traced))
    return taken


def summary(name: str, taken: list[tuple[Sample, Sample]]) -> float:
    plain = statistics.median(p.cpu for p, _ in taken)
    traced = statistics.median(t.cpu for _, t in taken)
    ratios = [100 * (t.cpu / p.cpu - 1) for p, t in taken]
    overhead = 100 * (traced / plain - 1)
    server = statistics.median(t.server_cpu - p.server_cpu for p, t in taken)
    wall = statistics.median(t.wall - p.wall for p, t in taken)
    extra = f"; wall {wall:+.3f} s per run (median, noisy)"
    extra += f", server CPU {server:+.3f} s" if server else ""
    print(f"{name}: program CPU untraced {plain:.3f} s, traced {traced:.3f} s (medians of {len(taken)}): "
          f"overhead {overhead:+.2f}% (pairs {min(ratios):+.2f}% .. {max(ratios):+.2f}%){extra}")  # fmt: skip
    return overhead


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only trace_overhead", description=__doc__)
    parser.add_argument("--rounds", type=int, default=1000, help="rounds of work (about 2 ms each)")
    parser.add_argument("--pairs", type=int, default=5, help="untraced/traced pairs per tool")
    args, _ = parser.parse_known_args(argv)
    program = build_program("overhead_work")
    with tempfile.TemporaryDirectory(prefix="aliceserver-overhead-bench-") as directory:
        ours = pairs(lambda traced: engine_run(program, args.rounds, traced, directory), args.pairs, "engine")
    overhead = summary(f"engine, {PATTERN} patched", ours)
    gdb = shutil.which("gdb")
    if gdb is None:
        print("gdb: not found, skipped")
    else:
        theirs = pairs(lambda traced: gdb_run(gdb, program, args.rounds, traced), args.pairs, "gdb")
        summary("gdb, dprintf on cold_round_report", theirs)
    print(f"goal: < 5% with nothing hot traced: {'met' if overhead < 5 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
