"""stack_trace against gdb's `bt`: a three-deep chain, recursion, paging, a comparator called
from libc's qsort, a signal handler (through the signal trampoline), C++ and Rust names."""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any, Sequence

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import SignalPolicy, StackFrame
from conformance.source_diff import engine_groups, gdb_groups, normalize_function
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx, find_rustc
from tests.support.events import EventLog
from tests.support.gdb import (
    GdbFrame,
    GdbReply,
    backtrace,
    frames,
    gdb_env,
    gdb_path,
    run_gdb,
    up_to_main,
)
from tests.support.session import launch

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.both_backends,
]

BASIC = PROGRAMS_DIR / "src_basic.c"


def line_of(name: str, source: Path = BASIC) -> int:
    return marker_line(source, name)


def gdb_stack(
    program: Path, spec: str, quiet: Sequence[str] = (), hits: int = 1
) -> tuple[list[GdbFrame], list[GdbFrame]]:
    """gdb's `bt` (text) and `@frames` (Python view) at the `hits`-th stop at `spec`."""
    commands = [f"handle {name} nostop noprint pass" for name in quiet]
    commands += [f"break {spec}", "run", *["continue"] * (hits - 1), "bt", "@frames"]
    replies = run_gdb(program, commands, env=gdb_env())
    bt: GdbReply = replies[-2]
    return backtrace(bt), frames(replies[-1])


def engine_stack(
    debugger: Any,
    events: EventLog,
    program: Path,
    spec: str,
    quiet: Sequence[int] = (),
    hits: int = 1,
) -> tuple[Stopped, list[StackFrame]]:
    launch(debugger, program, env=gdb_env())
    for sig in quiet:
        debugger.set_signal_policy(
            sig, SignalPolicy(stop=False, pass_to_program=True, print_=False)
        )
    for location in debugger.resolve_location(spec):
        debugger.insert_breakpoint(location.address)
    stop = None
    for _ in range(hits):
        debugger.resume()
        stop = events.wait_for(Stopped, timeout=20)
    assert stop is not None
    return stop, debugger.stack_trace(stop.thread_id)


def names_and_lines(trace: Sequence[StackFrame]) -> list[tuple[str | None, str | None, int | None]]:
    return [
        (
            f.function,
            os.path.basename(f.source.path) if f.source else None,
            f.source.line if f.source else None,
        )
        for f in trace
    ]


def gdb_names_and_lines(bt: Sequence[GdbFrame]) -> list[tuple[str | None, str | None, int | None]]:
    return [(f.function, os.path.basename(f.file) if f.file else None, f.line) for f in bt]


def test_three_deep_matches_gdb_bt(debugger: Any, events: EventLog, builder: Builder) -> None:
    program = builder.build("src_basic")
    spec = f"src_basic.c:{line_of('leaf')}"
    bt, _ = gdb_stack(program, spec)
    stop, trace = engine_stack(debugger, events, program, spec)
    want = up_to_main(bt)
    assert [f.function for f in want] == ["leaf", "middle", "top", "main"]
    assert names_and_lines(trace[: len(want)]) == gdb_names_and_lines(want)
    # Caller frames: the return address, as gdb prints it.
    assert [f.pc for f in trace[1 : len(want)]] == [f.pc for f in want[1:]]
    assert [f.level for f in trace] == list(range(len(trace)))
    assert trace[0].pc == stop.address
    cfas = [f.cfa for f in trace[: len(want)]]
    assert all(c is not None for c in cfas) and cfas == sorted(cfas)  # type: ignore[type-var]
    assert all(f.module and f.module.endswith("src_basic") for f in trace[: len(want)])


def test_recursion_matches_gdb_bt(debugger: Any, events: EventLog, builder: Builder) -> None:
    program = builder.build("src_basic")
    spec = f"src_basic.c:{line_of('fact_base')}"
    bt, _ = gdb_stack(program, spec)
    _, trace = engine_stack(debugger, events, program, spec)
    want = up_to_main(bt)
    assert [f.function for f in want] == ["factorial"] * 5 + ["main"]
    assert names_and_lines(trace[: len(want)]) == gdb_names_and_lines(want)
    assert [f.pc for f in trace[1 : len(want)]] == [f.pc for f in want[1:]]
    assert len({f.cfa for f in trace[:5]}) == 5  # five distinct activations


def test_paging_with_start_and_count(debugger: Any, events: EventLog, builder: Builder) -> None:
    program = builder.build("src_basic")
    stop, full = engine_stack(debugger, events, program, f"src_basic.c:{line_of('fact_base')}")
    tid = stop.thread_id
    assert len(full) >= 6
    assert debugger.stack_trace(tid, 0, 2) == full[:2]
    assert debugger.stack_trace(tid, 2, 3) == full[2:5]
    assert debugger.stack_trace(tid, 4) == full[4:]
    assert debugger.stack_trace(tid, len(full) - 1, 10) == full[-1:]
    assert debugger.stack_trace(tid, len(full), 5) == []
    assert [f.level for f in debugger.stack_trace(tid, 3, 2)] == [3, 4]


