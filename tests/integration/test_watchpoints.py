"""Hardware watchpoints through the debug registers."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.model import WatchKind
from aliceserver.errors import TargetError
from tests.support.build import Builder
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(60)


def le(value: int, size: int) -> bytes:
    return value.to_bytes(size, "little")


def test_write_watchpoint_old_and_new(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("watch"))
    addr = debugger.lookup_symbol("global_counter")
    wp = debugger.insert_watchpoint(addr, 4, WatchKind.WRITE)
    assert (wp.address, wp.size, wp.kind, wp.value) == (addr, 4, WatchKind.WRITE, le(0, 4))
    main = debugger.lookup_symbol("main")
    for n in (1, 2):
        stop = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
        assert stop.thread_id == info.pid
        assert (stop.watch_old, stop.watch_new) == (le(n - 1, 4), le(n, 4))
        assert debugger.read_memory(addr, 4) == le(n, 4)
        location = debugger.lookup_address(debugger.read_registers(info.pid)["rip"])
        assert location.name == "main" and location.address - location.offset == main
    [listed] = debugger.watchpoints()
    assert listed.id == wp.id and listed.hit_count == 2
    debugger.remove_watchpoint(wp.id)
    assert debugger.watchpoints() == []
    assert continue_to_exit(debugger, events).code == 0
    assert "counter=5 u8=5 u16=10 u64=15 sink=77\n" in events.output()


def test_four_sizes_and_fifth_refused(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("watch"))
    specs = [("global_counter", 4, 1), ("g_u8", 1, 1), ("g_u16", 2, 2), ("g_u64", 8, 3)]
    ids = [
        debugger.insert_watchpoint(debugger.lookup_symbol(name), size, WatchKind.WRITE).id
        for name, size, _ in specs
    ]
    with pytest.raises(TargetError):
        debugger.insert_watchpoint(debugger.lookup_symbol("g_sink"), 4, WatchKind.WRITE)
    assert sorted(w.id for w in debugger.watchpoints()) == sorted(ids)
    # The loop writes them in this order; each of the four still triggers.
    for _name, size, new in specs:
        stop = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
        assert (stop.watch_old, stop.watch_new) == (le(0, size), le(new, size)), _name
    for wp_id in ids:
        debugger.remove_watchpoint(wp_id)
    assert continue_to_exit(debugger, events).code == 0
    assert "counter=5 u8=5 u16=10 u64=15 sink=77\n" in events.output()


def test_read_write_watchpoint_sees_reads(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("watch"))
    wp = debugger.insert_watchpoint(debugger.lookup_symbol("g_read_me"), 4, WatchKind.READ_WRITE)
    stop = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
    assert stop.watch_old == stop.watch_new == le(77, 4)
    debugger.remove_watchpoint(wp.id)
    assert continue_to_exit(debugger, events).code == 0


def test_watchpoint_slots_freed_on_remove(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("watch"))
    addr = debugger.lookup_symbol("global_counter")
    for _ in range(6):  # more than four insert/remove cycles
        debugger.remove_watchpoint(debugger.insert_watchpoint(addr, 4, WatchKind.WRITE).id)
    wp = debugger.insert_watchpoint(addr, 4, WatchKind.WRITE)
    stop = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
    assert stop.watch_new == le(1, 4)
    debugger.remove_watchpoint(wp.id)
    assert continue_to_exit(debugger, events).code == 0


def test_watchpoint_applies_to_threads_created_later(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    """The debug registers are per thread: threads started after the insertion are watched too."""
    info = launch(debugger, builder.build("serial_threads"))
    wp = debugger.insert_watchpoint(debugger.lookup_symbol("global_counter"), 4, WatchKind.WRITE)
    writers: list[int] = []
    for n in range(1, 9):  # eight threads, one after another, each writes once
        stop = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
        assert (stop.watch_old, stop.watch_new) == (le(n - 1, 4), le(n, 4))
        writers.append(stop.thread_id)
    assert len(set(writers)) == 8 and info.pid not in writers, writers
    debugger.remove_watchpoint(wp.id)
    assert continue_to_exit(debugger, events).code == 0
    assert "counter=8\n" in events.output()
