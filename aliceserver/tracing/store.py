"""TraceStore: one session's trace events in an SQLite file.

Writes are batched: `append` only queues a row (it runs on the engine's tracer thread, at
every traced call), or a CallBatch of calls in bulk (call_batch.py), and a writer thread
inserts what has queued in one transaction, in WAL mode so that queries read while it
writes. The file is deleted on `close` unless the
session asked to keep it; kept files older than the retention period are purged
(`purge_old`, run when a store opens).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import Any, cast

from aliceserver.tracing.call_batch import CALLS_INDEXES, CALLS_SCHEMA, UNFOLD, CallBatch

log = logging.getLogger(__name__)

DEFAULT_RETENTION = 7 * 24 * 3600.0  # seconds a kept trace stays before it is purged
_SUFFIX = ".trace.sqlite"
_BATCH_DELAY = 0.05  # seconds the writer lets rows gather (fewer, larger transactions)
_MAX_BATCH = 100_000  # rows per transaction at most
# Fewer rows waiting: the writer lets more gather first. A CallBatch is a burst already
# (25,000 calls): waiting after one left the writer idle 50 ms at the end of a burst.
_GATHER = 10_000
INDEX_WAIT = 2.0  # seconds the index build waits for the writer to be idle, at most
INDEX_DELAY = 0.5  # seconds after the first query before the build (it would slow the queries)

COLUMNS = (
    "kind", "ts_ns", "thread", "function", "file", "line", "call_id", "parent_id", "depth",
    "args", "retval", "duration_ns", "text", "data",
)  # fmt: skip
Row = tuple[Any, ...]  # in COLUMNS order

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,      -- call, return, stdout, stderr, crash, exit
    ts_ns INTEGER NOT NULL,  -- since the store opened (monotonic clock)
    thread INTEGER,
    function TEXT,
    file TEXT,
    line INTEGER,
    call_id INTEGER,         -- call and return rows of one call share it
    parent_id INTEGER,       -- the call_id of the recorded call it was made from
    depth INTEGER,           -- recorded calls open on the thread around it
    args TEXT,               -- JSON [[name, value], ...]
    retval TEXT,             -- NULL: void, or not returned
    duration_ns INTEGER,
    text TEXT,               -- program output, crash summary
    data TEXT                -- JSON details (crash: registers, backtrace, locals)
);
""" + CALLS_SCHEMA  # runs of leaf calls, a row per call (call_batch.py); queries read all_events
# Asked for by the first query (built once the writer has been idle INDEX_DELAY seconds,
# else INDEX_WAIT seconds later) or when a kept store closes, not while rows pour in: an
# indexed table took rows at a third of a plain one's rate (5 indexes updated per row). The
# first query does not wait for them: it scans (0.2 s for 1M calls, where building them took
# 1.8 to 3.3 s), and the queries right after it are not slowed by the build.
_INDEXES = """
CREATE INDEX IF NOT EXISTS events_kind ON events (kind, ts_ns);
CREATE INDEX IF NOT EXISTS events_function ON events (function, kind);
CREATE INDEX IF NOT EXISTS events_thread ON events (thread, ts_ns);
CREATE INDEX IF NOT EXISTS events_ts ON events (ts_ns);
CREATE INDEX IF NOT EXISTS events_duration ON events (duration_ns) WHERE duration_ns IS NOT NULL;
""" + CALLS_INDEXES
# Ids given here: a CallBatch's calls take theirs from the same count (`_next_id`).
_INSERT = f"INSERT INTO events (id, {', '.join(COLUMNS)}) VALUES ({', '.join('?' * (1 + len(COLUMNS)))})"
# A whole batch as one JSON parameter: SQLite unpacks it in one statement, without the GIL,
# where executemany takes and drops the GIL at every row and slows the tracer thread.
_INSERT_JSON = (
    f"INSERT INTO events (id, {', '.join(COLUMNS)}) SELECT "
    + ", ".join(f"json_extract(value, '$[{i}]')" for i in range(1 + len(COLUMNS)))
    + " FROM json_each(?)"
)


def default_directory() -> str:
    """$XDG_STATE_HOME/aliceserver/traces (~/.local/state/...), else the temp directory."""
    state = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    if not os.path.isabs(state):
        state = os.path.join(tempfile.gettempdir(), "aliceserver-state")
    return os.path.join(state, "aliceserver", "traces")


