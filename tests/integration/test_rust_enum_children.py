"""Rust enums in DAP and the agent tools: an enum's children are its active variant's
fields (gdb's children of the variant var object), each named by an expression that
evaluates (`some.0`)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.integration.test_rust_enum_varobjs import at, build, gdb_variant_fields
from tests.support.adapter_process import alice_argv
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import find_rustc
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session
from tests.support.gdb import gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_rustc() is None, reason="rustc not installed"),
]


ENUMS = ["circle", "rect", "empty", "some", "none", "ok"]


def test_dap_shows_the_variant_fields(builder: Builder) -> None:
    """An enum's DAP children are its active variant's fields (gdb's children of the
    variant), each with an evaluateName that evaluates to its value."""
    program = build(builder, "rust_values")
    location = at("rust_values", "values")
    expected = gdb_variant_fields(program, location, ENUMS)
    assert expected["rect"] == [("w", "2"), ("h", "3")] and expected["none"] == []
    source = PROGRAMS_DIR / "rust_values.rs"
    with DapClient.spawn(alice_argv(), cwd=program.parent) as client:
        start_session(client, program, breakpoints={source: [marker_line(source, "values")]},
                      launch=launch_arguments(program), timeout=60)  # fmt: skip
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        scope = next(s for s in client.scopes(frame) if s["name"].startswith("Local"))
        shown = {v["name"]: v for v in client.variables(scope["variablesReference"]) if v["name"] in ENUMS}
        for name in ENUMS:
            row = shown[name]
            kids = client.variables(row["variablesReference"]) if row["variablesReference"] else []
            assert [(k["name"], k["value"]) for k in kids] == expected[name], name
            assert row.get("namedVariables", 0) == len(kids)
            for kid in kids:
                again = client.call("evaluate", {"expression": kid["evaluateName"], "frameId": frame,
                                                 "context": "watch"})  # fmt: skip
                assert again["result"] == kid["value"], kid


def test_agent_shows_the_variant_fields(builder: Builder) -> None:
    from tests.support.agent_client import in_memory_server

    program = build(builder, "rust_values")
    location = at("rust_values", "values")
    expected = gdb_variant_fields(program, location, ["circle", "rect"])

    async def body(tools: Any) -> None:
        await tools.call("debug_launch", program=str(program), breakpoints=[location])
        await tools.call("debug_continue", timeout=60)
        for name in ("circle", "rect"):
            shown = (await tools.call("debug_variables", path=name))["variable"]
            assert [(m["name"], m["value"]) for m in shown["members"]] == expected[name]
            for member in shown["members"]:
                again = (await tools.call("debug_variables", path=member["path"]))["variable"]
                assert again["value"] == member["value"]

    with in_memory_server() as run:
        run(body)
