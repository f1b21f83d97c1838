"""`info registers` as gdb 13 prints it: the natural column at 35 (hex values up to 16
digits and two spaces), float registers with `(raw 0x...)`, vector registers as their
union in hex alone, user registers (pc, sp, fp, ps) and pseudo ones (eax, al) by the name
typed, groups by prefix (`fl` is float), gdb's errors; and the registers each listing
holds (general: no fs_base/gs_base, which are only in the system group; all-registers;
`info vector`), compared by name where the values hold stack addresses or AVX-512 state."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

# Registers whose values do not follow the environment's size (stack addresses) nor
# AVX-512's state (gdb 13 reads it at Intel's offsets, wrong on AMD's).
STEADY = ("info registers rip eflags cs ss ds es fs gs rax", "info registers float", "info registers xmm0",
          "info registers ymm0", "info registers pc ps eax al $rip", "info registers fl", "info registers system",
          "info registers st7 mxcsr fctrl", "info registers 0", "info registers $", "info registers foo",
          "info registers rip float", "up", "info registers rip pc eflags", "info all-registers rip")  # fmt: skip
LISTINGS = ("info registers", "info all-registers", "info vector", "info registers general",
            "info registers vector", "info registers sse", "info registers mmx")  # fmt: skip


def _start(builder: Builder) -> tuple[Path, list[str]]:
    program = builder.build("registers_expr")
    return program, ex(f"break registers_expr.c:{marker_line('registers_expr.c', 'callee')}", "run")


def test_register_lines_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program, start = _start(builder)
    got = assert_like_gdb([*start, *ex(*STEADY), str(program)], tmp_path)
    assert "st7            52.5                (raw 0x4004d200000000000000)" in got.stdout


def _names(text: str) -> list[list[str]]:
    """The registers each listing names (the first word of its lines), listing by listing."""
    listings: list[list[str]] = []
    for line in normalized(text).splitlines():
        if line == "=====":
            listings.append([])
        elif listings and line:
            listings[-1].append(line.split()[0])
    return listings


def test_register_listings_name_what_gdb_names(builder: Builder, tmp_path: Path) -> None:
    program, start = _start(builder)
    commands = [word for listing in LISTINGS for word in ex("echo =====\\n", listing)]
    args = ["-batch", "-nx", *start, *commands, str(program)]
    expected, got = _names(theirs(args, tmp_path).stdout), _names(ours(args, tmp_path).stdout)
    assert got == expected
    assert "fs_base" not in expected[0] and "mxcsr" in expected[2]
