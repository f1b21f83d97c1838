"""`info symbol ADDR` as gdb 13 prints it (printcmd.c): `NAME [+ OFFSET] in section SECTION`,
`of IMAGE` once the program runs with its libraries (libc's puts through a pointer), `No
symbol matches ADDR.` for the stack or zero, gdb's errors for no argument or an unknown
name; the same through -batch (before and at a stop), MI's console and DAP's repl."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.core_backend import core_of_stop
from tests.support.dap_session import repl_at
from tests.support.gdb import gdb_env, run_gdb
from tests.support.mi_console import console_at

pytestmark = [pytest.mark.timeout(240), needs_gdb, pytest.mark.both_backends]

SOURCE = "info_symbol.c"
COMMANDS = ["info symbol main", "info symbol helper+3", "info symbol &initialized", "info symbol &zeroed",
            "info symbol text", "info symbol &text[2]", "info symbol say", "info symbol (char *)say + 3",
            "info symbol alloc", "info symbol &local", "info symbol $sp", "info symbol 0", "info symbol",
            "info symbol nosuch", "info symbol $pc", "info symbol &say"]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("info_symbol")


def _stop() -> str:
    return f"{SOURCE}:{marker_line(SOURCE, 'main')}"


def test_batch_before_and_at_a_stop(program: Path) -> None:
    before = ["info symbol main", "info symbol &zeroed", "info symbol helper + 1"]
    commands = [*before, f"break {_stop()}", "run", *COMMANDS]
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "puts + 3 in section .text of " in got.stdout


def test_mi_console(program: Path, backend: str, tmp_path: Path) -> None:
    replies = run_gdb(program, [f"break {_stop()}", "run", *COMMANDS], env=gdb_env(), cwd=os.getcwd())
    theirs = [(r.output + (r.error or "")).rstrip("\n") for r in replies[2:]]
    ours = [text.rstrip("\n") for text in console_at(program, _stop(), COMMANDS, gdb_env(), core_of_stop(backend, tmp_path))]
    assert list(zip(COMMANDS, ours, strict=True)) == list(zip(COMMANDS, theirs, strict=True))


def test_dap_repl(tmp_path: Path, builder: Builder, program: Path) -> None:
    commands = ["info symbol main", "info symbol &zeroed", "info symbol (char *)say + 3", "info symbol 0"]
    replies = run_gdb(program, [f"break {_stop()}", "run", *commands], env=gdb_env(), cwd=os.getcwd())
    theirs = [reply.output.rstrip("\n") for reply in replies[2:]]
    ours = repl_at(program, builder.programs_dir / SOURCE, marker_line(SOURCE, "main"), commands, tmp_path / "adapter.log")
    assert list(zip(commands, ours, strict=True)) == list(zip(commands, theirs, strict=True))
