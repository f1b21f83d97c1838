"""Structured queries over a TraceStore: each filter is one SQL condition (all must hold).
They read the view all_events: the rows of `events` and those of `calls` (call_batch.py)."""

from __future__ import annotations

import heapq
import itertools
import json
import operator
import re
import sqlite3
from dataclasses import dataclass, replace
from typing import Any

from aliceserver.errors import ProtocolError
from aliceserver.tracing.call_batch import (
    COUNTED_COLUMNS,
    COUNTED_PARTS,
    EVENT_COLUMNS,
    EVENT_PARTS,
)
from aliceserver.tracing.store import TraceStore

KINDS = ("call", "return", "stdout", "stderr", "crash", "exit")
MAX_LIMIT = 10_000
_ORDER = operator.itemgetter(2, 0)  # (ts_ns, id) of a row in EVENT_COLUMNS' order
MERGED_MOST = 20_000  # offset + limit up to which a page is merged from the parts' own pages


@dataclass(frozen=True, slots=True)
class QueryFilters:
    kinds: tuple[str, ...] = ()  # event types; empty: all
    function: str | None = None  # equals
    function_contains: str | None = None
    function_regex: str | None = None  # Python syntax, searched anywhere in the name
    file: str | None = None  # the source path ends with it (`parser.c`, `src/parser.c`)
    return_value: str | None = None  # equals the formatted value (`0`, `0x0`, `true`)
    return_is_null: bool | None = None  # True: void / no value; False: a value
    thread: int | None = None
    since_ms: float | None = None  # time range, milliseconds since the trace started
    until_ms: float | None = None
    min_duration_ms: float | None = None  # only returns have durations
    limit: int = 100
    offset: int = 0


@dataclass(frozen=True, slots=True)
class TraceEvent:
    id: int
    kind: str
    time_ms: float  # since the trace started
    thread: int | None
    function: str | None
    file: str | None
    line: int | None
    call_id: int | None
    parent_id: int | None
    depth: int | None
    arguments: tuple[tuple[str, str], ...] | None
    return_value: str | None
    duration_ms: float | None
    text: str | None
    data: Any  # crash details (JSON-shaped), else None


@dataclass(frozen=True, slots=True)
class QueryResult:
    events: tuple[TraceEvent, ...]
    total: int  # events matching, before limit/offset
    offset: int

    @property
    def more(self) -> bool:
        return self.offset + len(self.events) < self.total


def _where(filters: QueryFilters) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    if filters.kinds:
        unknown = sorted(set(filters.kinds) - set(KINDS))
        if unknown:
            raise ProtocolError(f"unknown event types {unknown}: use {', '.join(KINDS)}")
        clauses.append(f"kind IN ({', '.join('?' * len(filters.kinds))})")
        params += filters.kinds
    if filters.function is not None:
        clauses.append("function = ?")
        params.append(filters.function)
    if filters.function_contains is not None:
        clauses.append("instr(function, ?) > 0")  # case-sensitive, no LIKE wildcards
        params.append(filters.function_contains)
    if filters.function_regex is not None:
        try:
            re.compile(filters.function_regex)
        except re.error as error:
            raise ProtocolError(f"bad function regex {filters.function_regex!r}: {error}") from None
        clauses.append("function IS NOT NULL AND regexp(?, function)")
        params.append(filters.function_regex)
    if filters.file is not None:
        clauses.append("(file = ? OR substr(file, -length(?) - 1) = '/' || ?)")
        params += [filters.file, filters.file, filters.file]
    if filters.return_value is not None:
        clauses.append("kind = 'return' AND retval = ?")
        params.append(filters.return_value)
    if filters.return_is_null is not None:
        clauses.append("kind = 'return' AND retval IS " + ("NULL" if filters.return_is_null else "NOT NULL"))
    if filters.thread is not None:
        clauses.append("thread = ?")
        params.append(filters.thread)
    if filters.since_ms is not None:
        clauses.append("ts_ns >= ?")
        params.append(int(filters.since_ms * 1e6))
    if filters.until_ms is not None:
        clauses.append("ts_ns <= ?")
        params.append(int(filters.until_ms * 1e6))
    if filters.min_duration_ms is not None:
        clauses.append("duration_ns >= ?")
        params.append(int(filters.min_duration_ms * 1e6))
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def _count(where: str, by_shape: bool) -> str:
    """The view's parts counted one by one: a part whose constant kind the filter excludes
    is skipped whole, where the view (a co-routine) read every row of every part (1M calls:
    0.28 -> 0.05 s for the calls' returns of one function). `by_shape`: the filter reads
    only kinds, names and files, so the calls parts are counted from their shapes' counts
    (0.05 s -> nothing, for the same count)."""
    counts = [f"(WITH v({EVENT_COLUMNS}) AS ({part}) SELECT count(*) FROM v{where})"
              if counted is None or not by_shape
              else f"(WITH v({COUNTED_COLUMNS}) AS ({counted}) SELECT coalesce(sum(n), 0) FROM v{where})"
              for part, counted in zip(EVENT_PARTS, COUNTED_PARTS, strict=True)]  # fmt: skip
    return "SELECT " + " + ".join(counts)


