"""`break NAME` on libc's functions, compared with gdb 13 (libc6-dbg's debug info): a
place found by an ELF symbol (linespec.c minsym_found) is named by the function holding
it, by its DWARF symbol's name (`sigaction` is libc's `__GI___sigaction` and ld.so's
`__sigaction`, `raise` is `__GI_raise`), in `info breakpoints` and MI's func.

Skipped where gdb shows no `__GI___sigaction` (libc6-dbg is not installed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _stack_free(text: str) -> str:
    """Without the stack's addresses (gdb adds LINES and COLUMNS to the environment)."""
    return re.sub(r"0x7ffffff[0-9a-f]{5}", "0x7fff...", normalized(text))


def _like_gdb(program: Path, commands: list[str], needs: str) -> str:
    args = ["-batch", "-nx", *ex(*commands), str(program)]
    expected = theirs(args, program.parent)
    if needs not in expected.stdout:
        pytest.skip(f"gdb shows no {needs} here (glibc's debug info, libc6-dbg, is not installed)")
    got = ours(args, program.parent)
    assert _stack_free(got.stdout) == _stack_free(expected.stdout)
    assert _stack_free(got.stderr) == _stack_free(expected.stderr)
    return got.stdout


def test_libc_aliases_named_by_their_function(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _like_gdb(program, ["break main", "run", "break sigaction", "break __sigaction", "break raise",
                              "break gsignal", "break write", "break _IO_file_write", "break signal",
                              "info breakpoints", "continue", "bt 1"], "__GI___sigaction")  # fmt: skip
    assert " in __sigaction at " in got and " in __GI_raise at " in got
