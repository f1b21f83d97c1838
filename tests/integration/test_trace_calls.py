"""Tracing a real program: the recorded calls match what tests/programs/trace_calls.c did
(counts, arguments, return values, parent calls, recursion, threads), its output and a
crash are events, and patterns can be added and removed while the session lives."""

from __future__ import annotations

import queue
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.tracing import QueryFilters, Tracer, TraceStore, query
from aliceserver.tracing.query import TraceEvent
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.session import launch

pytestmark = pytest.mark.timeout(120)

SOURCE = PROGRAMS_DIR / "trace_calls.c"


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("trace_calls")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TraceStore]:
    trace = TraceStore("test", str(tmp_path))
    yield trace
    trace.close()


@pytest.fixture
def feed(debugger: Any) -> Subscription:
    """The debugger's events, subscribed before the test launches."""
    return debugger.subscribe()


def tracer_for(debugger: Any, store: TraceStore, **options: Any) -> Tracer:
    return Tracer(debugger, store, project_root=str(PROGRAMS_DIR), **options)


def run_until(debugger: Any, feed: Subscription, tracer: Tracer, stop: type = Exited, timeout: float = 30) -> Any:
    """Resume and feed the tracer every event until a `stop` event (Exited or Stopped)."""
    debugger.resume()
    while True:
        try:
            event = feed.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no {stop.__name__} within {timeout} s") from None
        tracer.observe(event)
        if isinstance(event, (Exited, Stopped)):
            assert isinstance(event, stop), event
            return event


def events(store: TraceStore, **filters: Any) -> list[TraceEvent]:
    return list(query(store, QueryFilters(limit=1000, **filters)).events)


def test_calls_arguments_and_return_values(debugger: Any, feed: Subscription, program: Path, store: TraceStore) -> None:
    launch(debugger, program)
    tracer = tracer_for(debugger, store)
    change = tracer.add(["square", "sum_point", "label", "note", "nothing_*"])
    assert sorted(change.added) == ["label", "note", "square", "sum_point"]
    assert change.unmatched == ("nothing_*",)
    exited = run_until(debugger, feed, tracer)
    assert exited.code == 0

    calls = events(store, kinds=("call",), function="square")
    returns = events(store, kinds=("return",), function="square")
    assert len(calls) == len(returns) == 5 + 1 + 6  # main's loop, outer, two workers
    returned = {r.call_id: r.return_value for r in returns}
    assert set(returned) == {c.call_id for c in calls}
    main_thread = calls[0].thread
    in_main = [(c.arguments, returned[c.call_id]) for c in calls if c.thread == main_thread]
    assert in_main[:5] == [((("n", str(i)),), str(i * i)) for i in range(1, 6)]
    assert all(r.duration_ms is not None and r.duration_ms >= 0 for r in returns)

    (point,) = events(store, kinds=("call",), function="sum_point")
    assert point.arguments == (("p", "{x = 3, y = 4}"), ("scale", "2"))
    assert [r.return_value for r in events(store, kinds=("return",), function="sum_point")] == ["14"]
    labels = [r.return_value or "" for r in events(store, kinds=("return",), function="label")]
    assert [text.split()[-1] for text in labels] == ['"even"', '"odd"', '"even"']
    notes = events(store, kinds=("return",), function="note")
    assert len(notes) == 3 and all(n.return_value is None for n in notes)
    assert [c.arguments[0][1].split()[-1] for c in events(store, kinds=("call",), function="note")] == [
        '"even"', '"odd"', '"even"'
    ]

    status = tracer.status()
    assert {f.name: f.calls for f in status.functions} == {"label": 3, "note": 3, "square": 12, "sum_point": 1}
    assert not status.sampling and "12 recorded" not in status.summary()


def test_recursion_and_parent_calls(debugger: Any, feed: Subscription, program: Path, store: TraceStore) -> None:
    launch(debugger, program)
    tracer = tracer_for(debugger, store)
    tracer.add(["fib", "outer", "square"])
    run_until(debugger, feed, tracer)

    fib_calls = events(store, kinds=("call",), function="fib")
    assert len(fib_calls) == 15  # fib(5): 1 + fib(4) 9 + fib(3) 5
    by_id = {c.call_id: c for c in fib_calls}
    top = fib_calls[0]
    assert top.arguments == (("n", "5"),) and top.parent_id is None and top.depth == 0
    for call in fib_calls[1:]:
        parent = by_id[call.parent_id]  # type: ignore[index]
        assert int(call.arguments[0][1]) in (int(parent.arguments[0][1]) - 1, int(parent.arguments[0][1]) - 2)  # type: ignore[index]
        assert call.depth == parent.depth + 1  # type: ignore[operator]
    returns = {r.call_id: r.return_value for r in events(store, kinds=("return",), function="fib")}
    fib = [0, 1, 1, 2, 3, 5]
    assert all(returns[c.call_id] == str(fib[int(c.arguments[0][1])]) for c in fib_calls)  # type: ignore[index]

    (outer,) = events(store, kinds=("call",), function="outer")
    inner = [c for c in events(store, kinds=("call",), function="square") if c.parent_id == outer.call_id]
    assert [c.arguments for c in inner] == [(("n", "7"),)]
    assert [r.return_value for r in events(store, kinds=("return",), function="outer")] == ["50"]


