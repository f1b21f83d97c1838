"""Calls recorded by jump patches, taken from the program's rings into the TraceStore.

A thread of the server polls the engine's CallRecorder every few milliseconds while the
program runs; the Tracer also drains at every stop, thread exit and at the exit (before it
records the exit), so nothing written is lost. Records come per thread in the order the
thread wrote them; returns pair with calls by (thread, CFA) as the trap path does (a call
left without its return, by longjmp or a tail call, is forgotten when a later call on its
thread sits at or above its frame), and the rows are those the trap path writes. Runs of
leaf calls (each call's return next) go to the store in bulk (drain_bulk.py), the rest one
by one. The pairing of recorded calls is kept apart from the trap path's: a recorded
call's parent is the recorded call open around it.

When the store falls behind (more than BACKLOG rows queued, not yet written) and the
tracer samples (max_rate), only one call in N is written, N growing with the backlog;
every call is still counted.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from aliceserver.debuggers.ptrace.patches.trace_rings import CALL
from aliceserver.debuggers.ptrace.recorded_sql import SqlShape
from aliceserver.tracing.drain_bulk import PIECE, BulkDrain, pieces
from aliceserver.tracing.store import Row, TraceStore

log = logging.getLogger(__name__)

POLL_SECONDS = 0.003
IDLE_SECONDS = 0.05  # the longest wait with nothing to drain (copies wait in memory)
BACKLOG = 100_000  # rows queued in the store (about a second of its work): calls sampled beyond


class Formatter(Protocol):
    def arguments(self, record: tuple[int, ...]) -> list[tuple[str, str]]: ...

    def arguments_json(self, record: tuple[int, ...]) -> str: ...

    def return_value(self, record: tuple[int, ...]) -> str | None: ...

    @property
    def sql(self) -> SqlShape | None: ...


class Recorder(Protocol):
    def drain(self, raw: bool = False) -> dict[int, list[tuple[int, ...] | bytes]]: ...

    def to_ns(self, ticks: int) -> int: ...

    def clock_line(self) -> tuple[int, int, float]: ...

    def active(self) -> bool: ...


@dataclass(slots=True)
class Counts:
    """One recorded function's counters (written by the drain only)."""

    calls: int = 0  # every call taken from the rings
    recorded: int = 0  # calls written to the store
    sample_every: int = 1


@dataclass(slots=True)
class RecordedTrace:
    name: str
    path: str | None
    line: int | None
    formatter: Formatter
    counts: Counts = field(default_factory=Counts)


class RecordDrain(BulkDrain):
    def __init__(self, recorder: Recorder, store: TraceStore, *, sampling: bool,
                 call_ids: Iterator[int]) -> None:  # fmt: skip
        self._recorder = recorder
        self._store = store
        self._sampling = sampling
        self._call_ids = call_ids  # shared with the trap path (a run's ids taken in one C loop)
        self._next_call = call_ids.__next__
        self.traces: dict[int, RecordedTrace] = {}  # by trace number
        self._stacks: dict[int, list[list[Any]]] = {}  # tid -> [cfa, call id, trace, start ns]
        self._last_ns: dict[int, int] = {}  # each thread's last row time: rows stay in order
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._stop.clear()
            self._thread = threading.Thread(
                target=self._poll, name="aliceserver-trace-drain", daemon=True
            )
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)
        self._thread = None

    def _poll(self) -> None:
        """Drain every POLL_SECONDS while records come; with none, the wait doubles up to
        IDLE_SECONDS (the idle server's CPU), back to fast at the first record."""
        wait = POLL_SECONDS
        while not self._stop.wait(wait):
            try:
                wait = POLL_SECONDS if self.drain() else min(wait * 2, IDLE_SECONDS)
            except Exception:  # the program goes on; the next poll tries again
                log.exception("draining the trace rings")
            if not self._recorder.active():
                return  # no program: the stops and the exit drain what is left

    def drain(self) -> int:
        """Take every record written so far into the store; the rows written."""
        with self._lock:
            rows: list[Row] = []
            written = 0
            while taken := self._recorder.drain(raw=True):  # a bounded part at each call
                for tid, items in taken.items():
                    for records in pieces(items):
                        if isinstance(records, memoryview):
                            written += self._raw_part(tid, records, rows)
                        else:
                            written += self._thread_part(tid, records, rows)
                        if len(rows) >= PIECE:  # the store's writer commits meanwhile
                            self._store.extend(rows)
                            written, rows = written + len(rows), []
            if rows:
                self._store.extend(rows)
            return written + len(rows)

    def _sample_every(self) -> int:
        if not self._sampling:
            return 1
        queued, written = self._store.counts
        return 1 + (queued - written) // BACKLOG

    def _thread_rows(self, tid: int, records: list[tuple[int, ...]], rows: list[Row]) -> None:
        stack = self._stacks.setdefault(tid, [])
        traces = self.traces
        base_ticks, base_ns, scale = self._recorder.clock_line()
        base_ns -= self._store.start_ns  # store time: since it opened
        every = self._sample_every()
        append = rows.append
        next_call = self._next_call
        last = self._last_ns.get(tid, 0)
        header, trace = -1, None
        name = path = line = None
        arguments_json: Callable[[tuple[int, ...]], str] | None = None
        is_call = False
        for record in records:
            if record[0] != header:
                header = record[0]
                trace = traces.get(header >> 16)
                if trace is None:
                    continue
                name, path, line = trace.name, trace.path, trace.line
                arguments_json = trace.formatter.arguments_json
                is_call = header & 0xFF == CALL
            elif trace is None:
                continue
            cfa = record[2]
            if is_call:
                while stack and stack[-1][0] <= cfa:
                    stack.pop()  # it left without returning through its ret (longjmp, tail call)
                counts = trace.counts
                counts.calls += 1
                if every > 1:
                    counts.sample_every = every
                    if counts.calls % every:
                        continue
                counts.recorded += 1
                call_id = next_call()
                now = base_ns + int((record[1] - base_ticks) * scale)
                if now < last:
                    now = last  # the clock's line was measured again since: never back
                last = now
                append(("call", now, tid, name, path, line, call_id,
                        stack[-1][1] if stack else None, len(stack), arguments_json(record),  # type: ignore[misc]
                        None, None, None, None))  # fmt: skip
                stack.append([cfa, call_id, trace, now])
                continue
            if stack and stack[-1][0] == cfa:  # the usual case: the innermost open call
                index = len(stack) - 1
            else:
                for index in range(len(stack) - 1, -1, -1):
                    if stack[index][0] == cfa:
                        break
                else:
                    continue  # its call was not recorded (sampled out, or before the trace)
            _, call_id, called, began = stack[index]
            del stack[index:]
            now = base_ns + int((record[1] - base_ticks) * scale)
            if now < last:
                now = last
            last = now
            append(("return", now, tid, called.name, called.path, called.line, call_id,
                    stack[-1][1] if stack else None, len(stack), None, called.formatter.return_value(record),
                    now - began, None, None))  # fmt: skip
        self._last_ns[tid] = last

    def open_call(self, tid: int) -> tuple[int, int] | None:
        """(CFA, call id) of the innermost call recorded open on the thread, as drained so far."""
        with self._lock:
            stack = self._stacks.get(tid)
            return (stack[-1][0], stack[-1][1]) if stack else None

    def forget_thread(self, tid: int) -> None:
        with self._lock:
            self._stacks.pop(tid, None)
            self._last_ns.pop(tid, None)

