"""glibc's functions by the names gdb 13 knows them: its DWARF symbol of a C function is
called by DW_AT_linkage_name (the assembler name `__GI_raise` of raise, `__GI___libc_write`
of write) else DW_AT_name (`_IO_new_file_write`, which ELF also calls _IO_file_write):

- `<name+N>` after a code address (print, x/i, $pc) names the function holding it, not
  the ELF alias the minimal symbols pick (build_address_symbolic prefers the symbol);
- `print __GI_raise`, `print write`: an ELF name for a function with debug info is that
  function, typed (`{int (int)}`, gdb's find_function_alias_target), not a no-debug symbol;
- `info address raise` finds only the ELF symbol (no debug symbol is called raise).

Needs glibc's debug info (libc6-dbg): skipped where gdb shows no `<__GI_raise>`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _stack_free(text: str) -> str:
    """Without the stack's addresses (gdb adds LINES and COLUMNS to the environment)."""
    return re.sub(r"0x7ffffff[0-9a-f]{5}", "0x7fff...", normalized(text))


def test_libc_functions_by_their_dwarf_names(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("raise_names", ("-g", "-O0"))
    args = ["-batch", "-nx", *ex(
        f"break raise_names.c:{marker_line('raise_names.c', 'call')}", "run", "p __GI_raise", "p raise",
        "p write", "p __GI___libc_write", "p _IO_file_write", "p &_IO_new_file_write", "whatis __GI_raise",
        "info address __GI_raise", "info address raise", "info address _IO_new_file_write",
        "info address _IO_file_write", "x/2i write", "x/2i _IO_file_write", "break __GI_raise", "continue", "bt",
        "x/2i $pc", "p $pc", "info symbol $pc", "stepi", "x/i $pc", "info address raise", "continue", "bt",
        "frame 2", "p $pc", "x/i $pc"), str(program)]  # fmt: skip
    expected = theirs(args, tmp_path)
    if "<__GI_raise>" not in expected.stdout:
        pytest.skip("gdb shows no __GI_raise here (glibc's debug info, libc6-dbg, is not installed)")
    got = ours(args, tmp_path)
    assert _stack_free(got.stdout) == _stack_free(expected.stdout)
    assert _stack_free(got.stderr) == _stack_free(expected.stderr)
    assert "{int (int)} 0x" in got.stdout and "<__GI_raise+" in got.stdout


def test_assembler_functions_are_prototyped(builder: Builder, tmp_path: Path) -> None:
    """ld.so's strlen and memcpy have DWARF from assembler units (no DW_AT_prototyped):
    gdb's prototyped_function_p takes only C's functions as unprototyped, so `(void)`."""
    program = builder.build("raise_names", ("-g", "-O0"))
    args = ["-batch", "-nx", *ex("break main", "run", "p strlen", "p memcpy", "ptype memcpy", "whatis memcpy"),
            str(program)]  # fmt: skip
    expected = theirs(args, tmp_path)
    if "{void (void)}" not in expected.stdout:
        pytest.skip("gdb shows no assembler function here (ld.so's debug info, libc6-dbg, is not installed)")
    got = ours(args, tmp_path)
    assert _stack_free(got.stdout) == _stack_free(expected.stdout)
