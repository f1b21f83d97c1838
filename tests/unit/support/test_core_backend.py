"""The core backend of the tests (tests/support/core_backend.py): which engine answers what,
when a new core is written, and which expressions it leaves to the live process."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.model import ProcessInfo, VariableInfo
from tests.support.core_backend import LIVE_REFERENCES, CoreBackedDebugger, has_side_effects


@dataclass
class RecordingEngine:
    """Answers every call with its own name, and keeps what it was asked."""

    name: str
    calls: list[str] = field(default_factory=list)
    running: bool = False
    process: ProcessInfo | None = None
    opened: list[str] = field(default_factory=list)

    def is_running(self) -> bool:
        return self.running

    def write_core(self, path: str) -> None:
        self.calls.append("write_core")
        Path(path).write_bytes(b"core")

    def open_core(self, path: str, program: str | None) -> None:
        self.opened.append(Path(path).name)

    def modules(self) -> list[Any]:
        return []

    def evaluate(self, expression: str, *args: Any, **kwargs: Any) -> VariableInfo:
        self.calls.append(f"evaluate {expression}")
        return VariableInfo(expression, "int", self.name, reference=7)

    def variable_children(self, reference: int, *args: Any) -> list[VariableInfo]:
        self.calls.append(f"children {reference}")
        return [VariableInfo("x", "int", self.name, reference=8)]

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> str:
            self.calls.append(name)
            return self.name

        return call


@pytest.fixture
def engines(tmp_path: Path) -> tuple[CoreBackedDebugger, RecordingEngine, list[RecordingEngine]]:
    live = RecordingEngine("live", process=ProcessInfo(1, "prog", attached=False))
    made: list[RecordingEngine] = []

    def make() -> RecordingEngine:
        made.append(RecordingEngine("core"))
        return made[-1]

    return CoreBackedDebugger(live, make, tmp_path), live, made


def test_reads_at_a_stop_come_from_one_core_until_the_program_runs(engines: Any) -> None:
    debugger, live, made = engines
    assert debugger.stack_trace(1) == "core" and debugger.read_memory(0, 8) == "core"
    assert debugger.evaluate("count + 1").value == "core"
    [core] = made
    assert core.opened == ["core.1"] and live.calls.count("write_core") == 1
    debugger.resume()
    assert debugger.threads() == "core" and core.opened == ["core.1", "core.2"]
    assert not (debugger._cores / "core.1").exists()  # one core on disk at a time


def test_without_a_stopped_process_the_live_engine_answers(engines: Any) -> None:
    debugger, live, made = engines
    live.running = True
    assert debugger.threads() == "live"
    live.running, live.process = False, None
    assert debugger.lookup_symbol("main") == "live" and not made


def test_writes_and_calls_go_live_and_their_references_stay_there(engines: Any) -> None:
    debugger, live, made = engines
    debugger.frame_variables(1, 0, None)
    written = debugger.evaluate("count = 4")
    assert written.value == "live" and written.reference == 7 + LIVE_REFERENCES
    [child] = debugger.variable_children(written.reference)
    assert child.value == "live" and child.reference == 8 + LIVE_REFERENCES
    assert "children 7" in live.calls
    debugger.evaluate("count")
    assert made[0].opened == ["core.1", "core.2"]  # the write made the first core stale


def test_settings_reach_both_engines_and_every_core_opened(engines: Any) -> None:
    debugger, live, made = engines
    debugger.set_print_limits(elements=4, repeats=10)
    debugger.threads()
    debugger.resume()
    debugger.threads()
    assert live.calls.count("set_print_limits") == 1
    assert made[0].calls.count("set_print_limits") == 2


@pytest.mark.parametrize(("expression", "effects"), [
    ("a == b", False), ("a <= b && c >= d", False), ("a != b", False), ("x = 1", True),
    ("x += 2", True), ("i++", True), ("--i", True), ("f(3)", True), ("p->method(1)", True),
    ("sizeof(int)", False), ("(char)65", False), ('$_streq(s, "a=b")', False),
    ('s == "f(x)"', False), ("count - -1", False), ("op->id", False), ("values[2]", False),
])  # fmt: skip
def test_side_effects_are_told_from_reads(expression: str, effects: bool) -> None:
    assert has_side_effects(expression) is effects
