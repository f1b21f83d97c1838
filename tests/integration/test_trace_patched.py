"""Calls recorded by jump patches (patched_calltrace.py, tracing/drain.py) on real programs:
the rows are those of the trap path (calltrace.py) on the same program but for timings;
threads, a full ring, a ret no patch can serve, fork and exec, and removal while the
program runs, which puts the original bytes back."""

from __future__ import annotations

import queue
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import CatchKind
from aliceserver.debuggers.ptrace.patches.trace_rings import RingLayout
from aliceserver.tracing import QueryFilters, Tracer, TraceStore, query
from aliceserver.tracing.query import MAX_LIMIT, TraceEvent
from tests.support.build import PROGRAMS_DIR, Builder
from tests.support.session import launch

pytestmark = pytest.mark.timeout(120)

FUNCTIONS = ["fib", "scale", "mix", "eight", "clamp", "work"]


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("trace_patched")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TraceStore]:
    trace = TraceStore("test", str(tmp_path))
    yield trace
    trace.close()


def start(debugger: Any, program: Path, args: tuple[str, ...] = ()) -> Any:
    """Launched and stopped at main: a thread there can run the patch area's system calls."""
    feed = debugger.subscribe()
    launch(debugger, program, args)
    debugger.insert_breakpoint(debugger.lookup_symbol("main"), temporary=True)
    debugger.resume()
    while not isinstance(feed.get(timeout=30), Stopped):
        pass
    return feed


def run_to_exit(debugger: Any, feed: Subscription, tracer: Tracer) -> Exited:
    debugger.resume()
    while True:
        try:
            event = feed.get(timeout=60)
        except queue.Empty:
            raise AssertionError("the program did not exit") from None
        tracer.observe(event)
        if isinstance(event, Exited):
            return event
        assert not isinstance(event, Stopped), event


def rows(store: TraceStore) -> list[TraceEvent]:
    store.flush()
    return list(query(store, QueryFilters(kinds=("call", "return"), limit=MAX_LIMIT)).events)


def shape(events: list[TraceEvent]) -> dict[int, list[tuple[Any, ...]]]:
    """Each thread's rows without times and ids: parents and pairs as positions."""
    by_thread: dict[int, list[tuple[Any, ...]]] = {}
    position: dict[int, int] = {}
    for event in events:
        mine = by_thread.setdefault(event.thread or 0, [])
        if event.kind == "call":
            position[event.call_id or 0] = len(mine)
        parent = position.get(event.parent_id or -1)
        paired = position.get(event.call_id or 0)
        mine.append(
            (
                event.kind,
                event.function,
                event.depth,
                event.arguments,
                event.return_value,
                parent,
                paired,
            )
        )
    return by_thread


def traced_run(debugger: Any, program: Path, store: TraceStore, patches: bool, args: tuple[str, ...] = (),
               **options: Any) -> tuple[Tracer, Exited]:  # fmt: skip
    feed = start(debugger, program, args)
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None, patches=patches)
    change = tracer.add(FUNCTIONS)
    assert sorted(change.added) == sorted(FUNCTIONS), change
    return tracer, run_to_exit(debugger, feed, tracer)


def test_rows_are_the_trap_paths(
    debugger: Any, program: Path, store: TraceStore, tmp_path: Path
) -> None:
    tracer, exited = traced_run(debugger, program, store, patches=True)
    assert exited.code == 0
    how = {f.name: f.how for f in tracer.status().functions}
    assert all(
        how[name].startswith("patched") for name in ("fib", "scale", "mix", "eight", "work")
    ), how
    assert how["clamp"].startswith("patched; returns trapped: ret at "), how["clamp"]
    assert "are jumped into" in how["clamp"]
    patched = rows(store)
    fib_calls = [e for e in patched if e.kind == "call" and e.function == "fib"]
    assert len(fib_calls) == 25 and max(e.depth or 0 for e in fib_calls) == 5
    assert [e.arguments for e in patched if e.function == "eight" and e.kind == "call"] == [
        (
            ("a", "1"),
            ("b", "2"),
            ("c", "3"),
            ("d", "4"),
            ("e", "5"),
            ("f", "6"),
            ("g", "7"),
            ("h", "8"),
        )
    ]
    debugger.close()

    from aliceserver.debuggers.ptrace.engine import PtraceDebugger

    other = PtraceDebugger()
    trapped_store = TraceStore("traps", str(tmp_path))
    try:
        trap_tracer, _ = traced_run(other, program, trapped_store, patches=False)
        assert all(f.how.startswith("trapped") for f in trap_tracer.status().functions)
        trapped = list(shape(rows(trapped_store)).values())
        assert list(shape(patched).values()) == trapped  # one thread (two pids)
    finally:
        other.close()
        trapped_store.close()


