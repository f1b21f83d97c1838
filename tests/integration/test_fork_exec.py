"""fork (stay with the parent, the child runs free) and exec (follow the new image)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Stopped, StopReason
from tests.support.build import Builder
from tests.support.elf import load_base, symbol_value
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = [pytest.mark.timeout(60), pytest.mark.both_backends]


def test_fork_parent_stops_child_runs_free(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("fork"))
    addr = debugger.lookup_symbol("forked_func")
    bp = debugger.insert_breakpoint(addr)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert (stop.thread_id, stop.breakpoint_ids, stop.address) == (info.pid, (bp.id,), addr)
    assert continue_to_exit(debugger, events).code == 0  # no stop in the child
    out = events.output()
    assert "parent in forked_func\n" in out
    assert "child in forked_func\n" in out and "child done\n" in out
    assert "child exited 7\n" in out, f"the child did not end normally: {out!r}"
    assert len(events.of_type(Stopped)) == 1
    assert next(b for b in debugger.breakpoints() if b.id == bp.id).hit_count == 1


def test_exec_follows_new_image(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    target = builder.build("exec_target")
    info = launch(debugger, builder.build("exec"), [str(target), "hello"])
    debugger.insert_breakpoint(debugger.lookup_symbol("before_exec"))
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    exited = continue_to_exit(debugger, events)
    assert (exited.pid, exited.code) == (info.pid, 42)
    out = events.output()
    assert (
        "before exec\n" in out
        and "exec target running hello\n" in out
        and "in target_func\n" in out
    )


def test_exec_reloads_symbols(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    target = builder.build("exec_target")
    info = launch(debugger, builder.build("exec"), [str(target), "raise"])
    stop = continue_to_stop(debugger, events, StopReason.SIGNAL)  # SIGUSR1 inside the new image
    assert stop.signal_name == "SIGUSR1"
    assert Path(f"/proc/{info.pid}/exe").resolve() == target.resolve()
    expected = load_base(info.pid, target) + symbol_value(target, "target_func")
    assert debugger.lookup_symbol("target_func") == expected
    [main_module] = [m for m in debugger.modules() if m.is_main]
    assert Path(main_module.path).name == target.name
    bp = debugger.insert_breakpoint(expected)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (bp.id,) and stop.address == expected
    exited = continue_to_exit(debugger, events)
    assert (exited.pid, exited.code) == (info.pid, 42)
    assert "in target_func\n" in events.output()
