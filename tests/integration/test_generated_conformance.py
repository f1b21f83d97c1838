"""A bounded run of the generated differential tester (conformance/generated.py).

Eight generated C programs (fixed seeds), each built at -O0 and -O2, are debugged by gdb
and by our MI front end with the same commands; every difference must be explained by the
module's DELIBERATE or KNOWN_BUGS tables. Skipped when gdb or gcc is absent.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conformance.generated import by_kind, print_report, run

pytestmark = pytest.mark.timeout(300)

SEEDS = range(1, 9)


@pytest.fixture(scope="module")
def tools_present() -> None:
    if shutil.which("gdb") is None or shutil.which("gcc") is None:
        pytest.skip("gdb or gcc not found: the generated tester compiles and compares against gdb")


def test_generated_programs_agree_with_gdb(tools_present: None, tmp_path: Path) -> None:
    report = run(SEEDS, jobs=1, work=tmp_path)
    print_report(report, verbose=False)
    assert not report.problems(), "\n".join(report.problems())
    assert sum(o.checks for o in report.outcomes) > 100 * len(SEEDS), "gdb answered too little"
    new = report.unexplained()
    assert not new, "\n".join(f"{count} x {kind}: {first}" for kind, count, first in by_kind(new))
