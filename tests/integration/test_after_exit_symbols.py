"""After the program exits or is killed, gdb 13 keeps the libraries' symbols it had read
(their objfiles stay, at the addresses they had, until the next run reads the loader's list
again): `info symbol sigaction` names libc, `print sigaction` is libc's function and
`x/i` reads its code from the file, `break printf` is set in libc and stops there at the
next run. Ours holds a symbol probe then (ld.so alone mapped), which keeps the ended run's
libraries beside it. Side by side with gdb."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_QUERIES = [
    "info symbol sigaction", "info address sigaction", "print sigaction", "print printf",
    "x/2i sigaction", "print $1", "info symbol printf",
]  # fmt: skip


def test_after_exit_the_libraries_symbols_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = output_like_gdb(program, ["run", *_QUERIES])
    assert "sigaction in section .text of " in got and "libc.so" in got


def test_after_kill_the_libraries_symbols_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = output_like_gdb(program, ["break main", "run", "kill", *_QUERIES])
    assert "sigaction in section .text of " in got


def test_after_exit_break_in_libc_then_run_like_gdb(builder: Builder) -> None:
    """`break printf` after the exit is set at libc's printf, and the next run stops there;
    `break strlen` at libc's ifunc and ld.so's copy, as gdb's."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = output_like_gdb(program, ["run", "break printf", "break strlen", "info breakpoints", "run", "bt 1",
                              "info breakpoints", "kill", "break sigaction", "info breakpoints"])  # fmt: skip
    assert "<strlen_ifunc>" in got


def _mi_after_exit(program: Path, *, gdb: bool) -> list[str]:
    """The result records of queries after an MI run to the exit."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-exec-run")
        mi.stopped()
        seen = []
        for command in ("-data-evaluate-expression sigaction", "-var-create - * sigaction",
                        "-break-insert printf", "-data-disassemble -s sigaction -e sigaction+4 -- 0"):
            seen += [line for line in mi.command(command)[1] if line.lstrip("0123456789").startswith("^")]
        return seen
    finally:
        mi.close()


def test_mi_after_exit_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _mi_after_exit(program, gdb=False)
    assert got == _mi_after_exit(program, gdb=True)
    assert any("__GI___sigaction" in line for line in got)


def test_library_source_missing_again_at_each_run_like_gdb(builder: Builder) -> None:
    """gdb's run drops the last run's libraries (target_pre_inferior): a stop in libc's
    printf, whose source is not here, says 'No such file or directory.' at each run, where
    the program's own missing file would say `in FILE` the second time."""
    library = builder.build("lib_plugin", flags=("-O0",), extra=["-shared", "-fPIC"])
    program = builder.build("dlopen_main", extra=["-ldl"])
    runs = ["break printf", f"run {library} > /dev/null", "run", "kill", "run", "up", "down"]
    got = output_like_gdb(program, runs)
    assert got.count("Breakpoint 1, ") == 3
