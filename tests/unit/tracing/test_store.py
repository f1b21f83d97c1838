"""TraceStore: batched writes, WAL, kept or deleted on close, purged after retention."""

from __future__ import annotations

import importlib
import os
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

import pytest

from aliceserver.tracing import QueryFilters, query
from aliceserver.tracing import store as store_module
from aliceserver.tracing.call_batch import CallBatch
from aliceserver.tracing.store import TraceStore, purge_old

query_module = importlib.import_module("aliceserver.tracing.query")  # the package's `query` is the function
ROW = ("stdout", 0, None, None, None, None, None, None, None, None, None, None, "hi\n", None)


def test_rows_are_written_in_batches_and_read_while_open(tmp_path: Path) -> None:
    store = TraceStore("s", str(tmp_path))
    try:
        for i in range(1000):
            store.append((*ROW[:1], i, *ROW[2:]))
        store.extend([ROW, ROW])
        store.flush()
        assert store.counts == (1002, 1002)
        with sqlite3.connect(store.path) as db:
            assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
            assert db.execute("SELECT count(*), max(ts_ns) FROM events").fetchone() == (1002, 999)
    finally:
        store.close()


def test_a_store_is_deleted_on_close_unless_kept(tmp_path: Path) -> None:
    dropped = TraceStore("a", str(tmp_path))
    dropped.append(ROW)
    dropped.close()
    assert not os.path.exists(dropped.path)
    kept = TraceStore("b", str(tmp_path), keep=True)
    kept.append(ROW)
    kept.close()
    with sqlite3.connect(kept.path) as db:
        assert db.execute("SELECT text FROM events").fetchall() == [("hi\n",)]
    assert dict(sqlite3.connect(kept.path).execute("SELECT key, value FROM meta").fetchall())["session"] == "b"


def test_kept_stores_are_purged_after_the_retention_period(tmp_path: Path) -> None:
    old = TraceStore("old", str(tmp_path), keep=True)
    old.close()
    fresh = TraceStore("fresh", str(tmp_path), keep=True)
    fresh.close()
    week = time.time() - 8 * 24 * 3600
    os.utime(old.path, (week, week))
    (tmp_path / "unrelated.txt").write_text("kept")
    assert purge_old(str(tmp_path), retention=7 * 24 * 3600) == [old.path]
    assert not os.path.exists(old.path) and os.path.exists(fresh.path)
    assert (tmp_path / "unrelated.txt").exists()
    os.utime(fresh.path, (week, week))
    TraceStore("next", str(tmp_path)).close()  # opening a store purges too
    assert not os.path.exists(fresh.path)


def test_purge_of_a_missing_directory_is_empty(tmp_path: Path) -> None:
    assert purge_old(str(tmp_path / "none")) == []


def test_indexes_are_built_after_the_first_query_and_kept_files_have_them(tmp_path: Path) -> None:
    def indexes(path: str) -> set[str]:
        with sqlite3.connect(path) as db:
            sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'events_%'"
            found = db.execute(sql)
            return {name for (name,) in found}

    store = TraceStore("s", str(tmp_path), keep=True)
    try:
        store.extend([(*ROW[:1], i, *ROW[2:]) for i in range(500)])
        store.flush()
        assert indexes(store.path) == set()  # rows pour in without index upkeep
        reader = store.reader()  # answers at once: the writer builds them meanwhile
        assert store.wait_indexed() and indexes(store.path) == {"events_kind", "events_function", "events_thread", "events_ts",
                                       "events_duration"}  # fmt: skip
        store.append((*ROW[:1], 500, *ROW[2:]))
        store.flush()  # later rows go through the indexes
        sql = "SELECT count(*) FROM events INDEXED BY events_ts WHERE ts_ns >= 499"
        assert reader.execute(sql).fetchone() == (2,)
        reader.close()
    finally:
        store.close()
    unread = TraceStore("u", str(tmp_path), keep=True)
    unread.append(ROW)
    unread.close()
    assert len(indexes(unread.path)) == 5  # a kept file is indexed for whoever opens it


