"""`python -m tests.fuzz --seconds N [--target NAME ...]`: fuzz for a given time.

Runs each chosen target (all by default) for its share of the time, in batches of
hypothesis examples with fresh seeds, and prints per target: inputs tried, failures found
(each with its shrunk, falsifying input) and what the inputs led to. After the cases, each
target's `finish` checks that well-formed use still works. Exit status 1 when anything
failed.
"""

from __future__ import annotations

import argparse
import io
import logging
import random
import shutil
import sys
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.fuzz.targets import TARGETS, FuzzContext, FuzzTarget
from tests.support.build import Builder, find_compiler
from tests.support.dap_schema import shared_schema


@dataclass
class Report:
    name: str
    tried: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    stats: dict[str, int] = field(default_factory=dict)


def fuzz(target: FuzzTarget, seconds: float, batch: int, shrink: bool) -> Report:
    report = Report(target.name)
    start = time.monotonic()
    deadline = start + seconds
    phases = [Phase.generate, Phase.shrink] if shrink else [Phase.generate]
    while time.monotonic() < deadline:

        @settings(
            max_examples=batch,
            deadline=None,
            database=None,
            phases=phases,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
        )
        @seed(random.getrandbits(64))
        @given(case=target.strategy())
        def one(case: Any) -> None:
            if time.monotonic() >= deadline + 60:  # shrinking may overrun a little, not more
                return
            report.tried += 1
            target.check(case)

        try:
            one()
        except Exception as error:  # noqa: BLE001 - a finding: recorded, then go on
            text = "".join(traceback.format_exception_only(error)).strip()
            first = text.splitlines()[0]
            if not any(f.splitlines()[0] == first for f in report.failures):
                print(f"[{target.name}] FAILURE:\n{text}\n", flush=True)
            report.failures.append(text)
            if len(report.failures) >= 20:
                break
    try:
        target.finish()
    except Exception as error:  # noqa: BLE001
        report.failures.append("after the run: " + "".join(traceback.format_exception_only(error)))
    report.seconds = time.monotonic() - start
    report.stats = dict(target.stats)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0, help="total time (split evenly)")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS),
                        help="fuzz this target (repeatable; default: all)")  # fmt: skip
    parser.add_argument("--batch", type=int, default=200, help="examples per hypothesis run")
    parser.add_argument("--no-shrink", action="store_true", help="report failures unshrunk")
    parser.add_argument("--stats", action="store_true", help="print outcome counts per target")
    args = parser.parse_args(argv)
    if isinstance(sys.stdout, io.TextIOWrapper):  # inputs may hold lone surrogates
        sys.stdout.reconfigure(errors="backslashreplace")
    names = args.target or sorted(TARGETS)
    # Hostile input makes the server warn at every turn: keep errors only (the expression
    # target also counts those as findings).
    logging.getLogger("aliceserver").setLevel(logging.ERROR)
    compiler = find_compiler()
    if compiler is None:
        print("gcc not found: the targets debug programs compiled from tests/programs", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="aliceserver-fuzz-"))
    ctx = FuzzContext(Builder(cache_dir=workdir / "programs", compiler=compiler), workdir, shared_schema())
    reports: list[Report] = []
    try:
        for name in names:
            target = TARGETS[name](ctx)
            try:
                reports.append(fuzz(target, args.seconds / len(names), args.batch, not args.no_shrink))
            finally:
                target.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"\n{'target':<12}{'inputs':>10}{'seconds':>10}{'inputs/s':>10}{'failures':>10}")
    for r in reports:
        rate = r.tried / r.seconds if r.seconds else 0.0
        print(f"{r.name:<12}{r.tried:>10}{r.seconds:>10.0f}{rate:>10.1f}{len(r.failures):>10}")
    for r in reports:
        distinct = sorted({f.splitlines()[0] for f in r.failures})
        for line in distinct:
            print(f"  {r.name}: {line[:300]}")
    if args.stats:
        for r in reports:
            print(f"\n{r.name}: " + ", ".join(f"{k} {v}" for k, v in sorted(r.stats.items())))
    return 1 if any(r.failures for r in reports) else 0


if __name__ == "__main__":
    sys.exit(main())
