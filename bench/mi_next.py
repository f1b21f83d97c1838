"""GDB/MI stepping: `python -m aliceserver -i=mi` against `gdb -i=mi`, in the same run.

One iteration is what a front end such as Emacs does after each step: `-exec-next`, wait
for `*stopped`, then `-stack-list-variables --simple-values`. Both debuggers run over pipes
under the same client (tests/support/mi_client.py), with `set mi-async on` as the clients
set it, on bench/programs/dap_loop.c stopped at its loop; after `--warmup` steps,
`--iterations` (default 200) are timed one by one. Reported: the median and 90th
percentile per iteration, the whole timed session, and the ratio gdb / ours (> 1: ours is
faster), best of `--repeat` sessions per debugger.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.common import PROGRAMS, build_program
from tests.support.mi_client import MiClient


@dataclass(frozen=True)
class Steps:
    tool: str
    step_ms: list[float]  # -exec-next sent -> *stopped received
    total_ms: list[float]  # -exec-next sent -> the variables' ^done received
    seconds: float  # the timed iterations end to end

    @property
    def median(self) -> float:
        return statistics.median(self.total_ms)

    @property
    def p90(self) -> float:
        ordered = sorted(self.total_ms)
        return ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]


def loop_line() -> int:
    for number, text in enumerate((PROGRAMS / "dap_loop.c").read_text().splitlines(), 1):
        if "@bp:loop" in text:
            return number
    raise RuntimeError("dap_loop.c lost its @bp:loop marker")


def session(tool: str, program: Path, iterations: int, warmup: int) -> Steps:
    args = ["-q", "-nx", "-iex", "set mi-async on", "-i=mi", str(program)]
    client = MiClient(args, cwd=program.parent, gdb=tool == "gdb")
    steps: list[float] = []
    totals: list[float] = []
    try:
        client.prompt()
        # Enough loop iterations that the program outlives every step.
        client.ok(f"-exec-arguments {warmup + iterations + 100}")
        client.ok(f"-break-insert dap_loop.c:{loop_line()}")
        client.ok("-exec-run")
        client.stopped()
        client.ok("-break-delete 1")
        begin = time.perf_counter()
        for index in range(warmup + iterations):
            if index == warmup:
                begin = time.perf_counter()
            start = time.perf_counter()
            client.ok("-exec-next")
            stop = client.stopped()
            stopped = time.perf_counter()
            if stop.results.get("reason") != "end-stepping-range":
                raise RuntimeError(f"{tool}: step {index} stopped with {stop.results.items}")
            variables = client.ok("-stack-list-variables --simple-values")
            if "variables" not in [key for key, _ in variables.results.items]:
                raise RuntimeError(f"{tool}: no variables in {variables.results.items}")
            end = time.perf_counter()
            if index >= warmup:
                steps.append((stopped - start) * 1000)
                totals.append((end - start) * 1000)
        seconds = time.perf_counter() - begin
    finally:
        client.close()
    return Steps(tool, steps, totals, seconds)


def best(tool: str, program: Path, args: argparse.Namespace) -> Steps:
    runs = [session(tool, program, args.iterations, args.warmup) for _ in range(args.repeat)]
    return min(runs, key=lambda run: run.median)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only mi_next", description=__doc__)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=1)
    args, _ = parser.parse_known_args(argv)
    program = build_program("dap_loop")
    results = [best("aliceserver", program, args)]
    if shutil.which("gdb") is None:
        print("gdb: not found, skipped")
    else:
        results.append(best("gdb", program, args))
    print(f"{'debugger':<13}{'steps':>7}{'next ms':>9}{'median ms':>11}{'p90 ms':>9}{'total s':>9}")
    for r in results:
        print(
            f"{r.tool:<13}{len(r.total_ms):>7}{statistics.median(r.step_ms):>9.2f}"
            f"{r.median:>11.2f}{r.p90:>9.2f}{r.seconds:>9.2f}"
        )
    if len(results) == 2:
        # > 1: our step + variables round trip is faster than gdb's.
        print(f"step round trip ratio vs gdb (gdb / ours): {results[1].median / results[0].median:.2f}")
    else:
        print("step round trip ratio vs gdb: n/a")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
