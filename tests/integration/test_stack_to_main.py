"""Stacks as gdb shows them: ending at the program's main (Rust's `crate::main`, the function
marked DW_AT_main_subprogram, not the runtime's lang_start below it) unless `set backtrace
past-main on`; in DAP the frames below main stay, subtle, and libc's frames name their
source file (deemphasized when it is not on this machine) and line as gdb's bt does."""

from __future__ import annotations

import ast
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.build import Builder, marker_line
from tests.support.build_more import MoreBuilder, find_rustc
from tests.support.dap_client import DapClient
from tests.support.dap_session import spawned, start_session
from tests.support.gdb import backtrace, gdb_env, gdb_path, run_gdb
from tests.support.mi_client import MiClient

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
]

PANIC_STOP = "rust_panic"  # std's function every panic goes through


@pytest.fixture(scope="module")
def rust_program(builder: Builder) -> Path:
    if find_rustc() is None:
        pytest.skip("rustc not installed")
    return MoreBuilder(builder.cache_dir).build_rust("panic_index")


@pytest.fixture
def dap(tmp_path: Path) -> Iterator[DapClient]:
    with spawned(alice_argv(), stderr=tmp_path / "adapter.log") as client:
        yield client


def _console(mi: MiClient, command: str) -> str:
    _, seen = mi.command(f'-interpreter-exec console "{command}"')
    return "".join(ast.literal_eval(line[1:]) for line in seen if line.startswith("~"))


def _frame_names(bt: str) -> list[str]:
    # `#9  0x... in NAME (...)`, or `#10 NAME (...)` in a frame an inlined call was made from
    frames = [re.sub(r"^#\d+\s+(?:0x[0-9a-f]+ in )?", "", line) for line in bt.splitlines() if line.startswith("#")]
    return [frame.split(" (")[0] for frame in frames]


def test_mi_rust_stack_ends_at_crate_main(rust_program: Path) -> None:
    gdb_bt = backtrace(run_gdb(rust_program, [f"break {PANIC_STOP}", "run", "bt"], env=gdb_env())[2])
    assert gdb_bt[-1].function == "panic_index::main"
    mi = MiClient(["-i=mi", "-q", str(rust_program)], cwd=rust_program.parent)
    try:
        mi.prompt()
        _console(mi, f"break {PANIC_STOP}")
        mi.ok("-exec-run")
        mi.stopped()
        assert mi.ok("-stack-info-depth").results["depth"] == str(len(gdb_bt))
        names = _frame_names(_console(mi, "bt"))
        assert len(names) == len(gdb_bt) and names[-1] == "panic_index::main"
        assert not [name for name in names if name.startswith(("_ZN", "_R"))], names
        frames = mi.ok("-stack-list-frames").results["stack"]
        assert len(frames.values) == len(gdb_bt)  # type: ignore[union-attr]
        assert _console(mi, "show backtrace past-main") == (
            'Whether backtraces should continue past "main" is off.\n'
        )
        _console(mi, "set backtrace past-main on")
        below = _frame_names(_console(mi, "bt"))
        assert len(below) > len(names) and "std::rt::lang_start_internal" in below
        assert int(mi.ok("-stack-info-depth").results["depth"]) == len(below)  # type: ignore[arg-type]
    finally:
        assert mi.close() == 0


def test_dap_rust_frames_demangled_and_runtime_subtle(dap: DapClient, builder: Builder, rust_program: Path) -> None:
    session = start_session(dap, rust_program, function_breakpoints=[PANIC_STOP])
    # A page far down asked first at this stop: which of its frames are below main is found
    # from the frames above it (then remembered for the stop), as when listed from the top.
    pages = [dap.stack_trace(session.thread_id, start, 3) for start in (6, 3, 0, 9, 12)]
    frames = dap.stack_trace(session.thread_id)
    paged = sorted((frame for page in pages for frame in page), key=lambda frame: frames.index(
        next(f for f in frames if f["id"] == frame["id"])))  # fmt: skip
    assert [f.get("presentationHint") for f in paged] == [f.get("presentationHint") for f in frames[:15]]
    names = [frame["name"] for frame in frames]
    assert not [name for name in names if name.startswith(("_ZN", "_R"))], names
    main = names.index("panic_index::main")
    assert frames[main]["line"] == marker_line(builder.programs_dir / "panic_index.rs", "panic_call")
    assert all(frame.get("presentationHint") != "subtle" for frame in frames[: main + 1]), frames
    assert len(frames) > main + 1  # lldb-vscode shows the runtime's frames too
    assert all(frame.get("presentationHint") == "subtle" for frame in frames[main + 1 :]), frames


def test_dap_libc_frames_name_their_source_as_gdb(dap: DapClient, builder: Builder) -> None:
    program = builder.build("examine")
    line = marker_line("examine.c", "examine")
    said = run_gdb(program, [f"break examine.c:{line}", "run", "set backtrace past-main on", "bt"], env=gdb_env())
    # (gdb names the next one __libc_start_main_impl, the symbol table __libc_start_main)
    libc = [frame for frame in backtrace(said[3]) if frame.function == "__libc_start_call_main"]
    with_source = [frame for frame in libc if frame.file is not None]
    if not with_source:
        pytest.skip("gdb finds no source line in libc: libc6-dbg is not installed")
    session = start_session(dap, program, breakpoints={str(builder.source("examine")): [line]})
    frames = {frame["name"]: frame for frame in dap.stack_trace(session.thread_id)}
    assert frames["main"].get("presentationHint") is None
    for expected in with_source:
        assert expected.file is not None
        ours = frames[expected.function]
        assert ours["source"]["name"] == os.path.basename(expected.file)
        assert ours["line"] == expected.line
        assert ours["presentationHint"] == "subtle"  # below main
        if not os.path.exists(ours["source"]["path"]):
            assert ours["source"]["presentationHint"] == "deemphasize"
