"""Backtraces through glibc as gdb 13 shows them, console, MI and DAP:

- a tail-call frame for each function a call site reaches through tail calls (raise calls
  __pthread_kill, inlined __pthread_kill_internal jumps to __pthread_kill_implementation:
  `#1 0x... in __pthread_kill_internal (signo=15, ...)`), its own level everywhere;
- a C function's frame named by its DWARF symbol: the assembler name where it has one
  (`__GI_raise`, `__GI___libc_write`), else DW_AT_name (`_IO_new_file_write`), never the
  ELF alias the address also has (asm_names.c shows it without glibc's debug info);
- `finish` from a tail-call frame returns where the chain's caller called (tail_entry.c);
- a file named as the place's unit's line table names it (`./nptl/pthread_kill.c`,
  `../sysdeps/posix/raise.c`), MI's fullname DW_AT_comp_dir/NAME while found nowhere.

The glibc cases need its debug info (libc6-dbg): skipped where gdb shows no tail call.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.dap_session import alice_session, launch_arguments, start_session
from tests.support.gdb import frames, run_gdb
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import Tuple

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_NO_LIBC_DEBUG = "gdb shows no tail-call frame in raise here (glibc's debug info, libc6-dbg, is not installed)"


def _stack_free(text: str) -> str:
    """Without the stack's addresses (gdb adds LINES and COLUMNS to the environment, which
    moves the stack), libraries' and the program's addresses kept, nor a saved signal mask."""
    text = re.sub(r"0x7ffffff[0-9a-f]{5}", "0x7fff...", normalized(text))
    # pthread_kill's `set` is the mask it saved, which holds what the raise's timing left
    # there: {0} or {2} from run to run, under gdb as under us
    return re.sub(r"\{__val = \{\d+\}\}", "{__val = {N}}", text)


def _like_gdb(args: list[str], cwd: Path, wanted: str, why: str = _NO_LIBC_DEBUG) -> str:
    """gdb's and our `-batch -nx ARGS` agree, stack addresses aside; skipped where gdb's
    output lacks `wanted` (no glibc debug info)."""
    args = ["-batch", "-nx", *args]
    expected = theirs(args, cwd)
    if wanted not in expected.stdout:
        pytest.skip(why)
    got = ours(args, cwd)
    assert _stack_free(got.stdout) == _stack_free(expected.stdout)
    assert _stack_free(got.stderr) == _stack_free(expected.stderr)
    return got.stdout


def test_asm_named_function_frames_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """announce is internal_announce to the assembler and called through its alias."""
    program = builder.build("asm_names", ("-g", "-O0"))
    line = marker_line("asm_names.c", "announce")
    got = assert_like_gdb([*ex(f"break asm_names.c:{line}", "run", "bt", "frame", "finish"), str(program)],
                          tmp_path)  # fmt: skip
    assert "#0  internal_announce (code=4)" in got.stdout


def test_asm_named_function_in_mi_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("asm_names", ("-g", "-O0"))
    line = marker_line("asm_names.c", "announce")

    def seen(gdb: bool) -> list[object]:
        mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=tmp_path, gdb=gdb)
        try:
            mi.prompt()
            mi.ok(f"-break-insert asm_names.c:{line}")
            mi.ok("-exec-run")
            frame = mi.stopped().results["frame"]
            assert isinstance(frame, Tuple)
            return [frame.get("func"), mi.ok("-stack-list-frames").results]
        finally:
            mi.close()

    expected = seen(gdb=True)
    assert expected[0] == "internal_announce"
    assert seen(gdb=False) == expected


def test_program_tail_call_frame_and_finish_from_it_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """tail_entry.c's middle jumps to impl: a frame of its own, and `finish` there returns
    where main called middle, with no value (gdb looks the function up at the frame's pc,
    past middle's end)."""
    program = builder.build("tail_entry", ("-g", "-O2"))
    stop = ex(f"break tail_entry.c:{marker_line('tail_entry.c', 'impl')}", "run")
    _like_gdb([*stop, *ex("bt", "up", "info frame", "down", "frame 1", "down"), str(program)], tmp_path,
              "tail call frame", "gcc made no tail call of middle here")  # fmt: skip
    finish = ["-batch", "-nx", *stop, *ex("up", "finish", "info frame"), str(program)]
    expected, got = theirs(finish, tmp_path), ours(finish, tmp_path)
    assert ("Value returned" in got.stdout) == ("Value returned" in expected.stdout)
    assert _stack_free(got.stdout).splitlines()[-7:] == _stack_free(expected.stdout).splitlines()[-7:]


def test_tail_call_frame_registers_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """In middle's tail-call frame $pc is its tail call's return pc and $sp the callee's
    CFA (gdb 13's, whatever the stack's addresses in each run). (`p $pc` itself differs:
    gdb names no symbol past middle's end, where we say <middle+10>.)"""
    program = builder.build("tail_entry", ("-g", "-O2"))
    stop = ex(f"break tail_entry.c:{marker_line('tail_entry.c', 'impl')}", "run")
    args = ["-batch", "-nx", *stop, *ex("info frame", "up", "p $sp", "p/x $pc"), str(program)]

    def relation(text: str) -> tuple[bool, str]:
        cfa = re.search(r"Stack level 0, frame at (0x[0-9a-f]+)", text)
        sp = re.search(r"\(void \*\) (0x[0-9a-f]+)", text)
        assert cfa is not None and sp is not None, text
        return sp.group(1) == cfa.group(1), _stack_free(text)

    expected = theirs(args, tmp_path).stdout
    if "middle" not in expected:
        pytest.skip("gcc made no tail call of middle here")
    assert relation(ours(args, tmp_path).stdout) == relation(expected)


def test_tail_call_frame_in_bt_frame_and_info_frame_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("raise_sig")
    commands = ex("run", "bt", "info frame", "frame 1", "info frame", "frame 2", "up", "down", "down",
                  "info frame", "bt -full 2")  # fmt: skip
    got = _like_gdb([*commands, "--args", str(program), "15"], tmp_path, "__pthread_kill_internal")
    assert "tail call frame" in got and "./nptl/pthread_kill.c:78" in got and "__GI_raise (sig=15)" in got


def test_libc_write_frames_named_and_placed_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """A write caught at its system call, from exit's flush of stdout: libio's functions by
    their DWARF names, their files as their units name them."""
    program = builder.build("raise_sig")
    commands = ex("catch syscall write", "run", "bt", "info frame", "frame 1", "up")
    got = _like_gdb([*commands, "--args", str(program), "17"], tmp_path, "__GI___libc_write")
    assert "_IO_new_file_write" in got and "./libio/fileops.c" in got


def _mi_stack(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", "--args", str(program), "15"], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-exec-run")
        frame = mi.stopped().results["frame"]
        seen: list[object] = [frame]
        for command in ("-stack-list-frames", "-stack-list-arguments 1", "-stack-info-depth",
                        "-stack-select-frame 1", "-stack-info-frame", "-stack-list-variables 1",
                        "-stack-list-frames 1 2"):  # fmt: skip
            seen.append(mi.ok(command).results)
        return seen
    finally:
        mi.close()


def test_mi_stack_through_tail_calls_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("raise_sig")
    expected = _mi_stack(program, tmp_path, gdb=True)
    if "__pthread_kill_internal" not in repr(expected):
        pytest.skip(_NO_LIBC_DEBUG)
    got = _mi_stack(program, tmp_path, gdb=False)
    argv = re.compile(r"0x7ffffff[0-9a-f]{5}")
    assert argv.sub("0x7fff...", repr(got)) == argv.sub("0x7fff...", repr(expected))


def test_dap_stack_trace_through_tail_calls_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """DAP's frames are gdb's (the tail-call frame too) by name and line; a libc file that
    is not here keeps gdb's name, and says it may not open (deemphasized)."""
    program = builder.build("raise_sig")
    gdb_frames = frames(run_gdb(program, ["run 6", "@frames"])[-1])  # SIGABRT: DAP stops at it
    if not any(f.kind == "tailcall" for f in gdb_frames):
        pytest.skip(_NO_LIBC_DEBUG)
    wanted = [(f.function, f.line) for f in gdb_frames if f.function != "_start"][:4]
    with alice_session() as client:
        session = start_session(client, program, launch=launch_arguments(program, args=["6"], cwd=tmp_path))
        stack = client.stack_trace(session.thread_id)
    assert [(f["name"], f["line"]) for f in stack[: len(wanted)]] == wanted
    tail = stack[1]
    assert tail["source"]["name"] == "pthread_kill.c"
    assert tail["source"].get("presentationHint") == "deemphasize"
    assert tail.get("presentationHint") == "subtle"  # inferred from call sites, as gdb's tail-call frames
    assert "presentationHint" not in stack[0]  # a real frame is shown as one


def _parked_thread_stack(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", "--args", str(program), "2", "2"], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok("-break-insert hit")
        mi.ok("-exec-run")  # at the first hit a thread may still be on its way to its wait:
        mi.stopped()
        mi.ok("-exec-continue")  # at the second (a stop later) both are parked in it
        mi.stopped()
        return [mi.ok(f"-stack-list-frames --thread {n}").results for n in (2, 3)]
    finally:
        mi.close()


def test_mi_frames_of_inlined_libc_callers_named_like_gdb(builder: Builder, tmp_path: Path) -> None:
    """A thread parked in a futex wait: its innermost frames are libc calls inlined into
    each other, and the caller of an inlined call is placed at the call site, in the file
    as its unit names it (`./nptl/futex-internal.c`, fullname `./nptl/./nptl/...` while
    the file is found nowhere), as the frame the line table places."""
    program = builder.build("blocked_threads")
    expected = _parked_thread_stack(program, tmp_path, gdb=True)
    if "__futex_abstimed_wait_common" not in repr(expected):
        pytest.skip(_NO_LIBC_DEBUG)
    assert repr(_parked_thread_stack(program, tmp_path, gdb=False)) == repr(expected)