def test_threads(debugger: Any, feed: Subscription, program: Path, store: TraceStore) -> None:
    process = launch(debugger, program)
    tracer = tracer_for(debugger, store)
    tracer.add(["square"])
    run_until(debugger, feed, tracer)
    workers: dict[int, list[str]] = {}
    for call in events(store, kinds=("call",), function="square"):
        if call.thread != process.pid:
            workers.setdefault(call.thread or 0, []).append(call.arguments[0][1])  # type: ignore[index]
    assert sorted(workers.values()) == [["10", "11", "12"], ["20", "21", "22"]]
    for thread in workers:
        assert len(events(store, kinds=("return",), thread=thread)) == 3


def test_patterns_file_usercode_and_globs(debugger: Any, feed: Subscription, program: Path, store: TraceStore) -> None:
    launch(debugger, program)
    tracer = tracer_for(debugger, store)
    assert sorted(tracer.add(["s*"]).added) == ["square", "sum_point"]
    assert tracer.remove(["s*"]).added == ("square", "sum_point")
    names = set(tracer.add(["@file:trace_calls.c"]).added)
    assert {"main", "fib", "worker", "crash_here", "label"} <= names
    assert tracer.add(["@usercode"]).added == ()  # the same functions: all traced already
    assert all(f.file == str(SOURCE) or f.file.endswith("trace_calls.c") for f in tracer.status().functions if f.file)
    tracer.remove()
    assert tracer.status().functions == ()


def test_add_and_remove_without_restarting(debugger: Any, feed: Subscription, program: Path, store: TraceStore) -> None:
    launch(debugger, program)
    tracer = tracer_for(debugger, store)
    tracer.add(["square"])
    (note,) = debugger.resolve_location("note")
    bp = debugger.insert_breakpoint(note.address)
    run_until(debugger, feed, tracer, Stopped)  # the first note(): label(0) already ran
    debugger.remove_breakpoint(bp.id)
    tracer.add(["label"])
    tracer.remove(["square"])
    run_until(debugger, feed, tracer)
    assert len(events(store, kinds=("return",), function="square")) == 5  # main's loop only
    assert [c.arguments for c in events(store, kinds=("call",), function="label")] == [(("i", "1"),), (("i", "2"),)]


def test_output_and_exit_events(debugger: Any, feed: Subscription, program: Path, store: TraceStore) -> None:
    launch(debugger, program)
    tracer = tracer_for(debugger, store)
    run_until(debugger, feed, tracer)
    text = "".join(e.text or "" for e in events(store, kinds=("stdout",)))
    assert "sum 14\n" in text and "note odd\n" in text
    (done,) = events(store, kinds=("exit",))
    assert done.text == "exited with code 0"


def test_crash_event(debugger: Any, feed: Subscription, program: Path, store: TraceStore) -> None:
    launch(debugger, program, ["crash"])
    tracer = tracer_for(debugger, store)
    tracer.add(["crash_here"])
    stop = run_until(debugger, feed, tracer, Stopped)
    assert stop.reason is StopReason.CRASH
    (crash,) = events(store, kinds=("crash",))
    assert crash.text is not None and crash.text.startswith("SIGSEGV") and "crash_here" in crash.text
    assert crash.function == "crash_here" and crash.line == marker_line(SOURCE, "fault")
    details = crash.data
    assert details["fault_address"] == 0
    assert [f["function"] for f in details["backtrace"][:4]] == ["crash_here"] * 3 + ["main"]
    assert details["locals"]["local_marker"] == "4242"
    assert details["arguments"] == {"where": "0x0", "depth": "0"}
    assert "rip" in details["registers"]
    innermost = events(store, kinds=("call",), function="crash_here")[-1]
    assert crash.parent_id == innermost.call_id and innermost.arguments == (("where", "0x0"), ("depth", "0"))
    debugger.kill()
    run_exit = feed.get(timeout=10)
    while not isinstance(run_exit, Exited):
        run_exit = feed.get(timeout=10)


def test_hot_functions_are_counted_exactly_and_sampled(debugger: Any, feed: Subscription, program: Path, store: TraceStore) -> None:
    launch(debugger, program)
    tracer = tracer_for(debugger, store, max_rate=2, patches=False)  # the traps' sampling
    tracer.add(["fib"])
    run_until(debugger, feed, tracer)
    (fib,) = tracer.status().functions
    assert fib.calls == 15
    recorded = events(store, kinds=("call",), function="fib")
    assert fib.recorded == len(recorded) < 15
    assert tracer.status().sampling and "sampled" in tracer.status().summary()
