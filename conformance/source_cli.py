"""`python -m conformance.source_diff`: the scenarios run, one summary row each (see
source_diff.py for the runner, source_patched.py for `--patched`)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from conformance.explained import SOURCE_KNOWN_BUGS, stale
from conformance.source_diff import SCENARIOS, Builders, Difference, Outcome, by_name, diff
from conformance.source_patched import REMOTE_REFUSAL, PatchReport, patched_diff

Row = tuple[str, str, str, str, str]


def _options(argv: Sequence[str] | None) -> argparse.Namespace:
    from conformance import source_diff

    parser = argparse.ArgumentParser(prog="python -m conformance.source_diff",
                                     description=source_diff.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("scenarios", nargs="*", help="names (default: all)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every difference")
    parser.add_argument("--cache", type=Path, help="build directory (default: a temporary one)")
    parser.add_argument("--remote", action="store_true",
                        help="debug each side's program through its own gdbserver")  # fmt: skip
    parser.add_argument("--patched", action="store_true",
                        help="breakpoints behind jump patches (a condition true at every hit)")  # fmt: skip
    return parser.parse_args(argv)


def _row(outcome: Outcome, report: PatchReport | None) -> Row:
    aspects = sorted({d.aspect for d in outcome.differences})
    notes = ", ".join(aspects) if aspects else f"ok ({outcome.seconds:.1f}s)"
    if outcome.explained:
        notes += f", {len(outcome.explained)} explained"
    if report is not None:
        notes += f"; {report.describe()}"
    gdb_stops = str(len(outcome.gdb))
    return (outcome.scenario.name, gdb_stops, str(outcome.agreements), str(len(outcome.differences)), notes)


def _print_table(rows: list[Row]) -> None:
    header = ("scenario", "stops", "agree", "differ", "notes")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False)).rstrip())


def main(argv: Sequence[str] | None = None) -> int:
    options = _options(argv)
    if options.patched and options.remote:
        print(REMOTE_REFUSAL, file=sys.stderr)
        return 2
    chosen = by_name(options.scenarios) if options.scenarios else list(SCENARIOS)
    rows: list[Row] = []
    total_differences = 0
    explained: list[Difference] = []
    fallbacks: list[str] = []
    with tempfile.TemporaryDirectory(prefix="alice-conformance-") as tmp:
        cache = options.cache or Path(tmp)
        cache.mkdir(parents=True, exist_ok=True)
        builders = Builders.in_dir(cache)
        for scenario in chosen:
            reason = builders.available(scenario)
            if reason is not None:
                rows.append((scenario.name, "-", "-", "-", f"skipped: {reason}"))
                continue
            report = None
            try:
                if options.patched:
                    patched = patched_diff(scenario, builders)
                    outcome, report = patched.outcome, patched.report
                else:
                    outcome = diff(scenario, builders, remote=options.remote)
            except Exception as error:  # one broken scenario must not hide the others
                total_differences += 1
                rows.append((scenario.name, "-", "-", "-", f"error: {type(error).__name__}: {error}"))
                continue
            total_differences += len(outcome.differences)
            explained += outcome.explained
            if report is not None and report.trap_fallback:
                fallbacks.append(f"{scenario.name} ({report.describe()})")
            rows.append(_row(outcome, report))
            if options.verbose:
                for difference in outcome.differences:
                    print(f"  {difference}")
    _print_table(rows)
    print(f"{len(chosen)} scenarios, {total_differences} differences, {len(explained)} explained")
    if options.patched:
        print(f"trap fallback: {len(fallbacks)}" + "".join(f"\n  {f}" for f in fallbacks))
    if not options.scenarios:
        for entry in stale(explained, SOURCE_KNOWN_BUGS):
            print(f"no longer needed (explained.py): {entry.reason}")
    return 1 if total_differences else 0