def purge_old(directory: str, retention: float = DEFAULT_RETENTION, now: float | None = None) -> list[str]:
    """Delete kept traces in `directory` last written more than `retention` seconds ago."""
    now = time.time() if now is None else now
    removed = []
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    for name in names:
        if not name.endswith(_SUFFIX):
            continue
        path = os.path.join(directory, name)
        try:
            if now - os.stat(path).st_mtime > retention:
                for extra in ("", "-wal", "-shm"):
                    if os.path.exists(path + extra):
                        os.remove(path + extra)
                removed.append(path)
        except OSError as error:
            log.warning("purging %s: %s", path, error)
    return removed


class TraceStore:
    def __init__(
        self,
        session: str,
        directory: str | None = None,
        *,
        keep: bool = False,
        retention: float = DEFAULT_RETENTION,
    ) -> None:
        self.directory = directory or default_directory()
        os.makedirs(self.directory, exist_ok=True)
        purge_old(self.directory, retention)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in session) or "session"
        self.path = os.path.join(self.directory, f"{safe}-{stamp}-{os.getpid()}{_SUFFIX}")
        self.keep = keep
        self.start_ns = time.monotonic_ns()
        self.started = time.time()
        self._pending: list[Row | CallBatch] = []
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._written = 0  # rows committed
        self._queued = 0  # rows ever appended
        self._closing = False
        self._flushing = 0  # threads waiting in flush(): the writer does not wait for more rows
        self._hurry = threading.Condition(self._lock)  # a flush began
        self._json = True
        self._indexed = False  # the secondary indexes exist (then every insert updates them)
        self._index_asked = 0.0  # monotonic time a query asked for them (0: not yet)
        self._next_id = 1  # the next event id (rows and calls: call_batch.py)
        self._db_lock = threading.Lock()  # the writer's connection: a transaction or an index build
        self._db = self._connect()
        self._db.executescript(_SCHEMA)
        self._db.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [("session", session), ("started", repr(self.started))],
        )
        self._writer = threading.Thread(target=self._write_loop, name="aliceserver-trace-store", daemon=True)
        self._writer.start()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA page_size=16384")  # before WAL: 1M calls' rows 6% less CPU than with 4 KiB
        db.execute("PRAGMA journal_mode=WAL")
        # A trace outlives no crash of the machine worth the fsyncs: OFF (NORMAL cost 10%).
        db.execute("PRAGMA synchronous=OFF")
        db.execute("PRAGMA cache_size=-65536")  # 64 MiB: a burst's pages stay in memory
        db.execute("PRAGMA temp_store=MEMORY")  # UNFOLD's and the index builds' sorting
        return db

    def now_ns(self) -> int:
        return time.monotonic_ns() - self.start_ns

    # --- writing --------------------------------------------------------------------
    def append(self, row: Row) -> None:
        with self._lock:
            self._pending.append(row)
            self._queued += 1
            if len(self._pending) == 1:
                self._wake.notify()

    def extend(self, rows: Sequence[Row]) -> None:
        with self._lock:
            self._pending.extend(rows)
            self._queued += len(rows)
            self._wake.notify()

    def add_calls(self, batch: CallBatch) -> None:
        """Calls and their returns in bulk (call_batch.py), after the rows queued so far."""
        with self._lock:
            self._pending.append(batch)
            self._queued += batch.rows
            self._wake.notify()

    def _write_loop(self) -> None:
        while True:
            with self._lock:
                while not self._pending and not self._closing and not self._index_due():
                    self._wake.wait(INDEX_DELAY / 4 if self._index_asked and not self._indexed else None)
                if not self._pending and self._closing:
                    return
            if self._index_due():
                self._build_indexes()
                continue
            with self._lock:  # let a burst gather into one transaction, unless a flush waits
                if self._queued - self._written < _GATHER and not self._flushing:  # a CallBatch: many rows
                    self._hurry.wait(_BATCH_DELAY)
            with self._lock:  # a bounded batch: encoding it holds the GIL (tracing threads wait)
                batch, self._pending = self._pending[:_MAX_BATCH], self._pending[_MAX_BATCH:]
            with self._db_lock:
                try:
                    self._db.execute("BEGIN")
                    self._insert(batch)
                    self._db.execute("COMMIT")
                except sqlite3.Error:
                    log.exception("trace store: %d events lost", len(batch))
                    if self._db.in_transaction:
                        self._db.execute("ROLLBACK")
            with self._lock:
                self._written += sum(item.rows if isinstance(item, CallBatch) else 1 for item in batch)
                self._wake.notify_all()

    def _insert(self, items: list[Row | CallBatch]) -> None:
        """The rows in order: runs of row tuples by executemany, call batches in bulk."""
        start = 0
        for index, item in enumerate(items):
            if isinstance(item, CallBatch):
                if start < index:
                    self._insert_rows(cast("list[Row]", items[start:index]))
                item.insert(self._db, self._next_id)
                self._next_id += item.rows
                start = index + 1
        if start < len(items):
            self._insert_rows(cast("list[Row]", items[start:]))

    def _insert_rows(self, batch: list[Row]) -> None:
        first = self._next_id
        self._next_id += len(batch)
        rows = [(ident, *row) for ident, row in enumerate(batch, first)]
        if not self._indexed:  # a plain table: executemany measured 1.7x the JSON path's rate
            self._db.executemany(_INSERT, rows)
            return
        if self._json:
            try:
                self._db.execute(_INSERT_JSON, (json.dumps(rows),))
                return
            except sqlite3.OperationalError:  # an SQLite built without JSON
                self._json = False
        self._db.executemany(_INSERT, rows)

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until every row appended so far is committed (queries see them then)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            target = self._queued
            self._flushing += 1
            self._hurry.notify()
            try:
                while self._written < target and self._writer.is_alive():
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError("the trace store did not catch up")
                    self._wake.wait(left)
            finally:
                self._flushing -= 1

    @property
    def counts(self) -> tuple[int, int]:
        """(rows appended, rows committed)."""
        with self._lock:
            return self._queued, self._written

    # --- reading --------------------------------------------------------------------
    def _index_due(self) -> bool:
        """Whether the writer builds the indexes now: asked for INDEX_DELAY seconds ago with
        nothing to write, or INDEX_WAIT seconds ago."""
        asked = self._index_asked
        waited = time.monotonic() - asked
        return (bool(asked) and not self._indexed and not self._closing
                and (not self._pending and waited > INDEX_DELAY or waited > INDEX_WAIT))  # fmt: skip

    def _build_indexes(self) -> None:
        try:
            self.ensure_indexes()
        except sqlite3.Error:
            log.exception("trace store: the indexes were not built (queries scan)")
            self._index_asked = 0.0
        with self._lock:
            self._wake.notify_all()

    def ensure_indexes(self) -> None:
        """The secondary indexes built over the rows so far (kept up to date from then on)."""
        if self._indexed:
            return
        with self._db_lock:
            if not self._indexed:
                self._db.executescript(_INDEXES)
                self._indexed = True

    def wait_indexed(self, timeout: float = 30.0) -> bool:
        """Wait until the indexes a query asked for are built; whether they are."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while not self._indexed and self._index_asked and self._writer.is_alive():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._wake.wait(left)
        return self._indexed

    def reader(self) -> sqlite3.Connection:
        """A connection for queries (WAL: it reads while the writer writes). The first
        asks the writer for the indexes and does not wait for them."""
        if not self._indexed and not self._index_asked:
            with self._lock:
                self._index_asked = time.monotonic()
                self._wake.notify_all()
        db = sqlite3.connect(self.path, check_same_thread=False)
        db.execute("PRAGMA query_only=ON")
        return db

    # --- ending ---------------------------------------------------------------------
    def close(self) -> None:
        """Write what is queued; delete the file unless it is kept."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            self._wake.notify_all()
        self._writer.join(timeout=30)
        if self.keep:  # a kept file is queried later, maybe by another tool: one table
            with self._db_lock:
                for statement in UNFOLD:
                    self._db.execute(statement)
            self.ensure_indexes()
        self._db.close()
        if not self.keep:
            for extra in ("", "-wal", "-shm"):
                try:
                    os.remove(self.path + extra)
                except FileNotFoundError:
                    pass
