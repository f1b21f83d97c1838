"""Symbols from the program's file alone, before it runs, for a program this machine
cannot start: gdb reads locations, breakpoints, `info line`, `list`, `x`, `disassemble` and
`print &global` from the file, at link-time addresses, and relocates the breakpoints when
the program runs. Ours held a started copy of the program for its symbols, which a program
of another architecture (aarch64 under qemu) or one whose dynamic loader is missing cannot
be: `break leaf` was pending ("Function \"leaf\" not defined.")."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, ours
from tests.support.build import Builder, marker_line
from tests.support.qemu import SYSROOT, cross_builder, qemu_stub, tool

pytestmark = pytest.mark.timeout(300)

BEFORE = ("break leaf", "info line leaf", "print &leaf", "list leaf", "x/2i leaf", "disassemble leaf",
          "info symbol leaf", "print leaf", "x/2xw leaf", "print sink", "print &sink", "tbreak main",
          "print $pc", "info breakpoints")  # fmt: skip


def _both_over_qemu(program: Path, commands: Sequence[str], cwd: Path) -> tuple[str, str]:
    """(gdb-multiarch's, ours) stdout and stderr of `-batch` COMMANDS, `{target}` standing
    for a fresh qemu stub running `program`."""
    gdb = tool("gdb-multiarch")
    said = []
    for side in ("gdb", "ours"):
        with qemu_stub(program) as stub:
            args = ["-batch", "-nx", *ex(*(c.replace("{target}", stub.address) for c in commands)), str(program)]
            if side == "gdb":
                done = subprocess.run([gdb, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                                      stdin=subprocess.DEVNULL)  # fmt: skip
            else:
                done = ours(args, cwd)
        text = done.stdout + "\n--stderr--\n" + done.stderr
        said.append(re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text))
    return said[0], said[1]


def test_an_aarch64_program_before_it_runs_like_gdb_multiarch(builder: Builder, tmp_path: Path) -> None:
    program = cross_builder(builder).build("aarch64_frames", ("-g", "-O0"))
    gdb, alice = _both_over_qemu(program, [*BEFORE, f"set sysroot {SYSROOT}", "target remote {target}",
                                           "info breakpoints", "continue", "bt 1", "continue"], tmp_path)  # fmt: skip
    assert alice == gdb
    line = marker_line("aarch64_frames.c", "leaf")
    assert re.search(rf"Breakpoint 1 at 0x[0-9a-f]{{3}}: file \S+, line {line}\.", alice)
    assert "\nBreakpoint 1, leaf (x=0, y=2)" in alice and "Temporary breakpoint 2, main ()" in alice


@needs_gdb
def test_a_program_whose_loader_is_missing_before_it_runs_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("link_time", extra=["-Wl,--dynamic-linker=/nonexistent/ld-linux-x86-64.so.2"])
    got = assert_like_gdb([*ex("break main", "info line main", "print &counter", "print counter",
                               "print *counter_pointer", "x/2xw &counter", "disassemble twice",
                               "info symbol twice", "print $pc", "info breakpoints"), str(program)],
                          tmp_path)  # fmt: skip
    assert re.search(r"Breakpoint 1 at 0x[0-9a-f]{4}: file \S+, line \d+\.", got.stdout)
    assert "(int *) 0x4" in got.stdout


def test_an_aarch64_program_under_the_default_sysroot_like_gdb_multiarch(builder: Builder, tmp_path: Path) -> None:
    """Without `set sysroot` qemu's stub transfers no files, so its libraries are looked
    for on this machine, where they are not: gdb warns of each step and lists them unread
    at the next stop (the loader's breakpoint could not be placed)."""
    program = cross_builder(builder).build("aarch64_frames", ("-g", "-O0"))
    gdb, alice = _both_over_qemu(program, ["target remote {target}", "info sharedlibrary", "break leaf", "continue",
                                           "info sharedlibrary", "bt", "continue"], tmp_path)  # fmt: skip
    assert alice == gdb
    assert "warning: remote target does not support file transfer" in alice
    assert re.search(r"\n {40}No {10}/\S+/libc\.so\.6\n", alice)
