"""An address several ELF symbols share (aliases) named as gdb 13 names it: its minimal
symbols sorted by address then name (strcmp), lookup_minimal_symbol_by_pc_section takes
the last there, unless it is no mst_text (a local) and the one before it is (a global or
weak one of the same size): `zz_weak` of plain_target's five names, `zlocal` of local_fn's
three (a global alias sorts first), `other` over its weak alias `aaa_other`. Every place
that names an address so: info symbol, `<NAME+OFF>` of print, x/i and disassemble, info
line *ADDR, a frame without debug info (backtrace, disassemble's header), MI's
-data-disassemble; with -g and without, and in libc: `write` of `__write`, `__libc_write` and the like,
`fopen64` of fopen, `strtoq` of strtol, `ssignal` of signal."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

NAMES = ("info symbol plain_target", "info symbol alias_target", "info symbol before_alias",
         "info symbol plain_target+4", "info symbol local_fn", "info symbol other", "p &plain_target",
         "p alias_target", "p &local_fn", "p zlocal", "p aaa_other", "x/2i plain_target", "x/i other",
         "info line *plain_target", "info line *global_of_local")  # fmt: skip
STOPS = ("break alias_target", "break global_of_local", "break write", "run", "bt", "disassemble",
         "x/2i $pc", "info line *$pc", "info symbol $pc", "continue", "bt", "p $pc",
         'interpreter-exec mi "-data-disassemble -s $pc -e $pc+2 -- 0"', "continue", "info symbol $pc",
         "x/i $pc", "p write", "info symbol fopen", "info symbol strtol", "info symbol signal")  # fmt: skip


@pytest.mark.parametrize("flags", [("-g", "-O0"), ("-O0",)], ids=["g", "nodebug"])
def test_alias_names_like_gdb(builder: Builder, tmp_path: Path, flags: tuple[str, ...]) -> None:
    program = builder.build("elf_aliases", flags)
    got = assert_like_gdb([*ex(*NAMES, *STOPS), str(program)], tmp_path)
    assert "zz_weak in section .text" in got.stdout and "zlocal in section .text" in got.stdout
