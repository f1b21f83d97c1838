"""Threads: listing, names, all-stop, one breakpoint hit by eight threads, thread events."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Stopped, StopReason, ThreadExited, ThreadStarted
from aliceserver.debuggers.model import ThreadState
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = [pytest.mark.timeout(60), pytest.mark.both_backends]

NTHREADS = 8
COND_THREADS = PROGRAMS_DIR / "cond_threads.c"
WORKER_NAMES = {f"worker-{i}" for i in range(NTHREADS)}


def task_state(pid: int, tid: int) -> str:
    text = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
    return text[text.rindex(")") + 2]


@pytest.mark.live_only(reason="thread names and ptrace stop states (/proc): a core records neither, gdb shows no names on one")
def test_threads_listed_named_and_all_stopped(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    prog = builder.build("threads")
    info = launch(debugger, prog)
    addr = debugger.lookup_symbol("worker_hit")
    bp = debugger.insert_breakpoint(addr)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.all_threads and stop.breakpoint_ids == (bp.id,)
    assert stop.thread_id != info.pid
    threads = debugger.threads()
    tids = {t.tid for t in threads}
    assert len(threads) == NTHREADS + 1 == len(tids)
    assert tids == {int(t.name) for t in Path(f"/proc/{info.pid}/task").iterdir()}
    by_tid = {t.tid: t for t in threads}
    assert by_tid[info.pid].name == prog.name[:15]
    assert {t.name for t in threads if t.tid != info.pid} == WORKER_NAMES
    for thread in threads:
        assert thread.state == ThreadState.STOPPED, thread
        assert thread.pc is not None and thread.pc == debugger.read_registers(thread.tid)["rip"]
        assert task_state(info.pid, thread.tid) == "t", (
            f"thread {thread.tid} is not in a ptrace stop"
        )
    assert by_tid[stop.thread_id].pc == addr
    debugger.remove_breakpoint(bp.id)
    assert continue_to_exit(debugger, events).code == 0
    assert "hits=8\n" in events.output()


def test_breakpoint_hit_once_by_each_thread(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("threads"))
    addr = debugger.lookup_symbol("worker_hit")
    bp = debugger.insert_breakpoint(addr)
    hitters: list[int] = []
    indexes: list[int] = []
    for _ in range(NTHREADS):
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        assert stop.breakpoint_ids == (bp.id,) and stop.address == addr and stop.all_threads
        regs = debugger.read_registers(stop.thread_id)
        assert regs["rip"] == addr
        hitters.append(stop.thread_id)
        indexes.append(regs["rdi"] & 0xFFFFFFFF)  # worker_hit(idx)
    assert len(set(hitters)) == NTHREADS and info.pid not in hitters, hitters
    assert sorted(indexes) == list(range(NTHREADS)), indexes
    assert next(b for b in debugger.breakpoints() if b.id == bp.id).hit_count == NTHREADS
    assert continue_to_exit(debugger, events).code == 0  # no ninth stop
    assert "hits=8\n" in events.output()


def test_hit_count_follows_reported_stops(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    """The hit count a client sees at the n-th reported hit is n, even when several threads
    reached the trap together and their stops are reported one after the other."""
    launch(debugger, builder.build("threads"))
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("worker_hit"))
    counts = []
    for _ in range(NTHREADS):
        continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        counts.append(next(b for b in debugger.breakpoints() if b.id == bp.id).hit_count)
    assert counts == list(range(1, NTHREADS + 1))
    assert continue_to_exit(debugger, events).code == 0


def test_thread_events(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("threads"))
    addr = debugger.lookup_symbol("worker_hit")
    bp = debugger.insert_breakpoint(addr)
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    workers = {t.tid for t in debugger.threads()} - {info.pid}
    started = {e.thread_id for e in events.of_type(ThreadStarted)} - {info.pid}
    assert started == workers
    debugger.remove_breakpoint(bp.id)
    assert continue_to_exit(debugger, events).code == 0
    exited = {e.thread_id for e in events.of_type(ThreadExited)}
    assert workers <= exited, f"missing ThreadExited for {workers - exited}"
    assert (
        len([e for e in events.of_type(ThreadStarted) if e.thread_id in workers]) == NTHREADS
    )  # once each
    assert not [e for e in events.of_type(Stopped) if e.reason != StopReason.BREAKPOINT]


def test_step_leaves_other_threads_stopped(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("threads"))
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("worker_hit"))
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    before = {t.tid: t.pc for t in debugger.threads()}
    size = debugger.disassemble(stop.address or 0, 1)[0].size
    debugger.step_instruction(stop.thread_id)
    step = events.wait_for(Stopped)
    assert step.reason == StopReason.STEP and step.thread_id == stop.thread_id
    after = {t.tid: t.pc for t in debugger.threads()}
    assert after.pop(stop.thread_id) == before.pop(stop.thread_id) + size  # type: ignore[operator]
    assert after == before, "other threads moved during a one-thread step"
    for tid in after:
        assert task_state(info.pid, tid) == "t"
    debugger.remove_breakpoint(bp.id)
    assert continue_to_exit(debugger, events).code == 0
    assert "hits=8\n" in events.output()


def test_resume_one_thread_only(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("threads"))
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("worker_hit"))
    first = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    others = {t.tid for t in debugger.threads()} - {first.thread_id}
    mark = events.mark()
    debugger.resume(first.thread_id)  # the others stay stopped
    gone = events.wait_for(ThreadExited, predicate=lambda e: e.thread_id == first.thread_id)
    assert gone.thread_id == first.thread_id
    events.settle(0.3)
    assert not events.since(mark, Stopped), "a thread that was not resumed reported a stop"
    for tid in others:
        assert task_state(info.pid, tid) == "t", f"thread {tid} ran although only one was resumed"
    assert "hits=" not in events.output()
    # Resuming everything delivers the other seven hits.
    for _ in range(NTHREADS - 1):
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        assert stop.thread_id in others
    assert next(b for b in debugger.breakpoints() if b.id == bp.id).hit_count == NTHREADS
    assert continue_to_exit(debugger, events).code == 0
    assert "hits=8\n" in events.output()


def test_threads_hitting_a_false_condition_together_run_to_the_end(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    """Four threads hit one conditional breakpoint together 1,200 times; each hit is
    stepped over with the others held, while their own hits queue. A thread stopped at the
    trap while the others were being stopped keeps an interrupt pending, which stops it
    again before its step over the trap: that step must be taken again, or the trap's byte
    stays out and every other thread stays held (the program never ends)."""
    launch(debugger, builder.build("cond_threads"))
    place = debugger.resolve_location(f"cond_threads.c:{marker_line(COND_THREADS, 'hot')}")
    assert len(place) == 1
    bp = debugger.insert_breakpoint(place[0].address, condition=debugger.expression_condition("idx < 0"))
    assert continue_to_exit(debugger, events, timeout=60).code == 0
    assert "total=1200\n" in events.output()
    assert next(b for b in debugger.breakpoints() if b.id == bp.id).hit_count == 1200
