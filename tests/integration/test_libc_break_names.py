"""`break NAME` on libc's functions, compared with gdb 13 (libc6-dbg's debug info): a
place found by an ELF symbol (linespec.c minsym_found) is named by the function holding
it, by its DWARF symbol's name (`sigaction` is libc's `__GI___sigaction` and ld.so's
`__sigaction`, `raise` is `__GI_raise`), in `info breakpoints` and MI's func; an ifunc
(strlen, memset) at the function it resolved to, else at its resolver as a minimal symbol.

Skipped where gdb shows no `__GI___sigaction` (libc6-dbg is not installed)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import Record, Tuple

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _stack_free(text: str) -> str:
    """Without the stack's addresses (gdb adds LINES and COLUMNS to the environment)."""
    return re.sub(r"0x7ffffff[0-9a-f]{5}", "0x7fff...", normalized(text))


def _like_gdb(program: Path, commands: list[str], needs: str) -> str:
    args = ["-batch", "-nx", *ex(*commands), str(program)]
    expected = theirs(args, program.parent)
    if needs not in expected.stdout:
        pytest.skip(f"gdb shows no {needs} here (glibc's debug info, libc6-dbg, is not installed)")
    got = ours(args, program.parent)
    assert _stack_free(got.stdout) == _stack_free(expected.stdout)
    assert _stack_free(got.stderr) == _stack_free(expected.stderr)
    return got.stdout


