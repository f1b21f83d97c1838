"""Tool specs: JSON schemas from the parameters, argument validation, errors as replies."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.agent.registry import Args, Param, ToolRegistry, ToolSpec
from aliceserver.errors import ProtocolError
from tests.support.fake_debugger import FakeDebugger

EXPECTED_TOOLS = {
    "debug_launch", "debug_attach", "debug_stop", "debug_sessions", "debug_breakpoint",
    "debug_watch", "debug_continue", "debug_step", "debug_run_to", "debug_pause",
    "debug_context", "debug_stack", "debug_variables", "debug_evaluate", "debug_set",
    "debug_threads", "debug_memory", "debug_registers", "debug_disassemble", "debug_output",
    # issue 6: tracing, and what the command line needs besides
    "debug_trace", "debug_query", "debug_select", "debug_catch", "debug_wait", "debug_restart",
    "debug_console",
    "debug_core", "debug_gcore",  # issue 16: core files, read and written
    "debug_connect", "debug_disconnect",  # issue 17: remote targets
}  # fmt: skip


def _echo(args: Args) -> dict[str, Any]:
    return {"n": args.integer("n"), "name": args.text("name"), "flag": args.flag("flag")}


def _registry(handler: Any = _echo) -> ToolRegistry:
    registry = ToolRegistry()
    registry.add(ToolSpec(
        "echo",
        "Echo.",
        (
            Param("n", "integer", "A number.", required=True, minimum=1, maximum=5),
            Param("name", "string", "A name.", enum=("a", "b")),
            Param("flag", "boolean", "A flag."),
            Param("tags", "array", "Tags.", items="string"),
        ),
        handler,
    ))
    return registry


def test_every_tool_of_the_issue_is_there_with_a_schema_and_description() -> None:
    registry, sessions = build_tools(FakeDebugger)
    specs = {spec.name: spec for spec in registry.specs()}
    assert set(specs) == EXPECTED_TOOLS
    for spec in specs.values():
        schema = spec.input_schema()
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        assert spec.description and len(spec.description) < 600
        for name, prop in schema["properties"].items():
            assert prop["description"], (spec.name, name)
    assert specs["debug_launch"].input_schema()["required"] == ["program"]
    sessions.close_all()


def test_valid_arguments_reach_the_handler() -> None:
    reply = _registry().call("echo", {"n": 3, "name": "a", "flag": True})
    assert not reply.is_error
    assert reply.data == {"n": 3, "name": "a", "flag": True}


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ({}, "needs n"),
        ({"n": "3"}, "must be a integer"),
        ({"n": True}, "not a boolean"),
        ({"n": 9}, "at most 5"),
        ({"n": 1, "name": "c"}, "one of a, b"),
        ({"n": 1, "tags": [1]}, "every element of tags"),
        ({"n": 1, "bogus": 1}, "no parameter bogus"),
    ],
)
def test_bad_arguments_are_tool_errors(arguments: dict[str, Any], fragment: str) -> None:
    reply = _registry().call("echo", arguments)
    assert reply.is_error
    assert reply.data["error"] == "BAD_ARGUMENT"
    assert fragment in reply.data["message"]


def test_unknown_tool_and_failures_become_error_replies() -> None:
    assert _registry().call("nope", {}).data["error"] == "BAD_ARGUMENT"

    def refuse(args: Args) -> dict[str, Any]:
        raise ProtocolError('No symbol "zz" in current context.')

    reply = _registry(refuse).call("echo", {"n": 1})
    assert reply.is_error and reply.data["error"] == "NO_SYMBOL" and reply.data["hint"]

    def crash(args: Args) -> dict[str, Any]:
        raise RuntimeError("boom")

    reply = _registry(crash).call("echo", {"n": 1})
    assert reply.data["error"] == "INTERNAL" and "boom" in reply.data["message"]
