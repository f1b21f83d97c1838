"""debug_core's refusals before any core is read: a missing file, a program that is not
there, an engine without the CoreTargets capability; none leaves a session behind."""

from __future__ import annotations

from pathlib import Path

from tests.unit.adapters.agent.conftest import Tools


def test_missing_files_are_bad_arguments(tools: Tools, tmp_path: Path) -> None:
    failed = tools.fail("BAD_ARGUMENT", "debug_core", core=str(tmp_path / "core"))
    assert failed["message"] == f"core file {str(tmp_path / 'core')!r} not found"
    core = tmp_path / "core.7"
    core.write_bytes(b"")
    tools.fail("BAD_ARGUMENT", "debug_core", core="core.7", program="nosuch", cwd=str(tmp_path))
    assert tools.call("debug_sessions")["sessions"] == []


def test_an_engine_that_reads_no_cores_says_so(tools: Tools, tmp_path: Path) -> None:
    core = tmp_path / "core"
    core.write_bytes(b"")
    failed = tools.fail("UNSUPPORTED", "debug_core", core=str(core))
    assert failed["message"] == "this debugger engine cannot open core files"
    assert tools.call("debug_sessions")["sessions"] == []
