"""The text a command prints: the context view, errors, and the generic rendering."""

from __future__ import annotations

from aliceserver.adapters.cli.format import format_reply

CONTEXT = {
    "session": "prog-1",
    "state": "stopped",
    "stop": {"reason": "breakpoint", "breakpoints": [1]},
    "thread": 42,
    "location": {"function": "main", "file": "/src/prog.c", "line": 12, "address": "0x401136"},
    "source": "   11 | int x = 0;\n-> 12 | x++;",
    "stack": ["#0 main (prog.c:12)", "#1 _start (prog 0x401020)"],
    "locals": {"x": "1", "name": "0x4020 \"hi\""},
    "changed": {"x": {"was": "0", "now": "1"}},
    "output": {"text": "hello\n", "cursor": 0, "next_cursor": 6},
    "omitted": [{"what": "deeper frames", "how": "debug_stack start=5"}],
}


def test_the_context_view() -> None:
    assert format_reply("debug_continue", CONTEXT, False).split("\n") == [
        "prog-1: stopped (breakpoint 1) in main at prog.c:12, thread 42",
        "   11 | int x = 0;",
        "-> 12 | x++;",
        "stack: #1 _start (prog 0x401020)",
        "locals:",
        "  x    = 1   (was 0)",
        '  name = 0x4020 "hi"',
        "output:",
        "| hello",
        "omitted: deeper frames (debug_stack start=5)",
    ]


def test_errors_and_the_generic_rendering() -> None:
    error = {"error": "NO_SESSION", "message": "no debug session", "hint": "start one"}
    assert format_reply("debug_stack", error, True) == "error NO_SESSION: no debug session\nhint: start one"
    assert format_reply("debug_threads", {"threads": [{"id": 1}]}, False) == "threads:\n  - id: 1"
    console = {"command": "bt", "tool": "debug_stack", "frames": ["#0 main (p.c:1)"]}
    assert format_reply("debug_console", console, False) == "#0 main (p.c:1)"
    examined = {"command": "x/2xw buf", "tool": "debug_console", "session": "p-1", "output": "0x10:\t0x01\t0x02"}
    assert format_reply("debug_console", examined, False) == "0x10:\t0x01\t0x02"  # as gdb prints it
