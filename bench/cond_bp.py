"""Conditional breakpoints whose condition is false: evaluations per second, engine vs gdb.

Both tools put `break cond_loop.c:LINE if i == -1` on the body of a loop run N times (the
condition is evaluated at every iteration and never true), and run once without it;
evaluations/s = N / (t_breakpoint - t_baseline). Best of `--repeat` runs for each. The engine
runs twice: with its traps alone (`set breakpoint jump-patches off`), and with a jump patch
judging the condition in the program (on; more iterations, as each costs nanoseconds).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aliceserver.debuggers.model import LaunchConfig, StdioMode
from bench.bp_hits import load_engine, wait_exit
from bench.common import PROGRAMS, Rate, build_program, print_table

CONDITION = "i == -1"


def marker_line() -> int:
    for number, text in enumerate((PROGRAMS / "cond_loop.c").read_text().splitlines(), 1):
        if "@bp:loop" in text:
            return number
    raise RuntimeError("cond_loop.c lost its @bp:loop marker")


def gdb_seconds(gdb: str, program: Path, count: int, line: int, *, condition: bool) -> float:
    commands = ["-ex", "set debuginfod enabled off"]
    if condition:
        commands += ["-ex", f"break cond_loop.c:{line} if {CONDITION}"]
    commands += ["-ex", "run"]
    argv = [gdb, "-nx", "-batch", *commands, "--args", str(program), str(count)]
    start = time.perf_counter()
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=60 + count / 500, check=False
    )
    elapsed = time.perf_counter() - start
    if "exited normally" not in done.stdout + done.stderr:
        raise RuntimeError(f"gdb run failed:\n{(done.stdout + done.stderr)[-2000:]}")
    return elapsed


def engine_seconds(
    program: Path, count: int, line: int, *, condition: bool, patches: bool = False
) -> tuple[float, int]:
    debugger = load_engine()()
    events = debugger.subscribe()  # before the launch: its events are ours
    try:
        ptrace_engine: Any = debugger  # the setting is the live engine's own
        ptrace_engine.jump_patches.enabled = patches
        debugger.launch(LaunchConfig(str(program), (str(count),), stdio=StdioMode.PIPES))
        ident = None
        if condition:
            location = debugger.resolve_location(f"cond_loop.c:{line}")[0]
            check = debugger.expression_condition(CONDITION)
            ident = ptrace_engine.insert_breakpoint(location.address, condition=check).id
        start = time.perf_counter()
        debugger.resume()
        exited = wait_exit(events, timeout=60 + count / 500)
        elapsed = time.perf_counter() - start
        if exited.code != 0:
            raise RuntimeError(f"the program exited with {exited}")
        hits = next((b.hit_count for b in debugger.breakpoints() if b.id == ident), 0)
        return elapsed, hits
    finally:
        debugger.close()


def dprintf_run(
    argv: list[str], program: Path, count: int, line: int, *, printing: bool
) -> tuple[float, int, str]:
    """A batch run of `argv` (gdb, or this server with its setting) over the loop, with
    `dprintf cond_loop.c:LINE,"i=%d\\n",i` when `printing`: seconds, messages (checked),
    stdout."""
    commands = ["-ex", f'dprintf cond_loop.c:{line},"i=%d\\n", i'] if printing else []
    start = time.perf_counter()
    done = subprocess.run([*argv, "-nx", "-batch", *commands, "-ex", "run", "--args", str(program), str(count)],
                          capture_output=True, text=True, timeout=120 + count / 500, check=False)  # fmt: skip
    elapsed = time.perf_counter() - start
    if "exited normally" not in done.stdout:
        raise RuntimeError(f"{argv[0]} run failed:\n{(done.stdout + done.stderr)[-2000:]}")
    return elapsed, checked_messages(done.stdout, printing), done.stdout


def checked_messages(stdout: str, printing: bool) -> int:
    """The messages printed, which must be `i=0` up to the program's own count of its
    passes (printed at its end), each once and in order: else the run fails."""
    passes = re.search(r"^passes=(\d+)$", stdout, re.M)
    if passes is None:
        raise RuntimeError(f"the program did not print its passes:\n{stdout[-1000:]}")
    printed = [int(value) for value in re.findall(r"^i=(-?\d+)$", stdout, re.M)]
    wanted = int(passes.group(1)) if printing else 0
    if printed != list(range(wanted)):
        missing = wanted - len(set(printed) & set(range(wanted)))
        raise RuntimeError(f"{len(printed)} messages printed for {wanted} passes ({missing} missing, "
                           f"order kept: {printed == sorted(printed)})")  # fmt: skip
    return len(printed)


def dprintf_rates(
    gdb: str | None, program: Path, line: int, count: int, gdb_count: int, repeat: int
) -> None:
    """Messages printed per second by a dprintf on the loop: ours with a jump patch (the
    values recorded in the program, printed by the server) and with traps, and gdb's."""
    ours = [sys.executable, "-m", "aliceserver"]
    rows = []
    for tool, argv, n in (("patched", [*ours, "-iex", "set breakpoint jump-patches on"], count),
                          ("trapped", [*ours, "-iex", "set breakpoint jump-patches off"], gdb_count),
                          ("gdb", [gdb] if gdb else [], gdb_count)):  # fmt: skip
        if not argv:
            continue
        runs = [dprintf_run(argv, program, n, line, printing=True) for _ in range(repeat)]
        base = min(dprintf_run(argv, program, n, line, printing=False)[0] for _ in range(repeat))
        best, printed, _ = min(runs)
        print(f"dprintf {tool}: each run printed i=0..{printed - 1}, once each and in order, as the program counted")
        rows.append(Rate(f"dprintf {tool}", printed, best - base, base))
    print_table(rows)
    if rows[-1].tool == "dprintf gdb":
        print(f"patched dprintf ratio vs gdb: {rows[0].per_second / rows[-1].per_second:.1f}")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only cond_bp", description=__doc__)
    parser.add_argument("--evaluations", type=int, default=100_000)
    parser.add_argument(
        "--gdb-evaluations", type=int, default=20_000, help="fewer for gdb: it is slow"
    )
    parser.add_argument(
        "--patched-evaluations", type=int, default=10_000_000, help="more for patches"
    )
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--dprintf-messages", type=int, default=50_000, help="within one ring")
    parser.add_argument("--gdb-dprintf-messages", type=int, default=5_000)
    args, _ = parser.parse_known_args(argv)
    program = build_program("cond_loop")
    line = marker_line()
    rates: list[Rate] = []
    for tool, count, patches in (
        ("engine", args.evaluations, False),
        ("patched", args.patched_evaluations, True),
    ):
        runs = range(args.repeat)
        best = min(
            engine_seconds(program, count, line, condition=True, patches=patches)[0] for _ in runs
        )
        base = min(engine_seconds(program, count, line, condition=False)[0] for _ in runs)
        hits = engine_seconds(program, 1000, line, condition=True, patches=patches)[1]
        if hits != 1000:
            raise RuntimeError(f"{tool}: the condition was evaluated {hits} times, not 1000")
        rates.append(Rate(tool, count, best - base, base))
    gdb = shutil.which("gdb")
    if gdb is None:
        print("gdb: not found, skipped")
    else:
        count = args.gdb_evaluations
        best = min(
            gdb_seconds(gdb, program, count, line, condition=True) for _ in range(args.repeat)
        )
        base = min(
            gdb_seconds(gdb, program, count, line, condition=False) for _ in range(args.repeat)
        )
        rates.append(Rate("gdb", count, best - base, base))
    print_table(rates)
    if len(rates) == 3:
        gdb_rate = rates[2].per_second
        print(f"conditional breakpoint ratio vs gdb: {rates[0].per_second / gdb_rate:.1f}")
        print(f"patched conditional breakpoint ratio vs gdb: {rates[1].per_second / gdb_rate:.1f}")
    else:
        print("conditional breakpoint ratio vs gdb: n/a")
    dprintf_rates(gdb, program, line, args.dprintf_messages, args.gdb_dprintf_messages, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
