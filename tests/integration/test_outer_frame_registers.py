"""A caller's parameter kept in an argument register across a call, read as gdb 13 reads it.

samevalue_lib.c built -O1/-O2: gcc knows its static noinline callees keep rdi, rsi, rdx,
so `lib2 (int v) { return hidden (v) + 1; }` says v is DW_OP_reg5 over the call. gdb reads
rdi in frame 1 through frame 0's CFI, which leaves it unspecified (same value): `bt` at
hidden shows `lib2 (v=2)`, where we said `v=<optimized out>` (the unwinder carries only
the callee-saved registers up). With an -O2 main its call sites give each parameter's
entry value too, through a call into another module (the callee declared in main, defined
in the library: gdb's lookup_minimal_symbol over every module): `lib2 (v=v@entry=2)`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.batch import assert_script_like_gdb, ex, needs_gdb, theirs
from tests.support.build import Builder
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

STOPS = ("hidden", "hidden2", "keep")


def _program(builder: Builder, lib_level: str, main_level: str) -> Path:
    library = builder.build("samevalue_lib", ("-g", lib_level), extra=["-shared", "-fPIC"])
    return builder.build("samevalue_main", ("-g", main_level), extra=["-Wl,--no-as-needed", str(library)])


def _kept(text: str) -> str:
    """Where gdb and we differ by the run: the stack's addresses (gdb's environment adds
    LINES and COLUMNS) and gdb's libthread_db lines."""
    lines = [line for line in text.splitlines() if "libthread_db" not in line]
    return re.sub(r"0x7fffffff[0-9a-f]{4}", "0x7fffffff....", "\n".join(lines))


@pytest.mark.parametrize(("lib_level", "main_level"), [("-O2", "-O0"), ("-O1", "-O0"), ("-O2", "-O2"), ("-O1", "-O2")])
def test_outer_frames_read_unsaved_argument_registers_like_gdb(
    builder: Builder, tmp_path: Path, lib_level: str, main_level: str
) -> None:
    program = _program(builder, lib_level, main_level)
    at_each = ("bt", "frame 1", "info args", "info locals", "info frame", "p $rdi", "frame 0")
    commands = ["break main", "run", *(f"break {name}" for name in STOPS),
                *(command for _ in range(4) for command in ("continue", *at_each)), "frame 1", "up", "info args"]
    script = tmp_path / "commands.gdb"
    script.write_text("\n".join(commands) + "\n")
    assert_script_like_gdb(script, program, tmp_path, _kept)


def test_writes_up_the_stack_reach_frame_0s_registers_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """gdb writes an outer frame's register that has frame 0's value in frame 0."""
    program = _program(builder, "-O2", "-O0")
    commands = ["break main", "run", "break hidden", "continue", "frame 1", "set var v = 5", "print v",
                "frame 0", "print x", "up", "print $rdi = 9", "print $eflags = 0x202", "bt", "info registers rdi"]
    script = tmp_path / "commands.gdb"
    script.write_text("\n".join(commands) + "\n")
    assert_script_like_gdb(script, program, tmp_path, _kept)


def test_no_entry_value_of_a_library_function_reaching_itself_by_tail_calls(builder: Builder, tmp_path: Path) -> None:
    """The self tail call check reads the callee's module, not the caller's (main's)."""
    library = builder.build("crosstail_lib", ("-g", "-O2"), extra=["-shared", "-fPIC"])
    program = builder.build("crosstail_main", ("-g", "-O2"), extra=["-Wl,--no-as-needed", str(library)])
    commands = ["break main", "run", "break hidden", "continue", "bt", "frame 1", "print n@entry", "info args"]
    script = tmp_path / "commands.gdb"
    script.write_text("\n".join(commands) + "\n")
    assert_script_like_gdb(script, program, tmp_path, _kept)


def _mi_lists(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-break-insert main")
        mi.ok("-exec-run")
        mi.stopped()
        seen: list[object] = []
        for name in STOPS:
            mi.ok(f"-break-insert {name}")
        for _ in STOPS:
            mi.ok("-exec-continue")
            seen.append(mi.stopped().results["frame"])
            for command in ("-stack-list-arguments 1", "-stack-list-arguments 2", "-stack-select-frame 1",
                            "-stack-list-variables --all-values", "-stack-info-frame", "-stack-select-frame 0"):
                seen.append(mi.ok(command).results)  # fmt: skip
        return seen
    finally:
        mi.close()


@pytest.mark.parametrize("main_level", ["-O0", "-O2"])
def test_mi_lists_outer_frame_arguments_like_gdb(builder: Builder, tmp_path: Path, main_level: str) -> None:
    program = _program(builder, "-O2", main_level)
    ours, gdb = _mi_lists(program, tmp_path, gdb=False), _mi_lists(program, tmp_path, gdb=True)
    assert ours == gdb


def _gdb_frame_1_arguments(program: Path, cwd: Path) -> dict[str, str]:
    out = theirs(["-batch", "-nx", *ex("break main", "run", "break hidden2", "continue", "frame 1", "info args"), str(program)], cwd).stdout
    return dict(re.findall(r"^(\w+) = (.*)$", out, re.MULTILINE))


def test_dap_frame_1_arguments_are_gdbs(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder, "-O2", "-O0")
    expected = _gdb_frame_1_arguments(program, tmp_path)
    assert set(expected) == {"a", "b", "c"}
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, program, function_breakpoints=["hidden2"])
        thread = client.threads()[0]["id"]
        frames: list[dict[str, Any]] = client.stack_trace(thread, 0, 2)
        assert frames[1]["name"].startswith("multi")
        assert client.scope_variables(frames[1]["id"], "Arg") == expected
