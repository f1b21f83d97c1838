"""gdb's `set print address off`, side by side with gdb 13: pointers show their
`<symbol+offset>` alone (char pointers their string), frames and breakpoint mentions drop
the address, while /a, x and break *EXPR still find the address."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_print_address_off_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("print_address")
    commands = [f"break print_address.c:{marker_line('print_address.c', 'main')}", "run",
                "set print address off", "show print address", "p &ctable[1]", "p &ctable[16]", "p null",
                "p holder", "p &numbers", "p twice", "p &twice", "p $pc", "p/a $pc", "output &holder",
                "x/2x &numbers", "x/s holder.s", "x/i holder.f", "x/2x holder.p", "tbreak *holder.f",
                "break twice", "continue", "bt", "finish", "set print address on", "p &ctable[16]", "bt"]
    got = assert_like_gdb([word for command in commands for word in ("-ex", command)] + [str(program)], tmp_path)
    assert "$1 = (unsigned char *) <ctable+1> 'a' <repeats 15 times>, \"bbbbcccc\"" in got.stdout


def test_breakpoint_table_without_addresses_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """With `print address off` gdb's `info breakpoints` has no Address column at all."""
    program = builder.build("print_address")
    commands = [f"break print_address.c:{marker_line('print_address.c', 'main')}", "catch syscall write",
                "watch ctable[0]", "set print address off", "info breakpoints", "set print address on",
                "info breakpoints"]
    got = assert_like_gdb([word for command in commands for word in ("-ex", command)] + [str(program)], tmp_path)
    assert "Num     Type           Disp Enb What\n" in got.stdout
