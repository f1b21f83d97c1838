"""The context reply: locals that changed since the previous stop, values cut to the
budget with a way to see them whole, and output shown once."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.agent.budget import Budget
from aliceserver.debuggers import model as m
from tests.support.fake_debugger import FakeDebugger
from tests.unit.adapters.agent.conftest import Tools


class LocalsFake(FakeDebugger):
    """The fake program with locals the test sets between stops."""

    def __init__(self) -> None:
        super().__init__()
        self.locals: dict[str, str] = {}

    def frame_variables(
        self, thread_id: int, level: int, scope: m.VariableScope, *, aggregate_values: bool = True,
        dynamic: m.DynamicTypes = m.DynamicTypes.NONE,
    ) -> list[m.VariableInfo]:
        if scope is m.VariableScope.LOCALS:
            return [m.VariableInfo(name, "int", value) for name, value in self.locals.items()]
        return super().frame_variables(thread_id, level, scope)


@pytest.fixture
def fake_tools() -> Iterator[tuple[Tools, LocalsFake]]:
    fake = LocalsFake()
    registry, sessions = build_tools(lambda: fake, Budget(max_string=40, max_items=4))
    try:
        yield Tools(registry, sessions), fake
    finally:
        sessions.close_all()


def test_changed_locals_since_the_previous_stop(fake_tools: tuple[Tools, LocalsFake]) -> None:
    tools, fake = fake_tools
    fake.locals = {"i": "0", "sum": "0"}
    first = tools.call("debug_launch", program="/bin/prog", stop_on_entry=True)
    assert first["locals"] == {"i": "0", "sum": "0"}
    assert "changed" not in first
    fake.locals = {"i": "1", "sum": "0"}
    second = tools.call("debug_step", kind="instruction")
    assert second["changed"] == {"i": {"was": "0", "now": "1"}}
    again = tools.call("debug_context")  # the same stop: still compared with the one before
    assert again["changed"] == {"i": {"was": "0", "now": "1"}}
    fake.locals = {"i": "2", "sum": "1"}
    third = tools.call("debug_step", kind="instruction")
    assert third["changed"] == {"i": {"was": "1", "now": "2"}, "sum": {"was": "0", "now": "1"}}


def test_a_new_frame_has_nothing_to_compare(fake_tools: tuple[Tools, LocalsFake]) -> None:
    tools, fake = fake_tools
    fake.locals = {"x": "1"}
    tools.call("debug_launch", program="/bin/prog", stop_on_entry=True)
    fake.locals = {"x": "2"}
    in_helper = tools.call("debug_run_to", location="helper")
    assert in_helper["location"]["function"] == "helper"
    assert "changed" not in in_helper


def test_long_values_and_many_locals_are_cut_with_a_way_back(fake_tools: tuple[Tools, LocalsFake]) -> None:
    tools, fake = fake_tools
    fake.locals = {f"v{n}": str(n) for n in range(6)}
    fake.locals["v0"] = "{" + ", ".join(str(n) for n in range(100)) + "}"
    reply = tools.call("debug_launch", program="/bin/prog", stop_on_entry=True)
    assert len(reply["locals"]) == 4
    assert len(reply["locals"]["v0"]) == 40 and reply["locals"]["v0"].endswith("…")
    hows = {o["how"] for o in reply["omitted"]}
    assert "debug_variables path=v0" in hows
    assert "debug_variables (start, count)" in hows


def test_output_in_context_is_new_output_only_and_its_tail(fake_tools: tuple[Tools, LocalsFake]) -> None:
    tools, _ = fake_tools
    tools.call("debug_launch", program="/bin/prog", stop_on_entry=True)
    session = tools.sessions.get(None)
    session.output.append("stdout", "x" * 2500)
    reply = tools.call("debug_context")
    assert len(reply["output"]["text"]) == 2000
    assert reply["output"]["cursor"] == 500
    assert any(o["how"] == "debug_output cursor=0" for o in reply["omitted"])
    assert "output" not in tools.call("debug_context")
