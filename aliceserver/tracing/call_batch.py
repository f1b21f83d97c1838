"""Calls of one function on one thread, each a call and its return, written in bulk.

The drain (drain.py) meets most records as a call followed by its return (a leaf function:
nothing recorded between them). A run of those becomes one CallBatch instead of two row
tuples per call: the writer stages the varying columns (rdtsc stamps, call ids unless they
follow each other, and either the text formatted in Python or, for integers and pointers,
the register bits: recorded_sql.py) in a temporary table, 64 rows per statement, and one
INSERT ... SELECT makes a row of `calls` per call: both times, the values as the
formatters read them, and a row of `shapes` for what the batch shares (function, file,
line, the printf making the arguments' JSON and the return value's text). The view
`all_events`, which queries read, shows each call as the two rows the drain writes one by
one into `events` (ids `id` and `id + 1`, the return at `end_ns`), its text made as it is
read: a row per call and no text to write, a sixth of the work of two rows. A kept store's
calls go into `events` as two rows each when it closes (UNFOLD), so that other tools
reading the file find every event in one table.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from aliceserver.debuggers.ptrace.recorded_sql import SqlShape

STAGED: Final = 64  # rows staged by one INSERT statement
_VALUES: Final = tuple(f"v{i}" for i in range(6)) + ("r",)
_PAIRS: Final = (  # statements, not a script: executescript would commit the transaction
    "CREATE TEMP TABLE IF NOT EXISTS pairs (call_id INTEGER, cts INTEGER, rts INTEGER,"
    f" args TEXT, retval TEXT, {', '.join(f'{v} INTEGER' for v in _VALUES)})",
)
_EVENT: Final = "thread, function, file, line, call_id, parent_id, depth"
_CALL: Final = "c.thread, s.function, s.file, s.line, c.call_id, c.parent_id, c.depth"
_ARGS: Final = f"printf(s.template, {', '.join(f'c.{v}' for v in _VALUES[:-1])})"
# The view's parts: one per table, and a call row twice (its call, its return). A count
# runs them one by one (query.py): on the view, SQLite reads every part of every row.
EVENT_COLUMNS: Final = f"id, kind, ts_ns, {_EVENT}, args, retval, duration_ns, text, data"
EVENT_PARTS: Final = (
    f"SELECT {EVENT_COLUMNS} FROM events",
    f"""SELECT c.id, 'call', c.ts_ns, {_CALL}, coalesce(c.args, {_ARGS}), NULL, NULL, NULL, NULL
FROM calls AS c JOIN shapes AS s ON s.id = c.shape""",
    f"""SELECT c.id + 1, 'return', c.end_ns, {_CALL}, NULL, coalesce(c.retval, printf(s.conversion, c.r)),
       c.end_ns - c.ts_ns, NULL, NULL
FROM calls AS c JOIN shapes AS s ON s.id = c.shape""",
)
_UNION: Final = "\nUNION ALL\n"
CALLS_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS shapes (  -- what the calls of a batch share
    id INTEGER PRIMARY KEY, function TEXT, file TEXT, line INTEGER,
    template TEXT,  -- printf of the arguments' JSON from v0..v5 (NULL: args holds it)
    conversion TEXT  -- printf of the return value from r (NULL: retval holds it, or void)
);
CREATE TABLE IF NOT EXISTS calls (  -- a call and its return, in one row
    id INTEGER PRIMARY KEY,  -- the call's event id; the return's is id + 1
    ts_ns INTEGER NOT NULL,  -- the call's time; the return's is end_ns
    end_ns INTEGER NOT NULL, thread INTEGER, shape INTEGER NOT NULL, call_id INTEGER,
    parent_id INTEGER, depth INTEGER,
    args TEXT, retval TEXT,  -- formatted here, or made from the values by the shape's printf
    {', '.join(f'{v} INTEGER' for v in _VALUES)}  -- the values, as the formatters read them
);
CREATE VIEW IF NOT EXISTS all_events AS
{_UNION.join(EVENT_PARTS)};
"""
CALLS_INDEXES: Final = """
CREATE INDEX IF NOT EXISTS calls_shape ON calls (shape, ts_ns);
CREATE INDEX IF NOT EXISTS calls_thread ON calls (thread, ts_ns);
CREATE INDEX IF NOT EXISTS calls_ts ON calls (ts_ns);
CREATE INDEX IF NOT EXISTS calls_end ON calls (end_ns);
"""
UNFOLD: Final = (
    "INSERT INTO events (id, kind, ts_ns, thread, function, file, line, call_id, parent_id, depth, args,"
    " retval, duration_ns) SELECT id, kind, ts_ns, thread, function, file, line, call_id, parent_id, depth,"
    " args, retval, duration_ns FROM all_events WHERE id NOT IN (SELECT id FROM events)",
    "DELETE FROM calls",
)
# ns = base + int((ticks - ticks0) * scale), never before the thread's last row (`last`:
# stamps go up, so only where the first is before it).
_NS: Final = ":base + CAST(({} - :ticks) * :scale AS INTEGER)"
_NS_AFTER: Final = f"max(:last, {_NS})"
_EXPAND: Final = """
INSERT INTO calls (id, ts_ns, end_ns, thread, shape, call_id, parent_id, depth{columns})
SELECT :first + 2 * k, {call}, {ret}, :thread, :shape, {call_id}, :parent, :depth{values}
FROM (SELECT *, rowid - (SELECT min(rowid) FROM temp.pairs) AS k FROM temp.pairs)
"""
_SHAPE: Final = (
    "SELECT id FROM shapes WHERE function IS ? AND file IS ? AND line IS ? AND template IS ? AND conversion IS ?",
    "INSERT INTO shapes (function, file, line, template, conversion) VALUES (?, ?, ?, ?, ?)",
)


