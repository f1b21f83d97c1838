"""Values a pretty printer shows, in DAP's variables: the printer's head is the value line
(gdb's to_string, as gdb's own DAP server shows it), its children follow the display hint
(`array`: indexed and paged, `map`: one `[key]` row per key/value pair, paged by pairs,
`string`: none), others are named as the printer names them; a `[raw]` child holds the
value's own members."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from aliceserver.adapters.dap.handles import ValueRef
from aliceserver.adapters.dap.messages import JsonObject
from aliceserver.adapters.dap.shapes import child_expression
from aliceserver.debuggers.model import PrinterView, VariableInfo
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

RAW = "[raw]"
_SUBSCRIPT = re.compile(r"\[.+\]")  # `[3]`, `["b"]`: an index or a key


def shown_value(info: VariableInfo) -> str:
    """A printer that raised (info.printer_errors): gdb prints its `Python Exception` line on
    its error stream and the value raw (construction) or empty (to_string); DAP has no gdb
    to match and no error stream per value, so the raw value shows (the exception is in our
    log, and `[raw]` or the members remain to browse)."""
    view = info.printer
    if view is None:
        return info.value
    if view.head:
        return view.head
    if view.has_children:
        return "{...}"
    return view.raw_value if not info.value and info.printer_errors and view.raw_value else info.value


def _subscripts(session: DapSession, ref: ValueRef, named: list[tuple[str, VariableInfo]]) -> list[str | None]:
    """evaluateName of each child named `[index]` or `[key]`: the container's expression
    subscripted (`v[3]`, through the class's operator[] xmethod), where the page's first
    child evaluates so to the same value; None where nothing names the children (a
    std::list or std::map has no such operator[] here, as in gdb)."""
    none: list[str | None] = [None] * len(named)
    if not ref.expression or not named:
        return none
    wanted = [child_expression(ref.expression, False, name) if _SUBSCRIPT.fullmatch(name) else None
              for name, _ in named]  # fmt: skip
    first = next((i for i, expression in enumerate(wanted) if expression and not named[i][1].error), None)
    if first is None:
        return none
    kid, frame = named[first][1], ref.frame
    try:
        found = session.debugger.evaluate(wanted[first] or "", frame.thread_id if frame else None,
                                          frame.level if frame else 0, dynamic=session.state.dynamic,
                                          calls=False)  # (a Rust `m["key"]` would copy its text into the program)
    except AliceError:
        return none
    same = (found.value, found.type, found.address) == (kid.value, kid.type, kid.address)
    return wanted if same and not found.error else none


def child_counts(view: PrinterView) -> tuple[int, int]:
    """(named, indexed) children: the printer's and the `[raw]` one."""
    raw = 1 if view.raw_reference else 0
    count = view.count or 0
    return (raw, count) if view.indexed else (count + raw, 0)


def children(
    session: DapSession, ref: ValueRef, view: PrinterView, wanted: str | None, start: int, count: int
) -> list[JsonObject]:
    from aliceserver.adapters.dap.inspection import variable_json

    rows: list[JsonObject] = []
    if not (view.indexed and wanted == "named") and not (not view.indexed and wanted == "indexed"):
        pairs = view.hint == "map"
        step = 2 if pairs else 1
        kids = session.debugger.variable_children(ref.engine_reference, start * step,
                                                  count * step if count else None)  # fmt: skip
        if pairs:
            named = [(f"[{shown_value(key) if key.printer and key.printer.hint == 'string' else key.value}]", value)
                     for key, value in zip(kids[::2], kids[1::2], strict=False)]  # fmt: skip
        else:
            named = [(kid.name, kid) for kid in kids]
        expressions = _subscripts(session, ref, named)
        for (name, kid), expression in zip(named, expressions, strict=True):
            row = variable_json(session, kid, ref.frame, expression)
            row["name"] = name
            rows.append(row)
        if wanted is None and count and len(rows) >= count:
            return rows  # a page before the end: `[raw]` comes last
    if view.raw_reference and wanted != "indexed":
        raw = ValueRef(ref.frame, view.raw_reference, ref.expression, ref.pointer)
        # No evaluateName: the expression shows the value through its printer, not raw.
        rows.append({"name": RAW, "value": view.raw_value or "{...}",
                     "variablesReference": session.handles.variable_id(raw)})  # fmt: skip
    return rows