@pytest.mark.parametrize("second", [42, 44])  # call ids in a row (given by position), or not
def test_calls_in_bulk_read_as_two_events_each_and_a_kept_file_has_them_in_events(tmp_path: Path, second: int) -> None:
    """A CallBatch's calls (one `calls` row each) come back through the queries' view as a
    call and a return, ids in the order queued; closing a kept store puts them in events."""
    store = TraceStore("s", str(tmp_path), keep=True)
    store.append((*ROW[:1], 5, *ROW[2:]))
    store.add_calls(CallBatch(9, "leaf", "/src/a.c", 3, None, 0, (0, 0, 1.0), 0, [41, second], [10, 20], [15, 26],
                              ['[["i", "1"]]', '[["i", "2"]]'], ["-1", None]))  # fmt: skip
    store.append((*ROW[:1], 30, *ROW[2:]))
    store.flush()
    seen = [(e.id, e.kind, e.time_ms * 1e6, e.call_id, e.arguments, e.return_value, e.duration_ms)
            for e in query(store, QueryFilters(function="leaf")).events]  # fmt: skip
    assert [(round(t), rest) for _, _, t, *rest in seen] == [
        (10, [41, (("i", "1"),), None, None]), (15, [41, None, "-1", 5e-6]),
        (20, [second, (("i", "2"),), None, None]), (26, [second, None, None, 6e-6]),
    ]  # fmt: skip
    assert [i for i, *_ in seen] == [2, 3, 4, 5] and [k for _, k, *_ in seen] == ["call", "return"] * 2
    store.close()
    with sqlite3.connect(store.path) as db:
        assert db.execute("SELECT count(*) FROM calls").fetchone() == (0,)
        kinds = db.execute("SELECT id, kind, ts_ns FROM events ORDER BY id").fetchall()
    assert kinds == [(1, "stdout", 5), (2, "call", 10), (3, "return", 15), (4, "call", 20), (5, "return", 26),
                     (6, "stdout", 30)]  # fmt: skip


def test_a_flush_does_not_wait_while_the_writer_lets_rows_gather(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer waits a little for rows to gather into one transaction; a flush (the last
    rows of a burst, a query) has it write at once, whatever that wait is."""
    monkeypatch.setattr(store_module, "_BATCH_DELAY", 3600.0)
    store = TraceStore("s", str(tmp_path))
    try:
        store.append(ROW)
        store.flush(timeout=10)
        assert store.counts == (1, 1)
    finally:
        store.close()


def test_totals_equal_the_events_whether_counted_by_shape_or_by_row(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter on kinds, names and files counts the calls of each shape (shapes.calls), any
    other reads the rows: both equal the events the query lists, also once a kept store's
    calls went into events (UNFOLD). Pages merged from the view's parts equal the view's."""
    store = TraceStore("s", str(tmp_path), keep=True)
    store.append((*ROW[:1], 5, *ROW[2:]))
    for thread, function, count in ((7, "leaf", 3), (8, "leaf", 2), (7, "other", 4)):
        ids = list(range(100 * thread + len(function), 100 * thread + len(function) + count))
        ticks = list(range(10, 10 + 10 * count, 10))
        store.add_calls(CallBatch(thread, function, "/src/a.c", 3, None, 0, (0, 0, 1.0), 0, ids, ticks,
                                  [t + 5 for t in ticks], ['[["i", "1"]]'] * count, ["0"] * count))  # fmt: skip
    filters = [QueryFilters(), QueryFilters(kinds=("return",)), QueryFilters(function="leaf"),
               QueryFilters(kinds=("call",), function_regex="^o"), QueryFilters(file="a.c", function_contains="ea"),
               QueryFilters(function="leaf", thread=7), QueryFilters(kinds=("stdout",))]  # fmt: skip
    expected = [19, 9, 10, 4, 10, 6, 1]
    try:
        store.flush()
        for f, want in zip(filters, expected, strict=True):
            result = query(store, replace(f, limit=100))
            assert (result.total, len(result.events)) == (want, want), f
        everything = query(store, QueryFilters(limit=100)).events  # the parts merged by (time, id)
        assert [(e.time_ms, e.id) for e in everything] == sorted((e.time_ms, e.id) for e in everything)
        for merged_most in (20_000, 0):  # pages merged from the parts', or the view's (deep pages)
            monkeypatch.setattr(query_module, "MERGED_MOST", merged_most)
            pages = [e for start in range(0, 19, 4) for e in query(store, QueryFilters(limit=4, offset=start)).events]
            assert pages == list(everything)
    finally:
        store.close()
    with sqlite3.connect(store.path) as db:  # kept: its calls in events, no shape counts any
        assert db.execute("SELECT count(*), (SELECT sum(calls) FROM shapes) FROM calls").fetchone() == (0, 0)
        assert db.execute("SELECT count(*) FROM all_events WHERE function = 'leaf'").fetchone() == (10,)
