"""A disabled breakpoint's places follow starts and library loads and unloads, untrapped,
as gdb 13's breakpoint_re_set re-sets disabled breakpoints too: `break NAME` before `run`
on a library's function (its PLT stub then), disabled, lists the library's function once it
loads; on an ifunc (libc's strlen) the resolver's entry, which gdb's `enable` keeps (enable
re-sets nothing); on a function of a library dlopen loads later, its place there; and
`enable once` and `delete` after that, side by side with gdb."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def test_disabled_breakpoint_follows_its_library_like_gdb(builder: Builder) -> None:
    library = builder.build("lib_solib", extra=["-shared", "-fPIC"])
    program = builder.build("solib_main", extra=["-Wl,--no-as-needed", str(library)])
    commands = ["break solib_step", "disable 1", "break 8", "run", "info breakpoints", "enable 1", "continue", "bt",
                "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "keep n   0x00007" in got.stdout and "in solib_step at " in got.stdout  # not its stub


def test_disabled_breakpoint_on_an_ifunc_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    commands = ["set breakpoint pending on", "break strlen", "info breakpoints", "disable 1", "break 18", "run",
                "info breakpoints", "enable 1", "continue", "bt", "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), str(program)], program.parent)
    assert "<strlen@plt>" in got.stdout and "<MULTIPLE>" in got.stdout


def test_disabled_breakpoint_in_a_dlopened_library_like_gdb(builder: Builder) -> None:
    library = builder.build("lib_plugin", extra=["-shared", "-fPIC"])
    program = builder.build("dlopen_main", extra=["-ldl"])
    commands = ["set breakpoint pending on", "break plugin_work", "disable 1", "break 10", "run", "info breakpoints",
                "enable once 1", "continue", "bt", "info breakpoints", "next", "next", "info breakpoints",
                "delete 1", "info breakpoints"]  # fmt: skip
    got = assert_like_gdb([*ex(*commands), "--args", str(program), str(library)], program.parent)
    assert "dis  n   0x00007" in got.stdout and "Breakpoint 1, plugin_work (x=20)" in got.stdout


def _mi_listed(program: Path, library: Path, *, gdb: bool) -> list[str]:
    """-break-list after a disabled pending breakpoint's library loaded, MI's own way."""
    mi = MiClient(["-i=mi", "-q", "-nx", "--args", str(program), str(library)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-break-insert -f -d plugin_work")
        mi.ok("-break-insert dlopen_main.c:10")
        mi.ok("-exec-run")
        mi.stopped()
        listed = [line for line in mi.command("-break-list")[1] if "^done" in line]
        mi.ok("-break-enable 1")
        mi.ok("-exec-continue")
        stop = mi.stopped()
        return [*listed, str(stop.results.get("bkptno"))]
    finally:
        mi.close()


def test_mi_disabled_pending_breakpoint_resolves_like_gdb(builder: Builder) -> None:
    library = builder.build("lib_plugin", extra=["-shared", "-fPIC"])
    program = builder.build("dlopen_main", extra=["-ldl"])
    noise = re.compile(r"\d+\^|,thread-groups=\[[^]]*\]|,times=\"\d+\"")
    got = [noise.sub("", line) for line in _mi_listed(program, library, gdb=False)]
    assert got == [noise.sub("", line) for line in _mi_listed(program, library, gdb=True)]
    assert 'enabled="n",addr="0x00007' in got[0] and got[-1] == "1"
