"""The drain's bulk path (a mixin of drain.RecordDrain): runs of leaf calls as CallBatches.

Most records of a hot function come as a call followed at once by its return, on a thread
with no recorded call open around them. Such a run is checked as a whole with list
operations (the same trace's call and return headers alternating, each return at its
call's frame, stamps in order) and written as one CallBatch (call_batch.py): where the
function's values are integers or pointers (recorded_sql.py) straight from the ring's bytes,
column by column through memoryview casts, with no tuple per record; else from the decoded
records, the text formatted in Python. Anything else (nested calls, a run cut by another
function, sampling) takes the one-by-one path (`_thread_rows`), so the rows are the same.
"""

from __future__ import annotations

import itertools
import operator
import struct
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from aliceserver.debuggers.ptrace.patches.trace_rings import CALL, RETURN, SLOT
from aliceserver.debuggers.ptrace.recorded_sql import IntFormat
from aliceserver.tracing.call_batch import CallBatch
from aliceserver.tracing.store import Row, TraceStore

if TYPE_CHECKING:
    from aliceserver.tracing.drain import RecordedTrace, Recorder

PIECE = 50_000  # records made into rows before the rows go to the store
LEAD = 64  # records taken one by one before a run of leaf calls, at most
MIN_RUN = 16  # leaf calls worth a batch
_SLOT_WORDS = struct.Struct("<8Q")  # a one-slot record, as trace_rings.decode gives it
_QWORD = struct.Struct("<q")  # a header, as a memoryview cast to "q" holds it
_QWORDS: tuple[IntFormat] = ("q",)  # a value's bits, whole
_HEADER, _TICKS, _CFA = operator.itemgetter(0), operator.itemgetter(1), operator.itemgetter(2)
Records = list[tuple[int, ...]]


