"""Calls of one function on one thread, each a call and its return, written in bulk.

The drain (drain.py) meets most records as a call followed by its return (a leaf function:
nothing recorded between them). A run of those becomes one CallBatch instead of two row
tuples per call: the writer binds the varying columns (rdtsc stamps, call ids unless they
follow each other, and either the text formatted in Python or, for integers and pointers,
the register bits: recorded_sql.py) into INSERTs of ROWS calls each, whose VALUES make a
row of `calls` per call (both times in ns, the ids from the row's place, the values as the
formatters read them), and a row of `shapes` for what the batch shares (function, file,
line, the printf making the arguments' JSON and the return value's text). Staging them in
a temporary table first, then one INSERT ... SELECT, cost a third more (1M calls: 0.62 s
of the writer's CPU, 0.45 s now): every value went into a b-tree twice. The view
`all_events`, which queries read, shows each call as the two rows the drain writes one by
one into `events` (ids `id` and `id + 1`, the return at `end_ns`), its text made as it is
read: a row per call and no text to write, a sixth of the work of two rows. A kept store's
calls go into `events` as two rows each when it closes (UNFOLD), so that other tools
reading the file find every event in one table.
"""

from __future__ import annotations

import functools
import re
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from aliceserver.debuggers.ptrace.recorded_sql import SqlShape

ROWS: Final = 256  # calls per INSERT statement (fewer: more steps; more: a longer program)
_VALUES: Final = tuple(f"v{i}" for i in range(6)) + ("r",)
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
# The calls parts' counts where a filter reads only what a shape holds: its `calls`.
COUNTED_COLUMNS: Final = "kind, function, file, n"
COUNTED_PARTS: Final = (None, "SELECT 'call', function, file, calls FROM shapes",
                        "SELECT 'return', function, file, calls FROM shapes")  # fmt: skip