@dataclass(frozen=True, slots=True)
class CallBatch:
    thread: int
    function: str
    file: str | None
    line: int | None
    parent: int | None  # the recorded call open around every one of them
    depth: int
    clock: tuple[int, int, float]  # ticks, ns (store time), ns per tick
    last_ns: int  # the thread's last row time before them
    ids: list[int]
    call_ticks: list[int]
    return_ticks: list[int]
    arguments: list[str] | None = None  # JSON, as the drain's rows have them; None: `sql`
    returned: list[str | None] | None = None
    sql: SqlShape | None = None  # the text made by SQLite from `values`
    values: tuple[list[int], ...] = ()  # v0.. (the arguments' bits), then r (rax) if not void

    @property
    def rows(self) -> int:
        return 2 * len(self.ids)

    def insert(self, db: sqlite3.Connection, first: int) -> None:
        """Its calls into `calls`, the first with event id `first` (in the caller's
        transaction): ids first .. first + rows - 1."""
        for statement in _PAIRS:
            db.execute(statement)
        sql = self.sql
        if sql is None:  # the text made here
            names: tuple[str, ...] = ("args", "retval")
            columns: tuple[list[int] | list[str] | list[str | None], ...] = (
                self.arguments or [], self.returned or [])  # fmt: skip
            values, template, conversion = ", args, retval", None, None
        else:  # the values kept (as the formatters read them), their text made by the view
            returns = sql.return_value
            names = _VALUES[: len(sql.arguments)] + (("r",) if returns is not None else ())
            columns = self.values
            values = "".join(", " + v for v in [*sql.arguments, *([returns[1]] if returns is not None else [])])
            template, conversion = sql.template, returns[0] if returns is not None else None
        shape = (self.function, self.file, self.line, template, conversion)
        found = db.execute(_SHAPE[0], shape).fetchone()
        shape_id = found[0] if found is not None else db.execute(_SHAPE[1], shape).lastrowid
        # Each bound value costs (the GIL held): the call ids, when they follow each other
        # (no trapped call took one meanwhile), and the positions come from the row number.
        ids = self.ids
        serial = ids[-1] - ids[0] == len(ids) - 1
        staged = names if serial else ("call_id", *names)
        _stage(db, f"INSERT INTO temp.pairs ({', '.join(('cts', 'rts', *staged))}) VALUES ",
               [self.call_ticks, self.return_ticks, *([] if serial else [ids]), *columns])
        ticks, base, scale = self.clock
        parameters = {
            "last": self.last_ns, "base": base, "ticks": ticks, "scale": scale, "thread": self.thread,
            "shape": shape_id, "parent": self.parent, "depth": self.depth, "first": first,
            "first_call": ids[0],
        }  # fmt: skip
        ns = _NS if base + int((self.call_ticks[0] - ticks) * scale) >= self.last_ns else _NS_AFTER
        expand = _EXPAND.format(call=ns.format("cts"), ret=ns.format("rts"), columns="".join(", " + n for n in names),
                                values=values, call_id=":first_call + k" if serial else "call_id")  # fmt: skip
        db.execute(expand, parameters)
        db.execute("DELETE FROM temp.pairs")

def _stage(db: sqlite3.Connection, insert: str, columns: Sequence[Sequence[Any]]) -> None:
    """`columns` as rows of temp.pairs, STAGED rows per statement: executemany's cost is
    per row (binding, a step), a third of it with one statement per row."""
    width, count = len(columns), len(columns[0])
    values = "(" + ", ".join("?" * width) + ")"
    flat = itertools.chain.from_iterable(zip(*columns, strict=True))
    whole = count - count % STAGED
    if whole:
        rows = itertools.islice(flat, whole * width)
        db.executemany(insert + ", ".join([values] * STAGED), zip(*[rows] * (STAGED * width), strict=True))
    if count > whole:
        db.execute(insert + ", ".join([values] * (count - whole)), tuple(flat))