def _by_shape(filters: QueryFilters) -> bool:
    """Whether the filters read nothing but what a shape holds (kind, function, file)."""
    shaped = replace(filters, kinds=(), function=None, function_contains=None, function_regex=None, file=None)
    return replace(shaped, limit=0, offset=0) == QueryFilters(limit=0)


def _page(db: sqlite3.Connection, where: str, params: list[Any], offset: int, limit: int) -> list[tuple[Any, ...]]:
    """Rows offset .. offset + limit - 1 by (ts_ns, id) (unique: ids are), each part of the
    view sorted and cut on its own, then merged: on the view, SQLite sorted every matching
    row of every part (1M calls, one function's first 100 events: 0.9-2.1 s with the indexes
    built; a part alone reads its index in order and stops)."""
    if limit == 0:
        return []
    if offset + limit > MERGED_MOST:  # a page deep in: each part's rows would all come to Python
        return db.execute(f"SELECT {EVENT_COLUMNS} FROM all_events{where} ORDER BY ts_ns, id LIMIT ? OFFSET ?",
                          [*params, limit, offset]).fetchall()  # fmt: skip
    parts = [db.execute(f"WITH v({EVENT_COLUMNS}) AS ({part}) SELECT {EVENT_COLUMNS} FROM v{where}"
                        " ORDER BY ts_ns, id LIMIT ?", [*params, offset + limit]).fetchall()
             for part in EVENT_PARTS]  # fmt: skip
    return list(itertools.islice(heapq.merge(*parts, key=_ORDER), offset, offset + limit))


def query(store: TraceStore, filters: QueryFilters, *, flush: bool = True) -> QueryResult:
    """The events matching every filter, oldest first; `flush` first waits for the writer."""
    if not 0 <= filters.limit <= MAX_LIMIT or filters.offset < 0:
        raise ProtocolError(f"limit must be 0..{MAX_LIMIT} and offset >= 0")
    if flush:
        store.flush()
    where, params = _where(filters)
    db = store.reader()
    try:
        cache: dict[str, re.Pattern[str]] = {}

        def regexp(pattern: str, text: str | None) -> bool:
            if text is None:  # SQLite may call it before `function IS NOT NULL` (the view)
                return False
            compiled = cache.get(pattern) or cache.setdefault(pattern, re.compile(pattern))
            return compiled.search(text) is not None

        db.create_function("regexp", 2, regexp, deterministic=True)
        total = db.execute(_count(where, _by_shape(filters)), params * len(EVENT_PARTS)).fetchone()[0]
        rows = _page(db, where, params, filters.offset, filters.limit)
    except sqlite3.Error as error:
        raise ProtocolError(f"trace query failed: {error}") from None
    finally:
        db.close()
    return QueryResult(tuple(_event(row) for row in rows), total, filters.offset)


def _event(row: tuple[Any, ...]) -> TraceEvent:
    (ident, kind, ts_ns, thread, function, file, line, call_id, parent_id, depth, args, retval,
     duration_ns, text, data) = row  # fmt: skip
    arguments = tuple((str(n), str(v)) for n, v in json.loads(args)) if args else None
    return TraceEvent(
        ident, kind, ts_ns / 1e6, thread, function, file, line, call_id, parent_id, depth,
        arguments, retval, None if duration_ns is None else duration_ns / 1e6, text,
        json.loads(data) if data else None,
    )  # fmt: skip
