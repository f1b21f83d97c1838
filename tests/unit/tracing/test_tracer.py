"""Tracer over FakeDebugger: add/remove/status, call and return rows with parents, hot
functions sampled (and said so), output, crash and exit events."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path

import pytest

from aliceserver.debuggers import events as ev
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import FunctionSymbol, LaunchConfig, SourcePosition
from aliceserver.errors import ProtocolError
from aliceserver.tracing import QueryFilters, Tracer, TraceStore, query
from aliceserver.tracing.tracer import _Traced
from tests.support.fake_debugger import FakeDebugger
from tests.support.fake_program import FakeInstruction, FakeProgram

i = FakeInstruction
# main calls helper twice; helper calls leaf once.
PROGRAM = FakeProgram(instructions=(
    i(function="main"), i(call="helper"), i(call="helper"), i(ret=True),
    i(function="helper"), i(output="in helper\n"), i(call="leaf"), i(ret=True),
    i(function="leaf"), i(ret=True),
))  # fmt: skip


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TraceStore]:
    trace = TraceStore("fake", str(tmp_path))
    yield trace
    trace.close()


def run(debugger: FakeDebugger, events: Subscription, tracer: Tracer) -> None:
    debugger.resume()
    while True:
        event = events.get(timeout=5)
        tracer.observe(event)
        if isinstance(event, ev.Exited):
            return


def test_calls_returns_parents_and_status(store: TraceStore) -> None:
    debugger = FakeDebugger(PROGRAM)
    events = debugger.subscribe()
    debugger.launch(LaunchConfig("fake"))
    tracer = Tracer(debugger, store)
    assert sorted(tracer.add(["helper", "leaf"]).added) == ["helper", "leaf"]
    run(debugger, events, tracer)
    calls = query(store, QueryFilters(kinds=("call",))).events
    assert [c.function for c in calls] == ["helper", "leaf", "helper", "leaf"]
    assert calls[1].parent_id == calls[0].call_id and calls[1].depth == 1
    assert calls[0].parent_id is None and calls[2].parent_id is None
    returns = query(store, QueryFilters(kinds=("return",))).events
    assert [r.function for r in returns] == ["leaf", "helper", "leaf", "helper"]
    assert {r.call_id for r in returns} == {c.call_id for c in calls}
    outputs = query(store, QueryFilters(kinds=("stdout",))).events
    assert [o.text for o in outputs] == ["in helper\n"] * 2
    assert [e.text for e in query(store, QueryFilters(kinds=("exit",))).events] == ["exited with code 0"]
    status = tracer.status()
    assert [(f.name, f.calls, f.recorded, f.sampled) for f in status.functions] == [
        ("helper", 2, 2, False), ("leaf", 2, 2, False)
    ]
    assert status.summary() == "2 functions traced, 4 calls, 4 recorded"


def test_remove_and_unknown_patterns(store: TraceStore) -> None:
    debugger = FakeDebugger(PROGRAM)
    events = debugger.subscribe()
    debugger.launch(LaunchConfig("fake"))
    tracer = Tracer(debugger, store)
    tracer.add(["*"])
    assert tracer.status().patterns == ("*",)
    change = tracer.remove(["leaf", "nope"])
    assert change.added == ("leaf",) and change.unmatched == ("nope",)
    assert [f.name for f in tracer.status().functions] == ["helper", "main"]
    run(debugger, events, tracer)
    assert {c.function for c in query(store, QueryFilters(kinds=("call",))).events} == {"helper"}
    with pytest.raises(ProtocolError):
        tracer.add([])


def test_hot_functions_are_sampled_and_the_status_says_so(store: TraceStore) -> None:
    tracer = Tracer(FakeDebugger(PROGRAM), store, max_rate=100)
    traced = _Traced(FunctionSymbol("hot", 1, 1, SourcePosition("/a.c", 1), "m"))
    now = 0
    recorded = sum(tracer._sample(traced, now + n * 1000) for n in range(1000))  # 1000 calls in 1 ms
    assert traced.calls == 1000 and traced.sample_every == 10
    assert recorded == 100 + 90  # the budget, then one in ten
    later = 2_000_000_000  # the next window sizes the sampling by the rate of this one
    tracer._sample(traced, later)
    assert traced.sample_every == 5  # 1000 calls over that window of 2 s: 500/s
    quiet = 10_000_000_000
    tracer._sample(traced, quiet)
    tracer._sample(traced, quiet + 2_000_000_000)
    assert traced.sample_every == 1


def test_a_crash_is_recorded_with_its_backtrace(store: TraceStore) -> None:
    program = FakeProgram(instructions=(i(function="main"), i(call="boom"), i(ret=True),
                                        i(function="boom"), i(fault=True), i(ret=True)))  # fmt: skip
    debugger = FakeDebugger(program)
    events = debugger.subscribe()
    debugger.launch(LaunchConfig("fake"))
    tracer = Tracer(debugger, store)
    tracer.add(["boom"])
    debugger.resume()
    while True:
        try:
            event = events.get(timeout=5)
        except queue.Empty:
            raise AssertionError("no crash") from None
        tracer.observe(event)
        if isinstance(event, ev.Stopped):
            break
    (crash,) = query(store, QueryFilters(kinds=("crash",))).events
    assert crash.text is not None and crash.text.startswith("SIGSEGV")
    assert crash.data["fault_address"] == 0 and crash.data["backtrace"][0]["function"] == "boom"
    (call,) = query(store, QueryFilters(kinds=("call",))).events
    assert crash.parent_id == call.call_id
    debugger.close()
