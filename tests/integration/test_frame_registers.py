"""Registers of outer frames as the CFI leaves them: those the callee's CFI marks undefined
(DW_CFA_undefined) are gdb's `<not saved>` in its caller and, unspecified there, in every
frame further out; `p $rax + 1` fails in gdb's words. -data-list-register-values --frame N
reads frame N's registers (it read frame 0's whatever the frame), and `info registers` in
an outer frame prints that frame's, in gdb's columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

SOURCE = "undefined_registers.c"


def test_lost_registers_print_not_saved_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("undefined_registers")
    commands = ex(f"break {SOURCE}:{marker_line(SOURCE, 'innermost')}", "run", "up", "print $rax", "print $rbx",
                  "print $rdx + 1", "print/x $rbx", "output $rdx", "print $rip",
                  "info registers rax rbx rdx rip eflags cs", "up", "print $rax", "print $rbx",
                  "info registers rax rdx rip", "bt")  # fmt: skip
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "rbx            <not saved>" in got.stdout


def _register_lists(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'innermost')}")
        mi.ok("-exec-run")
        mi.stopped()
        seen: list[object] = []
        for level, numbers in ((0, "16 17"), (1, "0 3 1 16 17"), (2, "0 1 3 16 17")):  # no stack addresses
            for fmt in ("x", "r", "N"):
                seen.append(mi.ok(f"-data-list-register-values --thread 1 --frame {level} {fmt} {numbers}").results)
        return seen
    finally:
        mi.close()


def test_mi_lists_an_outer_frames_registers_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("undefined_registers")
    ours, gdb = _register_lists(program, tmp_path, gdb=False), _register_lists(program, tmp_path, gdb=True)
    assert ours == gdb
    assert "<not saved>" in repr(ours)


def _register_varobjs(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'innermost')}")
        mi.ok("-exec-run")
        mi.stopped()
        seen: list[object] = []
        for level in (0, 1, 2):
            for expression in ("$pc", '"sink + $pc"', "$rip"):
                seen.append(mi.ok(f"-var-create --thread 1 --frame {level} - * {expression}").results)
        mi.ok("-exec-next-instruction")
        seen.append(mi.stopped().results["reason"])
        seen += [mi.ok(f"-var-update 1 var{n}").results for n in range(1, 10)]
        return seen
    finally:
        mi.close()


def test_register_varobjs_stay_in_their_frame_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """A fixed var object of `$pc` in frame 1 is frame 1's pc after a step in frame 0: it
    did not change (gdb ties a var object reading registers to its frame, as one reading
    locals); frame 0's did."""
    program = builder.build("undefined_registers")
    ours, gdb = _register_varobjs(program, tmp_path, gdb=False), _register_varobjs(program, tmp_path, gdb=True)
    assert ours == gdb
    updates = [repr(update) for update in ours[-9:]]
    assert all("'var" in update for update in updates[:3]) and not any("'var" in update for update in updates[3:])
