"""A burst of calls recorded by jump patches with the default ring memory: every call is
recorded (none dropped), through the drain's bulk path (drain_bulk.py, call_batch.py) whose
rows are the trap path's but for timings; the ring memory setting is honoured and bad
values are refused as gdb refuses a setting."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aliceserver.adapters.agent import build_tools
from aliceserver.adapters.mcp.server import build_server
from aliceserver.debuggers.events import Exited, Output, Stopped
from aliceserver.engines import ptrace_debugger
from aliceserver.errors import AliceError
from aliceserver.tracing import QueryFilters, Tracer, TraceStore, query
from aliceserver.tracing.call_batch import CallBatch
from aliceserver.tracing.query import MAX_LIMIT
from tests.support.agent_client import AgentClient, run_client
from tests.support.build import PROGRAMS_DIR, Builder
from tests.support.session import launch

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("trace_burst")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TraceStore]:
    trace = TraceStore("test", str(tmp_path))
    yield trace
    trace.close()


def started(debugger: Any, program: Path, calls: int) -> Any:
    feed = debugger.subscribe()
    launch(debugger, program, (str(calls),))
    debugger.insert_breakpoint(debugger.lookup_symbol("main"), temporary=True)
    debugger.resume()
    while not isinstance(feed.get(timeout=30), Stopped):
        pass
    return feed


def run_to_exit(debugger: Any, feed: Any, tracer: Tracer) -> int:
    """The calls the program says it made."""
    debugger.resume()
    printed = ""
    while True:
        try:
            event = feed.get(timeout=120)
        except queue.Empty:
            raise AssertionError("the program did not exit") from None
        tracer.observe(event)
        if isinstance(event, Output) and event.category == "stdout":
            printed += event.text
        if isinstance(event, Exited):
            assert event.code == 0
            return int(printed.split("calls=")[1].split()[0])
        assert not isinstance(event, Stopped), event


def rows(store: TraceStore) -> list[Any]:
    return list(query(store, QueryFilters(kinds=("call", "return"), limit=MAX_LIMIT)).events)


def shape(events: list[Any]) -> list[tuple[Any, ...]]:
    """The rows without times and ids: pairs and parents as positions."""
    position: dict[int, int] = {}
    out: list[tuple[Any, ...]] = []
    for event in events:
        if event.kind == "call":
            position[event.call_id] = len(out)
        out.append((event.kind, event.function, event.depth, event.arguments, event.return_value,
                    position.get(event.parent_id or -1), position.get(event.call_id)))  # fmt: skip
    return out


def count(store: TraceStore, kind: str, function: str) -> int:
    return query(store, QueryFilters(kinds=(kind,), function=function, limit=0)).total


def test_a_million_calls_with_the_default_ring_memory_drop_nothing(
    debugger: Any, program: Path, store: TraceStore
) -> None:
    feed = started(debugger, program, 1_000_000)
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None)
    assert tracer.add(["leaf"]).added == ("leaf",)
    assert tracer.status().ring_memory == (
        "256 MiB: a ring of 128 MiB (the first thread to record), 15 of 4 MiB, 68 MiB of copies"
    )
    made = run_to_exit(debugger, feed, tracer)
    leaf = tracer.status().functions[0]
    assert (leaf.how, leaf.overflow, leaf.calls, leaf.recorded) == ("patched", 0, made, made)
    assert made == 1_000_000
    assert count(store, "call", "leaf") == made and count(store, "return", "leaf") == made


@pytest.mark.parametrize("function", ["leaf", "wide", "tick"])  # text made by SQLite, by Python; none
def test_bulk_rows_are_the_trap_paths(
    debugger: Any, program: Path, store: TraceStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    function: str,
) -> None:  # fmt: skip
    batches: list[int] = []
    insert = CallBatch.insert

    def counted(batch: CallBatch, db: Any, first: int) -> None:
        batches.append(batch.rows)
        insert(batch, db, first)

    monkeypatch.setattr(CallBatch, "insert", counted)
    feed = started(debugger, program, 3000)
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None)
    assert sorted(tracer.add([function, "quiet"]).added) == sorted([function, "quiet"])
    assert run_to_exit(debugger, feed, tracer) == 3000
    assert all(f.how == "patched" for f in tracer.status().functions)
    patched = shape(rows(store))
    assert sum(batches) >= 2 * 2900  # nearly all in bulk (a poll may cut a run)
    first = {"leaf": (("i", "0"), ("u16", "0"), ("s16", "0"), ("u32", "0"), ("p", "0x0")),
             "wide": (("d", "0"), ("c", "97 'a'")), "tick": ()}  # fmt: skip
    assert len(patched) == 6002 and patched[:2] == [
        ("call", function, 0, first[function], None, None, 0),
        ("return", function, 0, None, None if function == "tick" else "0", None, 0),
    ]
    debugger.close()

    from aliceserver.debuggers.ptrace.engine import PtraceDebugger

    other = PtraceDebugger()
    trapped_store = TraceStore("traps", str(tmp_path))
    try:
        feed = started(other, program, 3000)
        trapped = Tracer(other, trapped_store, project_root=str(PROGRAMS_DIR), max_rate=None, patches=False)
        trapped.add([function, "quiet"])
        run_to_exit(other, feed, trapped)
        assert shape(rows(trapped_store)) == patched
    finally:
        other.close()
        trapped_store.close()


def test_the_ring_memory_setting(debugger: Any, program: Path, store: TraceStore) -> None:
    feed = started(debugger, program, 300_000)
    tracer = Tracer(debugger, store, project_root=str(PROGRAMS_DIR), max_rate=None)
    for bad in (0, 1, -5, 4096):
        with pytest.raises(AliceError, match=f"^integer {bad} out of range"):
            tracer.set_ring_memory(bad)
    tracer.set_ring_memory(2)
    memory = "2 MiB: a ring of 1 MiB (the first thread to record), 15 of 64 KiB, 64 KiB of copies"
    assert tracer.status().ring_memory == memory
    tracer.add(["leaf"])
    with pytest.raises(AliceError, match="^Cannot change the trace buffer size while calls are recorded"):
        tracer.set_ring_memory(64)
    made = run_to_exit(debugger, feed, tracer)
    leaf = tracer.status().functions[0]
    assert leaf.calls == made and leaf.overflow > 0  # 600,000 records, 17,408 slots held
    assert count(store, "call", "leaf") == leaf.recorded < made


def test_ring_memory_through_debug_trace(builder: Builder, tmp_path: Path) -> None:
    """debug_trace's ring_memory_mib: refused out of range, else used and shown in status."""
    program = str(builder.build("trace_burst"))
    registry, sessions = build_tools(ptrace_debugger, trace_directory=str(tmp_path))

    async def body(tools: AgentClient) -> None:
        await tools.call("debug_launch", program=program, args=["1000"])
        refused = await tools.fail("BAD_ARGUMENT", "debug_trace", action="add", patterns=["leaf"], ring_memory_mib=1)
        assert "integer 1 out of range" in str(refused)
        added = await tools.call("debug_trace", action="add", patterns=["leaf"], ring_memory_mib=64)
        assert added["traced"] == ["leaf"]
        assert added["ring_memory"].startswith("64 MiB: a ring of 32 MiB (the first thread to record), 15 of 1 MiB")
        assert (await tools.call("debug_continue", timeout=60))["state"] == "exited"
        assert (await tools.call("debug_query", kinds=["call"], function="leaf", limit=1))["total"] == 1000
        await tools.call("debug_stop")

    try:
        run_client(build_server(registry), body)
    finally:
        sessions.close_all()