_UNION: Final = "\nUNION ALL\n"
CALLS_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS shapes (  -- what the calls of a batch share
    id INTEGER PRIMARY KEY, function TEXT, file TEXT, line INTEGER,
    template TEXT,  -- printf of the arguments' JSON from v0..v5 (NULL: args holds it)
    conversion TEXT,  -- printf of the return value from r (NULL: retval holds it, or void)
    calls INTEGER DEFAULT 0  -- its rows in calls (a count by function need not read them)
);
CREATE TABLE IF NOT EXISTS calls (  -- a call and its return, in one row (none NULL where
    -- the writer puts a value: NOT NULL would cost a check per column and row, 5% more)
    -- The call's event id (the return's is id + 1), not the rowid: rows given a rowid of
    -- their own are appended with no b-tree search (the ids go by twos), 15-25% less work.
    id INTEGER,
    ts_ns INTEGER,  -- the call's time; the return's is end_ns
    end_ns INTEGER, thread INTEGER, shape INTEGER, call_id INTEGER,
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
    "UPDATE shapes SET calls = 0",
)
# ns = base + int((ticks - ticks0) * scale), never before the thread's last row (`last`:
# stamps go up, so only where the first is before it). ?N: the stamp's parameter.
_SHARED: Final = ("base", "ticks", "scale", "last", "thread", "shape", "parent", "depth")  # ?3 .. ?10
_NS: Final = "?3 + CAST((?{} - ?4) * ?5 AS INTEGER)"
_NS_AFTER: Final = "max(?6, ?3 + CAST((?{} - ?4) * ?5 AS INTEGER))"
_SHAPE: Final = (
    "SELECT id FROM shapes WHERE function IS ? AND file IS ? AND line IS ? AND template IS ? AND conversion IS ?",
    "INSERT INTO shapes (function, file, line, template, conversion) VALUES (?, ?, ?, ?, ?)",
    "UPDATE shapes SET calls = calls + ? WHERE id = ?",
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
    values: tuple[list[int], ...] = ()  # v0.., then r (rax) if not void: as sql.formats read them, else the bits

    @property
    def rows(self) -> int:
        return 2 * len(self.ids)

    def insert(self, db: sqlite3.Connection, first: int) -> None:
        """Its calls into `calls`, the first with event id `first` (in the caller's
        transaction): ids first .. first + rows - 1."""
        sql = self.sql
        if sql is None:  # the text made here
            names: tuple[str, ...] = ("args", "retval")
            expressions: tuple[str, ...] = names
            columns: tuple[list[int] | list[str] | list[str | None], ...] = (
                self.arguments or [], self.returned or [])  # fmt: skip
            template, conversion = None, None
        else:  # the values kept (as the formatters read them), their text made by the view
            returns = sql.return_value
            names = _VALUES[: len(sql.arguments)] + (("r",) if returns is not None else ())
            expressions = names if sql.formats else (*sql.arguments, *([returns[1]] if returns is not None else []))
            columns = self.values
            template, conversion = sql.template, returns[0] if returns is not None else None
        shape = (self.function, self.file, self.line, template, conversion)
        found = db.execute(_SHAPE[0], shape).fetchone()
        shape_id = found[0] if found is not None else db.execute(_SHAPE[1], shape).lastrowid
        # Each bound value costs (the GIL held): the call ids, when they follow each other
        # (no trapped call took one meanwhile), and the ids come from the row's place.
        ids = self.ids
        serial = ids[-1] - ids[0] == len(ids) - 1
        ticks, base, scale = self.clock
        after = base + int((self.call_ticks[0] - ticks) * scale) < self.last_ns
        shared = (base, ticks, scale, self.last_ns, self.thread, shape_id, self.parent, self.depth)
        per_row = [self.call_ticks, self.return_ticks, *([] if serial else [ids]), *columns]
        _insert_rows(db, (names, expressions, serial, after), shared, first, ids[0], per_row)
        db.execute(_SHAPE[2], (len(ids), shape_id))


def _insert_rows(db: sqlite3.Connection, form: tuple[tuple[str, ...], tuple[str, ...], bool, bool], shared: tuple[Any, ...],
                 first: int, first_call: int, columns: Sequence[Sequence[Any]]) -> None:  # fmt: skip
    """`columns` (a value per call each) as rows of `calls`: ROWS calls per statement, the
    last ones in statements of fewer (powers of two: a few texts, each prepared once). The
    values are interleaved by slice assignment (C loops, no tuple per call)."""
    width, count = len(columns), len(columns[0])
    flat: list[Any] = [None] * (width * count)
    for place, column in enumerate(columns):
        flat[place::width] = column
    head = [first, first_call, *shared]

    def params(at: int, size: int) -> list[Any]:
        head[0], head[1] = first + 2 * at, first_call + at
        return head + flat[width * at : width * (at + size)]

    done = count - count % ROWS
    if done:
        db.executemany(_statement(ROWS, *form), (params(at, ROWS) for at in range(0, done, ROWS)))
    size = ROWS
    while done < count:
        size //= 2
        if count - done >= size:
            db.execute(_statement(size, *form), params(done, size))
            done += size


@functools.cache
def _statement(rows: int, names: tuple[str, ...], expressions: tuple[str, ...], serial: bool, after: bool) -> str:
    """INSERT of `rows` calls: ?1 the first event id, ?2 the first call id, ?3.. _SHARED,
    then each call's values (both stamps, its call id unless serial, the raw values of
    `names`), each column of `names` the expression of the same place over them."""
    ns = _NS_AFTER if after else _NS
    width = 2 + (not serial) + len(names)
    shared = len(_SHARED) + 3
    read = re.compile(r"\b(" + "|".join(names) + r")\b")
    values = []
    for row in range(rows):
        at = shared + width * row
        call_id = f"?2 + {row}" if serial else f"?{at + 2}"
        place = {name: f"?{at + width - len(names) + i}" for i, name in enumerate(names)}
        own = "".join(", " + read.sub(lambda found: place[found[1]], e) for e in expressions)  # noqa: B023
        values.append(f"(?1 + {2 * row}, {ns.format(at)}, {ns.format(at + 1)}, ?7, ?8, {call_id}, ?9, ?10{own})")
    columns = "".join(", " + n for n in names)
    return (f"INSERT INTO calls (id, ts_ns, end_ns, thread, shape, call_id, parent_id, depth{columns}) VALUES "
            + ", ".join(values))  # fmt: skip