def test_four_threads(debugger: Any, program: Path, store: TraceStore, tmp_path: Path) -> None:
    tracer, exited = traced_run(debugger, program, store, patches=True, args=("threads",))
    assert exited.code == 0
    work = next(f for f in tracer.status().functions if f.name == "work")
    assert (work.how, work.calls, work.recorded, work.overflow) == ("patched", 800, 800, 0)
    by_thread = shape(rows(store))
    assert len(by_thread) == 4 and all(len(seq) == 400 for seq in by_thread.values())
    for seq in by_thread.values():
        ids = {int(dict(row[3])["id"]) for row in seq if row[0] == "call"}
        assert len(ids) == 1  # one worker's calls per thread
        (worker,) = ids
        values = [row[4] for row in seq if row[0] == "return"]
        assert values == [str(worker * 1000 + i) for i in range(200)]
    debugger.close()

    from aliceserver.debuggers.ptrace.engine import PtraceDebugger

    other = PtraceDebugger()
    trapped_store = TraceStore("traps", str(tmp_path))
    try:
        traced_run(other, program, trapped_store, patches=False, args=("threads",))
        assert sorted(shape(rows(trapped_store)).values()) == sorted(by_thread.values())
    finally:
        other.close()
        trapped_store.close()


def test_a_full_ring_counts_overflow(debugger: Any, program: Path, store: TraceStore) -> None:
    debugger.call_recorder.layout = RingLayout(rings=1, capacity=64)
    feed = start(debugger, program, ("threads",))
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None)
    tracer.add(["work"])
    run_to_exit(debugger, feed, tracer)
    work = tracer.status().functions[0]
    assert work.how == "patched" and work.calls == 800
    assert work.overflow > 0 and work.recorded < 800  # three threads had no ring, the ring filled
    recorded = [e for e in rows(store) if e.kind == "call"]
    assert len(recorded) == work.recorded


def program_bytes(debugger: Any, address: int, size: int) -> bytes:
    """The program's memory as it is, no debugger change masked."""
    with open(f"/proc/{debugger.process.pid}/mem", "rb", buffering=0) as memory:
        memory.seek(address)
        return memory.read(size)


def test_removed_while_running_restores_the_bytes(
    debugger: Any, program: Path, store: TraceStore
) -> None:
    feed = start(debugger, program, ("spin",))
    address = debugger.lookup_symbol("work")
    original = program_bytes(debugger, address, 32)
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR))  # sampled when the store lags
    tracer.add(["work"])
    assert program_bytes(debugger, address, 1) == b"\xe9"  # the jump to the trampoline
    assert debugger.read_memory(address, 32) == original  # reads show the original bytes
    debugger.resume()
    deadline = time.monotonic() + 20
    while tracer.status().functions[0].calls < 1000:
        tracer.drain()
        assert time.monotonic() < deadline, "no calls recorded while the program runs"
        time.sleep(0.01)
    tracer.remove(["work"])  # while it runs
    assert program_bytes(debugger, address, 32) == original
    calls_then = len(rows(store))
    time.sleep(0.05)
    tracer.drain()
    assert len(rows(store)) == calls_then  # nothing recorded any more
    debugger.interrupt()
    while not isinstance(feed.get(timeout=30), Stopped):
        pass
    work = [e for e in rows(store) if e.function == "work"]
    calls = [e for e in work if e.kind == "call"]
    returns = {e.call_id: e.return_value for e in work if e.kind == "return"}
    assert len(calls) - len(returns) in (0, 1)  # at most the call it was in when removed
    assert all(
        returns[c.call_id] == str(1000 + int(dict(c.arguments or ())["i"])) for c in calls[:-1]
    )


def test_fork_and_exec(debugger: Any, program: Path, store: TraceStore) -> None:
    tracer, exited = traced_run(debugger, program, store, patches=True, args=("fork",))
    assert exited.code == 0  # the child ran the original code: no trampoline, no ring of ours
    work = [e for e in rows(store) if e.kind == "call"]
    assert [e.arguments for e in work] == [(("id", "8"), ("i", str(i))) for i in range(3)]
    debugger.close()


