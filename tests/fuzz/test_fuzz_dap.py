"""Hostile DAP input (tests/fuzz/dap_cases.py) against the adapter: in process with the
scripted debugger, and a live `--adapter dap --port N` process with the ptrace engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz.dap_cases import Case
from tests.fuzz.dap_target import InProcessDap, LiveDap
from tests.support.build import Builder
from tests.support.dap_schema import DapSchema, shared_schema


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )


@pytest.fixture(scope="module")
def schema() -> DapSchema | None:
    return shared_schema()  # None on a fresh clone: the other checks still run


@pytest.fixture(scope="module")
def inproc(schema: DapSchema | None) -> InProcessDap:
    return InProcessDap(schema)


@fuzz_settings(200)
@given(drawn=InProcessDap.strategy_static())
def test_hostile_frames_in_process(inproc: InProcessDap, drawn: tuple[str, Case]) -> None:
    inproc.check(drawn)


def test_hostile_frames_live_adapter(
    schema: DapSchema | None, builder: Builder, tmp_path: Path
) -> None:
    """One adapter process (ptrace engine) takes every case, then a well-formed session on
    the same server still works from launch to exit."""
    target = LiveDap(schema, builder, tmp_path)
    try:

        @fuzz_settings(80)
        @given(case=LiveDap.strategy_static())
        def fuzz(case: Case) -> None:
            target.check(case)

        fuzz()
        target.finish()
    finally:
        target.close()