def _physical(bt_frames: list[GdbFrame]) -> list[Any]:
    return gdb_groups(bt_frames)


def test_comparator_called_from_libc_unwinds_to_main(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("src_basic")
    spec = f"src_basic.c:{line_of('compare')}"
    _, gdb_frames = gdb_stack(program, spec)
    groups = _physical(gdb_frames)
    _, trace = engine_stack(debugger, events, program, spec)
    assert trace[0].function == "compare_ints"
    assert trace[0].source is not None and trace[0].source.line == line_of("compare")
    [main_level] = [f.level for f in trace if f.function == "main"][:1]
    libc = trace[1:main_level]
    assert libc, "no frame between the comparator and main"
    assert all(f.module and "libc" in os.path.basename(f.module) for f in libc)
    # Grouped by physical frame (inlined-call frames join the next real one), same pcs.
    ours = engine_groups(trace[: main_level + 1])
    assert [g.pc for g in ours] == [g.pc for g in groups]
    main = trace[main_level]
    assert main.source is not None
    assert (os.path.basename(main.source.path), main.source.line) == groups[-1].positions[0]
    for group, record in zip(groups, ours, strict=False):
        if group.positions:  # gdb knows a line (libc6-dbg installed): the engine agrees
            assert set(record.positions) & set(group.positions), (group, record)
        else:  # no line info for libc here: the engine shows no source either
            assert not record.positions


def test_libc_frames_are_named_like_gdb(debugger: Any, events: EventLog, builder: Builder) -> None:
    """gdb names static libc functions (msort_with_tmp) from the debug info."""
    program = builder.build("src_basic")
    spec = f"src_basic.c:{line_of('compare')}"
    _, gdb_frames = gdb_stack(program, spec)
    groups = _physical(gdb_frames)
    _, trace = engine_stack(debugger, events, program, spec)
    names = [g.functions for g in engine_groups(trace)[: len(groups)]]
    expected = [g.functions for g in groups]
    for ours, choices in zip(names, expected, strict=False):  # by physical frame
        assert {normalize_function(n) for n in ours} & {normalize_function(c) for c in choices}, (
            f"engine frames {names}, gdb frames {expected}"
        )


def test_signal_handler_frame_shows_the_trampoline(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("src_basic")
    spec = f"src_basic.c:{line_of('handler')}"
    bt, gdb_frames = gdb_stack(program, spec, quiet=["SIGUSR1"])
    groups = _physical(gdb_frames)
    _, trace = engine_stack(debugger, events, program, spec, quiet=[signal.SIGUSR1])
    assert bt[1].signal_handler and groups[1].signal_trampoline
    assert trace[0].function == "on_signal" and not trace[0].signal_trampoline
    assert trace[1].signal_trampoline
    assert [f.signal_trampoline for f in trace[: len(groups)]] == [
        g.signal_trampoline for g in groups
    ]
    main = [f for f in trace if f.function == "main"]
    assert main and main[0].source is not None
    assert (os.path.basename(main[0].source.path), main[0].source.line) == groups[-1].positions[0]
    untailed = [f for f in trace if not f.tail_call]  # as gdb_groups drops gdb's tail-call frames
    assert [f.pc for f in untailed[2 : len(groups)]] == [g.pc for g in groups[2:]]


@pytest.fixture(scope="module")
def more(builder: Builder) -> MoreBuilder:
    return MoreBuilder(builder.cache_dir)


def test_cpp_frames_are_named_like_gdb(debugger: Any, events: EventLog, more: MoreBuilder) -> None:
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    program = more.build_cpp("src_cpp")
    bt, _ = gdb_stack(program, "ns::twice<double>")
    _, trace = engine_stack(debugger, events, program, "ns::twice<double>")
    want = up_to_main(bt)
    assert [f.function for f in want] == ["ns::twice<double>", "main"]
    assert names_and_lines(trace[: len(want)]) == gdb_names_and_lines(want)


def test_rust_frames_are_named_like_gdb(debugger: Any, events: EventLog, more: MoreBuilder) -> None:
    if find_rustc() is None:
        pytest.skip("rustc not installed")
    program = more.build_rust("src_rust")
    spec = "src_rust::module::function"
    bt, _ = gdb_stack(program, spec, hits=2)
    _, trace = engine_stack(debugger, events, program, spec, hits=2)
    want = bt  # gdb ends a Rust backtrace at the program's main (src_rust::main)
    assert [f.function for f in want] == [
        "src_rust::module::function",
        "src_rust::accumulate",
        "src_rust::main",
    ]
    assert names_and_lines(trace[: len(want)]) == gdb_names_and_lines(want)
    assert [f.pc for f in trace[1 : len(want)]] == [f.pc for f in want[1:]]
    assert marker_line(PROGRAMS_DIR / "src_rust.rs", "rust_loop") == want[1].line
