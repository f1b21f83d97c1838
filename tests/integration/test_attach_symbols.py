"""Attaching after the program's symbols were read alone (a `print` before any run holds
the program for them): gdb 13 reads the attached process's libraries, so `print puts` and
a dlopened library's function are found (ours looked in the program alone, 'No symbol
"puts" in current context.'); its stop line shows the pc where it is mid-line (a process
in a system call); a library's missing source file says so again after a detach and a new
attach, gdb's objfiles for it being new. Side by side with gdb."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder
from tests.support.dlopen_wait import dlopen_waiting

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

@pytest.fixture
def waiting(builder: Builder) -> Iterator[tuple[Path, int]]:
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])
    with dlopen_waiting(builder, library) as started:
        yield started


def test_attach_after_the_program_alone_like_gdb(waiting: tuple[Path, int]) -> None:
    program, pid = waiting
    commands = ["print puts", "break plugin_work", f"attach {pid}", "print plugin_work", "print puts",
                "detach", f"attach {pid}", "print plugin_work", "detach"]  # fmt: skip
    got = output_like_gdb(program, commands)
    assert got.count("<plugin_work>") == 2
