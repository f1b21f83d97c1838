"""Breakpoint behaviours of issue 3: hit conditions, logpoints, watchpoints on an
expression, and catchpoints for C++ exceptions and Rust panics."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.events import (
    LocationBreakpointChanged,
    Output,
    Progress,
    Stopped,
    StopReason,
)
from aliceserver.debuggers.model import CatchKind, LaunchConfig, WatchKind
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.errors import AliceError
from tests.support.build import Builder
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(120)


def visit_breakpoint(debugger: PtraceDebugger, **policy: str) -> int:
    address = debugger.resolve_location("bp_features.c:9")  # the `return` in visit
    assert address and address[0].function == "visit"
    condition = debugger.breakpoint_condition(**policy)
    return debugger.insert_breakpoint(address[0].address, condition=condition).id


@pytest.mark.parametrize(
    "hit_condition,stops",
    [("3", [2]), ("= 3", [2]), (">= 8", [7, 8, 9]), ("> 8", [8, 9]), ("% 4", [3, 7])],
)
def test_hit_conditions(
    debugger: PtraceDebugger, events: EventLog, builder: Builder, hit_condition: str, stops: list[int]
) -> None:
    launch(debugger, builder.build("bp_features"))
    visit_breakpoint(debugger, hit_condition=hit_condition)
    seen = []
    for _ in stops:
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        seen.append(int(debugger.evaluate("i", stop.thread_id).value))
    assert seen == stops
    assert continue_to_exit(debugger, events).code == 0


def test_hit_condition_counts_only_hits_whose_condition_held(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("bp_features"))
    visit_breakpoint(debugger, condition="i % 2 == 1", hit_condition="2")  # odd i: 1, 3 -> 2nd
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert debugger.evaluate("i", stop.thread_id).value == "3"
    assert continue_to_exit(debugger, events).code == 0


def test_logpoint_prints_and_never_stops(debugger: PtraceDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("bp_features"))
    visit_breakpoint(debugger, log_message="visit {i}: twice is {i * 2} {{literal}}")
    assert continue_to_exit(debugger, events).code == 0
    lines = [e.text for e in events.of_type(Output) if e.category == "console" and e.text.startswith("visit")]
    assert lines == [f"visit {i}: twice is {i * 2} {{literal}}\n" for i in range(10)]


def test_logpoint_with_a_bad_expression_is_refused_at_once(
    debugger: PtraceDebugger, builder: Builder
) -> None:
    launch(debugger, builder.build("bp_features"))
    with pytest.raises(AliceError):
        debugger.breakpoint_condition(log_message="bad {i +}")
    with pytest.raises(AliceError):
        debugger.breakpoint_condition(hit_condition="sometimes")


def test_watch_an_expression(debugger: PtraceDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("bp_features"))
    address = debugger.resolve_location("bp_features.c:17")[0].address
    debugger.insert_breakpoint(address, temporary=True)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    watch = debugger.watch_expression("first.next->value", WatchKind.WRITE, stop.thread_id)
    assert watch.address == debugger.lookup_symbol("second") and watch.size == 4
    hit = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
    assert (hit.watch_old, hit.watch_new) == ((20).to_bytes(4, "little"), (99).to_bytes(4, "little"))
    # The second store writes the same value: like gdb, no stop; the third changes it.
    hit = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
    assert hit.watch_new == (100).to_bytes(4, "little")
    wide = debugger.watch_expression("first", WatchKind.WRITE, stop.thread_id)  # 16 bytes: two registers
    assert wide.size == 16 and not wide.software
    debugger.remove_watchpoint(wide.id)
    assert continue_to_exit(debugger, events).code == 0


CPP = r"""
#include <cstdio>
#include <stdexcept>
__attribute__((noinline)) void fail(int n) { if (n > 1) throw std::runtime_error("boom"); }
int main() {
    try { fail(2); } catch (const std::exception &e) { std::printf("caught %s\n", e.what()); }
    return 0;
}
"""

RUST = r"""
fn check(n: i32) -> i32 { if n > 1 { panic!("too big: {}", n); } n }
fn main() {
    let result = std::panic::catch_unwind(|| check(std::env::args().count() as i32 + 1));
    println!("recovered {}", result.is_err());
}
"""


def build_with(tool: str, source: str, suffix: str, directory: Path, *flags: str) -> Path:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is needed for this test")
    path = directory / f"prog{suffix}"
    path.write_text(source)
    program = directory / "prog"
    subprocess.run([tool, *flags, "-g", "-o", str(program), str(path)], check=True, capture_output=True)
    return program


def test_catch_cplusplus_throw_and_catch(debugger: PtraceDebugger, events: EventLog, tmp_path: Path) -> None:
    program = build_with("g++", CPP, ".cpp", tmp_path, "-O0")
    debugger.launch(LaunchConfig(str(program)))
    debugger.set_catchpoint(CatchKind.THROW, True)  # libstdc++ is not loaded yet: armed later
    debugger.set_catchpoint(CatchKind.CATCH, True)
    thrown = continue_to_stop(debugger, events, StopReason.EXCEPTION)
    assert thrown.description == "C++ exception thrown"
    names = [frame.function for frame in debugger.stack_trace(thrown.thread_id)]
    assert "fail" in names and "main" in names[names.index("fail") :]  # named as gdb's bt does
    caught = continue_to_stop(debugger, events, StopReason.EXCEPTION)
    assert caught.description == "C++ exception caught"
    assert continue_to_exit(debugger, events).code == 0
    assert "caught boom" in events.output()


def test_catch_rust_panic(debugger: PtraceDebugger, events: EventLog, tmp_path: Path) -> None:
    program = build_with("rustc", RUST, ".rs", tmp_path)
    debugger.launch(LaunchConfig(str(program)))
    debugger.set_catchpoint(CatchKind.PANIC, True)
    stop = continue_to_stop(debugger, events, StopReason.EXCEPTION)
    assert stop.description == "Rust panic"
    names = [frame.function or "" for frame in debugger.stack_trace(stop.thread_id)]
    assert any(name.endswith("check") for name in names), names
    debugger.set_catchpoint(CatchKind.PANIC, False)
    assert continue_to_exit(debugger, events).code == 0
    assert "recovered true" in events.output()


def test_pending_breakpoints_bind_when_the_library_loads(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    library = builder.build("lib_plugin", extra=["-shared", "-fPIC"])
    launch(debugger, builder.build("dlopen_main", extra=["-ldl"]), [str(library)])
    by_name = debugger.insert_location_breakpoint("plugin_work")
    by_line = debugger.insert_location_breakpoint("lib_plugin.c:3", condition=debugger.expression_condition("x == 20"))
    assert by_name.pending and by_line.pending  # the library is not loaded yet
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    changed = {e.breakpoint.id: e.breakpoint for e in events.of_type(LocationBreakpointChanged)}
    assert set(changed) == {by_name.id, by_line.id}
    bound = {info.id: info for info in debugger.location_breakpoints()}
    assert not bound[by_name.id].pending and bound[by_name.id].locations[0].module == str(library)
    assert set(stop.breakpoint_ids) <= set(bound[by_name.id].breakpoint_ids + bound[by_line.id].breakpoint_ids)
    assert debugger.source_position(stop.address or 0) is not None
    assert debugger.evaluate("x", stop.thread_id).value == "20"
    debugger.remove_location_breakpoint(by_name.id)
    debugger.remove_location_breakpoint(by_line.id)
    assert debugger.location_breakpoints() == [] and debugger.breakpoints() == []
    assert continue_to_exit(debugger, events).code == 0
    assert "plugin said 42" in events.output()


def test_location_breakpoint_that_never_resolves_stays_pending(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("bp_features"))
    pending = debugger.insert_location_breakpoint("no_such_function_anywhere")
    assert pending.pending and pending.breakpoint_ids == ()
    assert continue_to_exit(debugger, events).code == 0


def test_run_until_a_location_or_the_frame_return(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("bp_features"))
    debugger.insert_breakpoint(debugger.resolve_location("bp_features.c:9")[0].address, temporary=True)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)  # in visit(0)
    # The location is in main, an outer frame: visit returns first.
    debugger.run_until(stop.thread_id, "bp_features.c:17")
    returned = events.wait_for(Stopped)
    assert returned.description == "the frame returned"
    assert debugger.stack_trace(returned.thread_id, 0, 1)[0].function == "main"
    # Now in main: the loop runs to its end and the location is reached.
    debugger.run_until(returned.thread_id, "bp_features.c:17")
    reached = events.wait_for(Stopped, predicate=lambda s: s.address != returned.address)
    assert reached.reason is StopReason.STEP and reached.description == "location reached"
    assert debugger.source_position(reached.address or 0).line == 17  # type: ignore[union-attr]
    assert debugger.evaluate("total", reached.thread_id).value == "90"
    with pytest.raises(AliceError):
        debugger.run_until(reached.thread_id, "no_such_place_at_all")
    assert continue_to_exit(debugger, events).code == 0


def test_progress_while_an_index_is_built(
    builder: Builder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # an empty index cache
    program = builder.build("bp_features")
    for cached in (False, True):
        debugger = PtraceDebugger()
        events = debugger.subscribe()
        try:
            debugger.launch(LaunchConfig(str(program)))
            assert debugger.resolve_location("visit")
            seen = []
            while not events.empty():
                event = events.get_nowait()
                if isinstance(event, Progress) and event.ident == f"symbols:{program}":
                    seen.append(event)
        finally:
            debugger.close()
        if cached:
            assert seen == []  # read from the cache: nothing to watch
        else:
            assert seen and seen[0].percent == 0.0 and not seen[0].done
            assert seen[-1].done and seen[-1].percent == 100.0
            assert seen[0].title == "Loading debug info of bp_features"
