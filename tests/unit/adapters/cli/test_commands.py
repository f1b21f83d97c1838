"""Subcommands map to tool calls (no daemon involved)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from aliceserver.adapters.cli.commands import Plan, UsageError, build_parser, plan_for


def plan(*argv: str) -> Plan:
    return plan_for(build_parser().parse_args(list(argv)))


def call(*argv: str) -> tuple[str, dict[str, Any]]:
    result = plan(*argv)
    assert result.op == "call"
    return result.tool, result.arguments


def test_start_runs_where_the_command_runs_with_its_environment() -> None:
    tool, arguments = call("start", "-b", "main", "./prog", "--", "-v", "x")
    assert tool == "debug_launch"
    assert arguments["program"] == os.path.abspath("./prog")
    assert arguments["args"] == ["-v", "x"] and arguments["breakpoints"] == ["main"]
    assert arguments["cwd"] == os.getcwd() and arguments["env"] == dict(os.environ)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (("break", "prog.c:12", "--condition", "i == 3", "--hit-count", "2"),
         ("debug_breakpoint", {"action": "add", "location": "prog.c:12", "condition": "i == 3", "hit_count": 2})),
        (("break", "list"), ("debug_breakpoint", {"action": "list"})),
        (("break", "disable", "3"), ("debug_breakpoint", {"action": "disable", "id": 3})),
        (("watch", "s.count", "--read"), ("debug_watch", {"expression": "s.count", "access": "read_write"})),
        (("--timeout", "5", "continue"), ("debug_continue", {"timeout": 5.0})),
        (("next", "3", "--timeout", "7"), ("debug_step", {"kind": "over", "count": 3, "timeout": 7.0})),
        (("finish",), ("debug_step", {"kind": "out"})),
        (("until", "prog.c:40"), ("debug_run_to", {"location": "prog.c:40"})),
        (("await", "--timeout", "60"), ("debug_wait", {"timeout": 60.0})),
        (("where",), ("debug_context", {})),
        (("bt", "--locals", "--limit", "4"), ("debug_stack", {"count": 4, "locals": True})),
        (("frame", "2"), ("debug_select", {"frame": 2})),
        (("up",), ("debug_select", {"up": 1})),
        (("down", "2"), ("debug_select", {"down": 2})),
        (("args",), ("debug_variables", {"scope": "arguments"})),
        (("print", "a", "+", "b", "--format", "x"), ("debug_evaluate", {"expression": "a + b", "format": "x"})),
        (("set", "x", "4"), ("debug_set", {"target": "x", "value": "4"})),
        (("thread", "12"), ("debug_select", {"thread": 12})),
        (("memory", "read", "&x", "--count", "8"), ("debug_memory", {"address": "&x", "size": 8})),
        (("registers", "rip", "rsp"), ("debug_registers", {"names": ["rip", "rsp"]})),
        (("disassemble", "main", "--source"), ("debug_disassemble", {"location": "main", "source": True})),
        (("catch", "signal", "SIGUSR1"), ("debug_catch", {"kind": "signal", "enabled": True, "signal": "SIGUSR1"})),
        (("catch", "throw", "--off"), ("debug_catch", {"kind": "throw", "enabled": False})),
        (("raw", "info", "locals"), ("debug_console", {"command": "info locals"})),
        (("trace", "add", "parse_*", "@usercode"), ("debug_trace", {"action": "add", "patterns": ["parse_*", "@usercode"]})),
        (("trace", "add", "leaf", "--ring-memory", "64"),
         ("debug_trace", {"action": "add", "patterns": ["leaf"], "ring_memory_mib": 64})),
        (("query", "--kind", "return", "--function", "fib", "--void"),
         ("debug_query", {"kinds": ["return"], "function": "fib", "return_is_null": True})),
        (("-s", "prog-2", "stop"), ("debug_stop", {"session": "prog-2"})),
        (("detach",), ("debug_stop", {"mode": "detach"})),
    ],
)  # fmt: skip
def test_commands_map_to_tool_calls(argv: tuple[str, ...], expected: tuple[str, dict[str, Any]]) -> None:
    assert call(*argv) == expected


def test_daemon_operations_and_usage_errors() -> None:
    assert plan("status").op == "status"
    assert plan("output", "--tail", "5").op == "output"
    assert plan("shutdown").op == "shutdown"
    with pytest.raises(UsageError):
        plan("break", "remove", "x")
    with pytest.raises(UsageError):
        plan("catch", "signal")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["nosuch"])


def test_source_map_goes_to_launch_and_attach() -> None:
    tool, arguments = call("start", "--source-map", "/build=/here", "./prog")
    assert tool == "debug_launch" and arguments["source_map"] == ["/build=/here"]
    assert "source_map" not in call("start", "./prog")[1]
    assert call("attach", "--source-map", "/b=/h", "42")[1] == {"pid": 42, "source_map": ["/b=/h"]}


def test_core_takes_gdbs_prog_core_or_the_core_alone() -> None:
    here = os.getcwd()
    assert call("core", "prog", "core.42") == (
        "debug_core", {"program": os.path.join(here, "prog"), "core": os.path.join(here, "core.42")})
    assert call("core", "/tmp/core") == ("debug_core", {"core": "/tmp/core"})  # the program it names
    assert call("-s", "x-1", "core", "--source-map", "/b=/h", "p", "c")[1]["source_map"] == ["/b=/h"]
