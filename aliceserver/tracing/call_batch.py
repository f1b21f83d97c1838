"""Calls of one function on one thread, each a call and its return, written in bulk.

The drain (drain.py) meets most records as a call followed by its return (a leaf function:
nothing recorded between them). A run of those becomes one CallBatch instead of two row
tuples per call: the writer puts the varying columns (call id, rdtsc stamps, and either the
formatted arguments and return value or, for integers and pointers, their raw register
bits: recorded_sql.py) into a temporary table in one executemany, and SQLite makes the
events rows (constant columns, times from the clock's line, durations, the values' text)
in one INSERT ... SELECT: the rows the drain writes one by one, at several times the rate.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Final

from aliceserver.debuggers.ptrace.recorded_sql import SqlShape

_VALUES: Final = tuple(f"v{i}" for i in range(6)) + ("r",)
_PAIRS: Final = (  # statements, not a script: executescript would commit the transaction
    "CREATE TEMP TABLE IF NOT EXISTS pairs (call_id INTEGER, cts INTEGER, rts INTEGER,"
    f" args TEXT, retval TEXT, {', '.join(f'{v} INTEGER' for v in _VALUES)})",
    "CREATE TEMP TABLE IF NOT EXISTS parts (part INTEGER PRIMARY KEY)",
    "INSERT OR IGNORE INTO temp.parts VALUES (0), (1)",
)
# ns = base + int((ticks - ticks0) * scale), never before the thread's last row (`last`:
# stamps go up, so only where the first is before it).
_NS: Final = ":base + CAST(({} - :ticks) * :scale AS INTEGER)"
_NS_AFTER: Final = f"max(:last, {_NS})"
_EXPAND: Final = """
INSERT INTO events (kind, ts_ns, thread, function, file, line, call_id, parent_id, depth, args,
                    retval, duration_ns)
SELECT CASE part WHEN 0 THEN 'call' ELSE 'return' END,
       CASE part WHEN 0 THEN {call} ELSE {ret} END,
       :thread, :function, :file, :line, call_id, :parent, :depth,
       CASE part WHEN 0 THEN {args} END, CASE part WHEN 1 THEN {retval} END,
       CASE part WHEN 1 THEN {ret} - {call} END
FROM temp.pairs CROSS JOIN temp.parts ORDER BY pairs.rowid, part
"""


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

    def insert(self, db: sqlite3.Connection) -> None:
        """Its rows into `events` (in the caller's transaction)."""
        for statement in _PAIRS:
            db.execute(statement)
        sql = self.sql
        if sql is None:
            names: tuple[str, ...] = ("args", "retval")
            columns: tuple[list[int] | list[str] | list[str | None], ...] = (
                self.arguments or [], self.returned or [])  # fmt: skip
            args, retval = "args", "retval"
        else:
            names = _VALUES[: len(sql.arguments)] + (("r",) if sql.returned != "NULL" else ())
            columns = self.values
            args = f"printf(:template{''.join(', ' + a for a in sql.arguments)})"
            retval = sql.returned
        db.executemany(
            f"INSERT INTO temp.pairs (call_id, cts, rts, {', '.join(names)})"
            f" VALUES ({', '.join('?' * (3 + len(names)))})",
            zip(self.ids, self.call_ticks, self.return_ticks, *columns, strict=True),
        )
        ticks, base, scale = self.clock
        parameters = {
            "last": self.last_ns, "base": base, "ticks": ticks, "scale": scale,
            "thread": self.thread, "function": self.function, "file": self.file,
            "line": self.line, "parent": self.parent, "depth": self.depth,
        }  # fmt: skip
        if sql is not None:
            parameters["template"] = sql.template
        ns = _NS if base + int((self.call_ticks[0] - ticks) * scale) >= self.last_ns else _NS_AFTER
        expand = _EXPAND.format(call=ns.format("cts"), ret=ns.format("rts"), args=args, retval=retval)
        db.execute(expand, parameters)
        db.execute("DELETE FROM temp.pairs")
