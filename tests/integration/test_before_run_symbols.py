"""Before `run` gdb 13 has read the program's symbols alone; ours hold the program in a
symbol probe (stopped at its first instruction, ld.so mapped), whose loader the user's
expressions and symbol queries must not see: `print sigaction` is the program's PLT stub
(`<sigaction@plt>` at its link-time address), `_dl_start` no symbol. After `starti` and
`run` ld.so's and libc's names are seen, as gdb's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, output_like_gdb, theirs
from tests.support.build import Builder
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_QUERIES = [
    "info symbol sigaction", "info symbol strlen", "info symbol _dl_start", "info symbol main",
    "info address sigaction", "info address strlen", "info address _dl_start", "info address main",
    "print sigaction", "print strlen", "print _dl_start", "print main", "print &buffer",
    "output sigaction", "echo \\n", "whatis sigaction", "ptype sigaction", "whatis _dl_start",
    "ptype _dl_start", "ptype struct sigaction", "ptype struct link_map", "info line sigaction",
    "info line _dl_start", "break *strlen", "break *_dl_start", "x/i sigaction", "x/i _dl_start",
    "list _dl_start", "print _r_debug", "print &_r_debug", "print environ", "print sizeof(sigaction)",
]  # fmt: skip


def test_before_run_names_are_the_programs_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = output_like_gdb(program, _QUERIES)
    assert "$1 = {<text variable, no debug info>} 0x" in got and "<sigaction@plt>" in got
    assert 'No symbol "_dl_start" in current context.' in got


def test_before_run_the_programs_language_like_gdb(builder: Builder) -> None:
    """Without a frame gdb reads names in the language of main's unit: C++'s `geo::Rect`."""
    if find_cxx() is None:
        pytest.skip("no C++ compiler")
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_values")
    got = output_like_gdb(program, ["print ns::twice", "print geo::Counted::count", "print sizeof(geo::Rect)",
                              "ptype geo::Shape", "whatis ns::twice", "print &measure", "print printf",
                              "info symbol ns::twice", "print Shape", "show language"])  # fmt: skip
    assert re.search(r"^\$3 = \d+$", got, re.M) and "type = struct geo::Shape {" in got


def _loader_address(program: Path) -> str:
    """ld.so's `_dl_start` as gdb finds it after `starti` (the test skipped where it does not)."""
    started = theirs(
        ["-batch", "-nx", *ex("starti", "output/x &_dl_start"), str(program)], program.parent
    )
    found = re.search(r"0x7[0-9a-f]+$", started.stdout.strip())
    if found is None:
        pytest.skip(f"gdb finds no _dl_start after starti here: {started.stdout[-200:]}")
    return found.group(0)


def test_before_run_no_memory_or_symbol_outside_the_program_like_gdb(builder: Builder) -> None:
    """An address in ld.so (where `starti` finds `_dl_start`) before `run`: gdb has no
    symbol, line or memory there; the held process's are not shown."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    found = _loader_address(program)
    address = found
    got = output_like_gdb(program, [f"info symbol {address}", f"print (void *) {address}", f"print (char *) {address}",
                              f"x/2x {address}", f"x/i {address}", f"print *(int *) {address}", f"output (void (*)()) {address}",
                              "echo \\n", f"info line *{address}", f"break *{address}", "info breakpoints"])  # fmt: skip
    assert f"No symbol matches {address}." in got and "_dl_start" not in got


def test_after_starti_the_loader_is_seen_like_gdb(builder: Builder) -> None:
    """`starti` loads the program and ld.so (gdb reads ld.so's symbols then)."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = output_like_gdb(program, ["starti", "info symbol sigaction", "info address sigaction", "print sigaction",
                              "print _dl_start", "x/i _dl_start", "print &_r_debug"])  # fmt: skip
    assert re.search(r"^\$\d+ = \{.*\} 0x7[0-9a-f]+ <_dl_start>$", got, re.M)


def test_at_main_libc_is_seen_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = output_like_gdb(program, ["break main", "run", "info symbol sigaction", "info symbol strlen", "print sigaction",
                              "x/i sigaction", "print &_r_debug", "x/2i 0", "kill", "print main"])  # fmt: skip
    assert "sigaction in section .text of " in got


def _results(program: Path, commands: tuple[str, ...], *, gdb: bool) -> list[str]:
    """The result records of `commands` in an MI session of `program` before `run`."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        seen = []
        for command in commands:
            seen += [
                line for line in mi.command(command)[1] if line.lstrip("0123456789").startswith("^")
            ]
        return seen
    finally:
        mi.close()


def _mi_before_run(program: Path, *, gdb: bool) -> list[str]:
    return _results(program, ("-data-evaluate-expression sigaction", "-data-evaluate-expression _dl_start",
                              "-data-evaluate-expression &_r_debug", "-var-create - * sigaction",
                              "-var-create - * _dl_start", "-var-create - * buffer"), gdb=gdb)  # fmt: skip


def test_mi_before_run_names_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _mi_before_run(program, gdb=False)
    assert got == _mi_before_run(program, gdb=True)
    assert any("<sigaction@plt>" in line for line in got)


def _mi_outside(program: Path, address: str, *, gdb: bool) -> list[str]:
    return _results(program, (f"-data-read-memory-bytes {address} 4", "-data-read-memory-bytes &buffer 2",
                              f"-data-disassemble -s {address} -e {address}+4 -- 0",
                              f"-data-evaluate-expression (char)*(char*){address}"), gdb=gdb)  # fmt: skip


def test_mi_before_run_no_memory_outside_the_program_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    found = _loader_address(program)
    got = _mi_outside(program, found, gdb=False)
    assert got == _mi_outside(program, found, gdb=True)
    assert got[0].endswith('^error,msg="Unable to read memory."')