class BulkDrain:
    traces: dict[int, RecordedTrace]
    _recorder: Recorder
    _store: TraceStore
    _stacks: dict[int, list[list[Any]]]
    _last_ns: dict[int, int]
    _call_ids: Iterator[int]

    def _thread_rows(self, tid: int, records: Records, rows: list[Row]) -> None:
        raise NotImplementedError

    def _sample_every(self) -> int:
        raise NotImplementedError

    def _lead(self, tid: int, records: Records, rows: list[Row]) -> int | None:
        """Records taken one by one until no call is open and a call comes: how many,
        or None when a call stays open past LEAD (a traced caller: one by one)."""
        at = 0
        while at < len(records) and (self._stacks.get(tid) or records[at][0] & 0xFF != CALL):
            if at == LEAD:
                return None
            self._thread_rows(tid, records[at : at + 1], rows)  # what straddled the last part
            at += 1
        return at

    def _queue(self, batch: CallBatch, rows: list[Row]) -> int:
        """The batch queued after `rows` (which go first); the rows queued."""
        if rows:
            self._store.extend(rows)
        self._store.add_calls(batch)
        queued = len(rows) + batch.rows
        rows.clear()
        return queued

    def _thread_part(self, tid: int, records: Records, rows: list[Row]) -> int:
        """The records' rows: runs of leaf calls in bulk (their text formatted here), the
        rest one by one into `rows`; the rows queued in bulk."""
        if self._sample_every() > 1:
            self._thread_rows(tid, records, rows)
            return 0
        headers, frames = list(map(_HEADER, records)), list(map(_CFA, records))
        ticks = list(map(_TICKS, records))
        at = queued = 0
        while at < len(records):
            lead = self._lead(tid, records[at : at + LEAD + 1], rows)
            if lead is None:
                self._thread_rows(tid, records[at + LEAD :], rows)
                return queued
            at += lead
            pairs = self._leaf_run(headers, frames, ticks, at, sql=False)
            if pairs < MIN_RUN:
                self._thread_rows(tid, records[at:], rows)
                return queued
            queued += self._queue(self._records_batch(tid, records, ticks, at, pairs), rows)
            at += 2 * pairs
        return queued

    def _raw_part(self, tid: int, data: memoryview, rows: list[Row]) -> int:
        """`_thread_part` of records still in their bytes (one slot each): runs of leaf
        calls of functions whose text SQLite makes, checked and taken column by column
        (strided memoryviews: an int made only for what is stored); the rest decoded."""
        words = data.cast("q")
        if self._sample_every() > 1 or not any(t.formatter.sql is not None for t in self.traces.values()):
            return self._thread_part(tid, _decoded(data), rows)
        ticks = words[1::8].tolist()
        at = queued = 0
        while at < len(ticks):
            lead = self._lead(tid, _decoded(data[SLOT * at : SLOT * (at + LEAD + 1)]), rows)
            if lead is None:
                self._thread_rows(tid, _decoded(data[SLOT * (at + LEAD) :]), rows)
                return queued
            at += lead
            pairs = self._raw_leaf_run(words, ticks, at)
            if pairs < MIN_RUN:  # the rest decoded: leaf calls formatted here, or one by one
                return queued + self._thread_part(tid, _decoded(data[SLOT * at :]), rows)
            queued += self._queue(self._columns_batch(tid, words, ticks, at, pairs), rows)
            at += 2 * pairs
        return queued

    def _leaf_run(self, headers: list[int], frames: list[int], ticks: list[int], start: int, sql: bool) -> int:
        """How many leaf calls of one function (`sql`: whose text SQLite makes) follow
        from `start` (records decoded)."""
        if start + 1 >= len(headers) or not self._leaf_pair(headers[start], headers[start + 1], sql):
            return 0
        header, returned = headers[start], headers[start + 1]

        def leaf(count: int) -> bool:
            end = start + 2 * count
            return (headers[start:end:2].count(header) == count
                    and headers[start + 1 : end : 2].count(returned) == count
                    and frames[start:end:2] == frames[start + 1 : end : 2]
                    and _in_order(ticks[start:end]))  # fmt: skip

        return _longest((len(headers) - start) // 2, leaf)

    def _raw_leaf_run(self, words: memoryview, ticks: list[int], start: int) -> int:
        """`_leaf_run` over the records' bytes (`words`: their qwords), for functions whose
        text SQLite makes: headers and frames compared as strided views, with no int made."""
        if start + 1 >= len(ticks) or not self._leaf_pair(words[8 * start], words[8 * start + 8], True):
            return 0
        call, ret = _QWORD.pack(words[8 * start]), _QWORD.pack(words[8 * start + 8])

        def leaf(count: int) -> bool:
            first, end = 8 * start, 8 * (start + 2 * count)
            return (words[first:end:16].tobytes() == call * count
                    and words[first + 8 : end : 16].tobytes() == ret * count
                    and words[first + 2 : end : 16] == words[first + 10 : end : 16]
                    and _in_order(ticks[start : start + 2 * count]))  # fmt: skip

        return _longest((len(ticks) - start) // 2, leaf)

    def _leaf_pair(self, header: int, returned: int, sql: bool) -> bool:
        """Whether a call record and the next can begin a run: a call of a function
        recorded (`sql`: whose text SQLite makes) and the return of the same trace."""
        trace = self.traces.get(header >> 16)
        return not (trace is None or (sql and trace.formatter.sql is None) or header & 0xFF != CALL
                    or returned & ~0xFF00 != header >> 16 << 16 | RETURN)  # fmt: skip

    def _columns_batch(self, tid: int, words: memoryview, ticks: list[int], start: int, count: int) -> CallBatch:
        """The `count` leaf calls from `start` (checked by _leaf_run), the values raw."""
        end = start + 2 * count
        trace = self.traces[words[8 * start] >> 16]
        sql = trace.formatter.sql
        assert sql is not None
        places = [8 * start + 3 + i for i in range(len(sql.arguments))]  # qwords: the calls' values
        if sql.returned != "NULL":
            places.append(8 * start + 11)  # the returns' rax
        formats = sql.formats or _QWORDS * len(places)
        values = [_column(words, form, place, 8 * end) for form, place in zip(formats, places, strict=True)]
        call_ticks, return_ticks = ticks[start:end:2], ticks[start + 1 : end : 2]
        clock, last = self._clock(tid, return_ticks[-1])
        trace.counts.calls += count
        trace.counts.recorded += count
        return CallBatch(tid, trace.name, trace.path, trace.line, None, 0, clock, last,
                         list(itertools.islice(self._call_ids, count)), call_ticks,
                         return_ticks, sql=sql, values=tuple(values))  # fmt: skip

    def _records_batch(self, tid: int, records: Records, ticks: list[int], start: int, count: int) -> CallBatch:
        """The `count` leaf calls from `start` (checked by _leaf_run), formatted here."""
        end = start + 2 * count
        calls, returns = records[start:end:2], records[start + 1 : end : 2]
        trace = self.traces[calls[0][0] >> 16]
        call_ticks, return_ticks = ticks[start:end:2], ticks[start + 1 : end : 2]
        clock, last = self._clock(tid, return_ticks[-1])
        trace.counts.calls += count
        trace.counts.recorded += count
        formatter = trace.formatter
        return CallBatch(tid, trace.name, trace.path, trace.line, None, 0, clock, last,
                         list(itertools.islice(self._call_ids, count)), call_ticks,
                         return_ticks, list(map(formatter.arguments_json, calls)),
                         list(map(formatter.return_value, returns)))  # fmt: skip

    def _clock(self, tid: int, last_ticks: int) -> tuple[tuple[int, int, float], int]:
        """The clock's line in store time, and the thread's last row time, moved on to
        `last_ticks`' (rows never go back in time)."""
        ticks, base_ns, scale = self._recorder.clock_line()
        base_ns -= self._store.start_ns
        last = self._last_ns.get(tid, 0)
        self._last_ns[tid] = max(last, base_ns + int((last_ticks - ticks) * scale))
        return (ticks, base_ns, scale), last


def _column(words: memoryview, form: IntFormat, first: int, end: int) -> list[int]:
    """Every 16th qword of `words` from `first` to `end` read as `form` (a memoryview format
    reading its low bytes: the value as recorded_sql's expression makes it, made in C)."""
    per = 8 // struct.calcsize(form)
    items = words if form == "q" else words.cast("B").cast(form)
    return items[first * per : end * per : 16 * per].tolist()


def _in_order(ticks: list[int]) -> bool:
    """Whether the stamps never go back: a sort of sorted ints compares each pair once, at
    a quarter of all(map(operator.le, ...))'s cost."""
    return ticks == sorted(ticks)


def _longest(most: int, leaf: Callable[[int], bool]) -> int:
    """The largest count <= `most` that `leaf` accepts (accepting a count, it accepts
    fewer): `most` checked whole, else counts grown by doubling from MIN_RUN, then bisected."""
    if leaf(most):
        return most
    good, bad = 0, MIN_RUN
    while bad < most and leaf(bad):
        good, bad = bad, 2 * bad
    bad = min(bad, most)
    while bad - good > 1:
        middle = (good + bad) // 2
        good, bad = (middle, bad) if leaf(middle) else (good, middle)
    return good


def pieces(items: list[tuple[int, ...] | bytes]) -> Iterator[Records | memoryview]:
    """A thread's items as runs of records (tuples) and raw bytes (views: no copy), each
    at most PIECE records (the store's writer commits between them)."""
    run: Records = []
    for item in items:
        if isinstance(item, bytes):
            if run:
                yield run
                run = []
            whole = memoryview(item)
            for start in range(0, len(item), SLOT * PIECE):
                yield whole[start : start + SLOT * PIECE]
        else:
            run.append(item)
            if len(run) == PIECE:
                yield run
                run = []
    if run:
        yield run


def _decoded(data: bytes | memoryview) -> Records:
    return list(_SLOT_WORDS.iter_unpack(data))