def test_exec(debugger: Any, program: Path, store: TraceStore) -> None:
    tracer, exited = traced_run(debugger, program, store, patches=True, args=("exec",))
    assert exited.code == 0  # the new image runs its plain calls
    calls = [e for e in rows(store) if e.kind == "call" and e.function == "work"]
    assert calls[0].arguments == (("id", "9"), ("i", "1"))


def test_added_at_the_first_stop(debugger: Any, program: Path, store: TraceStore) -> None:
    """At the exec stop the thread is still inside execve: it is taken to the call's exit
    to run the patch area's system calls, and the function is patched at once (no call
    missed, the program's start untouched)."""
    feed = debugger.subscribe()
    launch(debugger, program, ("threads",))
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None)
    tracer.add(["work"])
    assert tracer.status().functions[0].how == "patched"
    run_to_exit(debugger, feed, tracer)
    work = tracer.status().functions[0]
    assert (work.how, work.calls, work.recorded) == ("patched", 800, 800)
    assert sum(e.kind == "return" for e in rows(store)) == 800


def test_patched_at_the_first_stop_then_removed(debugger: Any, program: Path, store: TraceStore) -> None:
    """Patched at the exec stop, then removed at a later stop: the original bytes come
    back (the breakpoints' patches, first met at the resume, leave the trace's alone)."""
    feed = debugger.subscribe()
    launch(debugger, program)
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None)
    tracer.add(["fib"])
    original = debugger.read_memory(debugger.lookup_symbol("fib"), 16)
    debugger.insert_breakpoint(debugger.lookup_symbol("scale"), temporary=True)
    debugger.resume()
    while not isinstance(event := feed.get(timeout=30), Stopped):
        tracer.observe(event)
    tracer.observe(event)
    tracer.remove(["fib"])
    pid = debugger.process.pid
    with open(f"/proc/{pid}/mem", "rb") as memory:
        memory.seek(debugger.lookup_symbol("fib"))
        assert memory.read(16) == original
    assert run_to_exit(debugger, feed, tracer).code == 0
    assert sum(e.kind == "return" and e.function == "fib" for e in rows(store)) == 25


def test_added_at_a_catch_syscall_entry_of_exec(debugger: Any, program: Path, store: TraceStore) -> None:
    """A thread stopped at execve's entry (catch syscall) is not borrowed: taking it to the
    call's exit would run the exec. The old image's function stays on traps for now."""
    feed = start(debugger, program, ("exec",))
    debugger.set_catch_events(syscalls=frozenset({59}), signals=frozenset(), gate=None)
    debugger.resume()
    while not isinstance(stop := feed.get(timeout=30), Stopped):
        pass
    assert stop.reason is StopReason.SYSCALL_ENTRY, stop
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None)
    tracer.add(["work"])
    assert tracer.status().functions[0].how.startswith("trapped until the next stop: no patch area")


def test_added_at_a_caught_exec_keeps_the_caught_return(debugger: Any, program: Path, store: TraceStore) -> None:
    """At an exec's stop (catch exec) while `catch syscall execve` is on, the exit stop the
    injector would take the thread to is the user's: it is left alone, the function stays
    on traps for now, and execve's return is still reported."""
    feed = start(debugger, program, ("exec",))
    debugger.set_catchpoint(CatchKind.EXEC, True)
    debugger.set_catch_events(syscalls=frozenset({59}), signals=frozenset(), gate=None)
    reasons: list[StopReason] = []
    while not reasons or reasons[-1] is not StopReason.EXEC:
        debugger.resume()
        while not isinstance(stop := feed.get(timeout=30), Stopped):
            assert not isinstance(stop, Exited), stop
        reasons.append(stop.reason)
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None)
    tracer.add(["work"])
    assert tracer.status().functions[0].how.startswith("trapped until the next stop")
    debugger.resume()
    while not isinstance(stop := feed.get(timeout=30), Stopped):
        assert not isinstance(stop, Exited), stop
    assert (stop.reason, stop.syscall) == (StopReason.SYSCALL_RETURN, 59)


def test_threads_named_by_the_thread_pointer_in_memory(
    debugger: Any, program: Path, store: TraceStore
) -> None:
    """Where the kernel refuses rdfsbase, the trampoline reads the thread pointer at fs:0."""
    debugger.call_recorder._by_fs_base = False
    tracer, exited = traced_run(debugger, program, store, patches=True, args=("threads",))
    work = next(f for f in tracer.status().functions if f.name == "work")
    assert (exited.code, work.how, work.recorded, work.overflow) == (0, "patched", 800, 0)
    assert sorted(len(seq) for seq in shape(rows(store)).values()) == [400] * 4
