"""`python -m conformance.mi_diff`: the MI scenarios run, one summary row each (see
mi_diff.py for the runner, mi_patched.py for `--patched`)."""

from __future__ import annotations

import argparse
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from conformance.mi_diff import SCENARIOS, Outcome, by_name, diff
from conformance.mi_patched import MiPatchReport, patched_diff
from tests.support.build import Builder, find_compiler

Row = tuple[str, str, str, str, str, str]


def _options(argv: Sequence[str] | None) -> argparse.Namespace:
    from conformance import mi_diff

    parser = argparse.ArgumentParser(prog="python -m conformance.mi_diff", description=mi_diff.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("scenarios", nargs="*", help="names (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every difference")
    parser.add_argument("--client-only", action="store_true",
                        help="with -v: print only differences in fields the clients read")  # fmt: skip
    parser.add_argument("--cache", type=Path, help="build directory (default: a temporary one)")
    parser.add_argument("--patched", action="store_true",
                        help="breakpoints behind jump patches (a condition true at every hit)")  # fmt: skip
    return parser.parse_args(argv)


def _row(outcome: Outcome, report: MiPatchReport | None) -> Row:
    clients = len(outcome.client_differences)
    others = len(outcome.differences) - clients
    broke = next((s.error for s in outcome.ours if s.error), "")
    note = f"broke: {broke}" if broke else f"{outcome.seconds:.1f}s"
    if report is not None:
        note += f"; {report.describe()}"
    return (outcome.scenario.name, str(len(outcome.gdb)), str(outcome.agreements),
            str(clients), str(others), note)  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    options = _options(argv)
    chosen = by_name(options.scenarios) if options.scenarios else list(SCENARIOS)
    compiler = find_compiler()
    if shutil.which("gdb") is None or compiler is None:
        print(f"mi_diff: skipped, {'gdb' if compiler else 'gcc'} not found")
        return 0
    rows: list[Row] = []
    client_total = 0
    with tempfile.TemporaryDirectory(prefix="alice-mi-diff-") as tmp:
        cache = options.cache or Path(tmp)
        cache.mkdir(parents=True, exist_ok=True)
        builder = Builder(cache, compiler)
        for scenario in chosen:
            report = None
            if options.patched:
                outcome, report = patched_diff(scenario, builder)
            else:
                outcome = diff(scenario, builder)
            client_total += len(outcome.client_differences)
            rows.append(_row(outcome, report))
            if options.verbose:
                for difference in outcome.differences:
                    if difference.client or not options.client_only:
                        print(f"  {difference}")
    header = ("scenario", "steps", "agree", "client", "other", "notes")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    print(f"differences in fields clients read: {client_total}")
    return 1 if client_total else 0
