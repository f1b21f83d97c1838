"""Library values through the same pretty printers as gdb 13 (MI) and lldb-vscode-16 (DAP):
conformance/printers_diff.py over every C++ and Rust standard type of its programs, with no
difference left unexplained."""

from __future__ import annotations

import pytest

from conformance.printers_diff import print_report, run
from tests.support.build import Builder
from tests.support.gdb import gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
]


def test_no_unexplained_difference(builder: Builder, capsys: pytest.CaptureFixture[str]) -> None:
    report = run(builder.cache_dir)
    if not report.outcomes:
        pytest.skip("; ".join(report.skipped))
    print_report(report, verbose=False)
    table = capsys.readouterr().out
    assert "cpp_printers   mi" in table or "c++" in " ".join(report.skipped), table
    assert sum(o.checks for o in report.outcomes) > 1000, table  # the scenario really ran
    assert report.unexplained() == [], table
    if not report.skipped:  # an entry that explains nothing any more goes from its table
        assert [e.reason for e in report.stale()] == [], table
