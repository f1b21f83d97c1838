"""The expression evaluator, the debug console and the symbol readers under generated
input (tests/fuzz/expr_target.py, symbols_target.py), a bounded number of cases each;
`python -m tests.fuzz --seconds N --target NAME` runs them for longer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz.targets import TARGETS, FuzzContext, FuzzTarget
from tests.support.build import Builder
from tests.support.dap_schema import shared_schema


def fuzz(target: FuzzTarget, examples: int) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(case=target.strategy())
    def one(case: Any) -> None:
        target.check(case)

    one()
    target.finish()


@pytest.mark.parametrize(
    ("name", "examples"), [("expr", 150), ("console", 100), ("symbols", 60)]
)
def test_generated_input_gets_only_typed_errors(
    name: str, examples: int, builder: Builder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the servers run in this process: a generated `gcore` writes core.PID to its directory
    monkeypatch.chdir(tmp_path)
    target = TARGETS[name](FuzzContext(builder, tmp_path, shared_schema()))
    try:
        fuzz(target, examples)
    finally:
        target.close()