def test_libc_aliases_named_by_their_function(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _like_gdb(program, ["break main", "run", "break sigaction", "break __sigaction", "break raise",
                              "break gsignal", "break write", "break _IO_file_write", "break signal",
                              "info breakpoints", "continue", "bt 1"], "__GI___sigaction")  # fmt: skip
    assert " in __sigaction at " in got and " in __GI_raise at " in got


def test_unresolved_ifuncs_like_gdb(builder: Builder) -> None:
    """libc's memset and strlen are ifuncs not resolved yet at main (lazy binding): their
    place is the resolver's entry, a minimal symbol's (`<strlen_ifunc>`, no line, no name in
    `break`'s message), and the stop there shows the inlined selector (no symbol to stop
    "in"); ld.so's own copies are plain functions."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _like_gdb(program, ["break main", "run", "break sigaction", "break memset", "break strlen",
                              "info breakpoints", "continue", "bt 3", "continue", "bt 3", "continue", "bt 3"],
                    "<strlen_ifunc>")  # fmt: skip
    assert " (2 locations)\n" in got and "Breakpoint 4.1, strlen_ifunc_selector () at " in got


def test_resolved_ifuncs_like_gdb(builder: Builder) -> None:
    """Once the program's `strlen@got.plt` holds the function the ifunc chose, `break
    strlen` is set there (elfread.c elf_gnu_ifunc_resolve_by_got), named by its symbol."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    line = marker_line("libc_calls.c", "resolved")
    got = _like_gdb(program, [f"break {line}", "run", "break strlen", "break memset", "info breakpoints",
                              "continue", "bt 1", "continue", "bt 1"], "__memset_")  # fmt: skip
    assert "_ifunc" not in got


def _mi_ifunc(program: Path, *, gdb: bool) -> list[str]:
    """-break-insert on ifuncs at main (unresolved) and after their first calls (resolved),
    and the *stopped records of the stops in them."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    seen: list[str] = []
    try:
        mi.prompt()
        mi.ok("-break-insert main")
        mi.ok(f"-break-insert libc_calls.c:{marker_line('libc_calls.c', 'resolved')}")
        mi.ok("-exec-run")
        mi.stopped()
        seen += _results(mi.command("-break-insert memset")[1])
        mi.ok("-exec-continue")
        seen.append(_frame_of(mi.stopped()))
        mi.ok("-exec-continue")
        mi.stopped()  # (libc_calls.c's resolved line)
        seen += _results(mi.command("-break-insert strlen")[1])
        mi.ok("-exec-continue")
        seen.append(_frame_of(mi.stopped()))
        return seen
    finally:
        mi.close()


def _results(lines: list[str]) -> list[str]:
    return [re.sub(r'thread-groups=\[[^]]*\],', "", line) for line in lines
            if line.lstrip("0123456789").startswith(("^", "=breakpoint"))]  # fmt: skip


def _frame_of(record: Record) -> str:
    frame = record.results.get("frame")
    assert isinstance(frame, Tuple)
    return " ".join(f"{key}={frame.get(key)}" for key in ("addr", "func", "file", "line"))


def test_mi_ifunc_records_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    expected = _mi_ifunc(program, gdb=True)
    if not any("<memset_ifunc>" in line for line in expected):
        pytest.skip("gdb shows no <memset_ifunc> here (libc6-dbg is not installed)")
    assert _mi_ifunc(program, gdb=False) == expected


def test_stubs_kept_beside_local_functions_like_gdb(builder: Builder) -> None:
    """After `starti` (the program and ld.so loaded), `break strlen` is at the program's
    PLT stub and at ld.so's strlen: gdb's search_minsyms_for_name drops a stub only for a
    global or weak symbol of the name, and ld.so's own copies are local. Once libc loads
    (its global strlen), the stubs go."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _like_gdb(program, ["starti", "break sigaction", "break memset", "break strlen", "info breakpoints",
                              "continue", "info breakpoints", "bt 3", "condition 2 0", "condition 3 0",
                              "tbreak main", "continue", "info breakpoints", "continue", "bt 1"],
                    "<strlen_ifunc>")  # fmt: skip
    assert "<strlen@plt>" in got and "Breakpoint 3.2, strlen () at " in got


def test_before_run_the_program_alone_like_gdb(builder: Builder) -> None:
    """Before `run` gdb has read the program's symbols alone (ours hold ld.so's too, in the
    symbol probe): `break strlen` is the program's stub, `break strchr` (ld.so's only, never
    called by the program) not defined; once the program runs, ld.so's places join."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _like_gdb(program, ["break strchr", "break raise", "set breakpoint pending on", "break sigaction",
                              "break memset", "break strlen", "break strchr", "info breakpoints", "run",
                              "info breakpoints", "bt 3", "continue", "bt 3"], "__sigaction")  # fmt: skip
    assert 'Function "strchr" not defined.' in got or "Breakpoint 4 (strchr) pending." in got
    assert re.search(
        r"^Breakpoint 3 at 0x[0-9a-f]{4}\n", got, re.M
    )  # the stub, at its link-time address


def _mi_before_run(program: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    try:
        mi.prompt()
        return [
            line
            for name in ("strlen", "strchr")
            for line in _results(mi.command(f"-break-insert {name}")[1])
        ]
    finally:
        mi.close()


def test_mi_before_run_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _mi_before_run(program, gdb=False)
    assert got == _mi_before_run(program, gdb=True)
    assert 'at="<strlen@plt>"' in got[0] and 'Function \\"strchr\\" not defined.' in got[1]


def test_ifunc_resolver_breakpoint_like_gdb(builder: Builder) -> None:
    """A breakpoint whose one location is an unresolved ifunc's resolver (strcpy: ld.so has
    none) is gdb's `STT_GNU_IFUNC resolver` breakpoint: so announced and listed, its hit
    counted and no stop (gdb 13 then waits for the resolver's return in vain: it stays)."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    line = marker_line("libc_calls.c", "printed")
    got = _like_gdb(program, ["break main", "run", "break strcpy", "tbreak strcpy", "info breakpoints",
                              f"break {line}", "continue", "info breakpoints", "continue"],
                    "gnu-indirect-function resolver")  # fmt: skip
    assert "STT_GNU_IFUNC resolver keep y" in got and "breakpoint already hit 1 time" in got


def _mi_resolver(program: Path, *, gdb: bool) -> list[str]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb)
    seen: list[str] = []
    try:
        mi.prompt()
        mi.ok("-break-insert main")
        mi.ok(f"-break-insert libc_calls.c:{marker_line('libc_calls.c', 'printed')}")
        mi.ok("-exec-run")
        mi.stopped()
        seen += _results(mi.command("-break-insert strcpy")[1])
        mi.ok("-exec-continue")
        seen.append(_frame_of(mi.stopped()))
        seen += _results(mi.command("-break-list")[1])
        return seen
    finally:
        mi.close()


def test_mi_ifunc_resolver_breakpoint_like_gdb(builder: Builder) -> None:
    program = builder.build("libc_calls", ("-g", "-O0"))
    expected = _mi_resolver(program, gdb=True)
    if not any('type="STT_GNU_IFUNC resolver"' in line for line in expected):
        pytest.skip(
            "gdb sets no STT_GNU_IFUNC resolver breakpoint here (libc6-dbg is not installed)"
        )
    assert _mi_resolver(program, gdb=False) == expected


def test_resolver_place_moves_at_a_library_load_like_gdb(builder: Builder) -> None:
    """An ifunc's resolver place, set before the program called it, moves to the function
    it resolved to when a later library load sets the breakpoints anew (gdb's re-set)."""
    program = builder.build("ifunc_reset", ("-g", "-O0"), extra=["-ldl"])
    line = marker_line("ifunc_reset.c", "after")
    got = _like_gdb(program, ["break main", "run", "break strlen", "condition 2 0", f"break ifunc_reset.c:{line}",
                              "info breakpoints", "continue", "info breakpoints"], "<strlen_ifunc>")  # fmt: skip
    assert got.count("<strlen_ifunc>") == 1


def test_address_locations_named_by_their_function_like_gdb(builder: Builder) -> None:
    """`break *ADDRESS` is named by the function holding the address (linespec.c
    convert_address_location_to_sals): libc's `__GI___sigaction` for `*sigaction`, an
    assembler function by its DWARF name (ld.so's strlen, libc's __strlen_evex)."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _like_gdb(program, ["break main", "run", "break *sigaction", "break *strlen", "break *__strlen_evex",
                              "break *memset", "info breakpoints"], "__GI___sigaction")  # fmt: skip
    assert " in ?? " not in got and " in __strlen_evex at " in got


def test_address_in_an_inlined_call_like_gdb(builder: Builder) -> None:
    """`break *ADDRESS` inside an inlined call's code is in the inlined function."""
    program = builder.build("inlined_address", ("-g", "-O0"))
    line = marker_line("inlined_address.c", "inside")
    got = _like_gdb(program, ["break main", "run", f"info line inlined_address.c:{line}", "break *$_",
                              "info breakpoints", "continue", "bt"], "Breakpoint 2 at")  # fmt: skip
    assert " in twice at " in got


def test_line_locations_named_by_their_function_like_gdb(builder: Builder) -> None:
    """`break FILE:LINE` in libc likewise (linespec.c create_sals_line_offset: the block's
    function): sigaction.c's line in libc's `__GI___sigaction` and ld.so's `__sigaction`."""
    program = builder.build("libc_calls", ("-g", "-O0"))
    got = _like_gdb(program, ["break main", "run", "break sigaction.c:27", "break raise.c:26",
                              "break fileops.c:1173", "info breakpoints"], "__GI___sigaction")  # fmt: skip
    assert " in __sigaction at " in got and " in _IO_new_file_write at " in got
