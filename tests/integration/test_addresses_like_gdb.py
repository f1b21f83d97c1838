"""Small answers about addresses that once differed from gdb 13's, compared with gdb itself:

- a frame stopped at a line-table row that is no statement boundary shows its pc
  (gdb's frame_show_address: `sal.pc != pc || !sal.is_stmt`), as after `finish` into
  -O2's `main` in tail_entry.c;
- an address past a function's end (its padding, or the return address of a noreturn
  call that is its last instruction) is named by no symbol: gdb's minimal symbols reach
  no further than their size, in their own section (function_ends.c);
- instructions are spelled as binutils spells them (capstone decodes, gdb prints objdump's
  text): -O2 padding (`data16 cs nopw 0x0(%rax,%rax,1)`, `xchg %ax,%ax`), suffixes, signed
  immediates, string and x87 forms (att_spellings.c), and -O2 code around function ends;
- a missing source file says so once per gdb symtab in a row, a file of one unit: frames of
  glibc's libioP.h inlined into two units both say `No such file or directory.`, and
  `list` goes on in the symtab shown (needs glibc's debug info, libc6-dbg).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_pc_shown_at_a_row_that_is_no_statement_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("tail_entry", ("-g", "-O2"))
    impl = marker_line("tail_entry.c", "impl")
    got = assert_like_gdb([*ex(f"break tail_entry.c:{impl}", "run", "finish", "frame", "p $pc"),
                           str(program)], tmp_path)  # fmt: skip
    assert " in main () at " in got.stdout  # the pc is shown


def test_no_symbol_past_a_functions_end_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("function_ends", ("-g", "-O2"))
    padding = "(char *) die + 12"  # die is a sub and a call: 9 bytes, padded to 16
    got = assert_like_gdb([*ex("break die", "run", "up", "p $pc", "p/a $pc", "info symbol $pc", "output $pc",
                               f"p/a {padding}", f"info symbol {padding}", f"info line *({padding})"),
                           str(program)], tmp_path)  # fmt: skip
    assert "No symbol matches $pc." in got.stdout


def test_disassembly_spelled_like_gdb(builder: Builder, tmp_path: Path) -> None:
    spellings = builder.build("att_spellings", ("-g", "-O2"))
    got = assert_like_gdb([*ex("disassemble spellings", "x/6i main"), str(spellings)], tmp_path)
    assert "data16 cs nopw 0x0(%rax,%rax,1)" in got.stdout
    program = builder.build("function_ends", ("-g", "-O2"))
    assert_like_gdb([*ex("disassemble die", "disassemble after", "x/12i die", "x/8i last + 12"), str(program)],
                    tmp_path)  # fmt: skip


def test_missing_header_reported_per_unit_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """The exit flush's write: new_do_write (fileops.c's unit) and _IO_flush_all_lockp
    (genops.c's) are both at libioP.h:947, and fileops.c's frames share one symtab."""
    program = builder.build("tail_entry", ("-g", "-O2"))
    frames = [f"frame {level}" for level in (2, 4, 2, 3, 3, 1, 4)]
    args = ["-batch", "-nx", *ex("break main", "run", "break write", "continue", *frames, "list", "frame 2"),
            str(program)]  # fmt: skip
    expected = theirs(args, tmp_path)
    if expected.stderr.count("libioP.h: No such file or directory.") < 2:
        pytest.skip("gdb shows no glibc frame in libioP.h here (glibc's debug info, libc6-dbg)")
    got = ours(args, tmp_path)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
