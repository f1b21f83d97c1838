"""Values a pretty printer shows, in DAP's variables: the printer's head is the value line
(gdb's to_string, as gdb's own DAP server shows it), its children follow the display hint
(`array`: indexed and paged, `map`: one `[key]` row per key/value pair, paged by pairs,
`string`: none), others are named as the printer names them; a `[raw]` child holds the
value's own members."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.dap.handles import ValueRef
from aliceserver.adapters.dap.messages import JsonObject
from aliceserver.debuggers.model import PrinterView, VariableInfo

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

RAW = "[raw]"


def shown_value(info: VariableInfo) -> str:
    view = info.printer
    if view is None:
        return info.value
    if view.head:
        return view.head
    return "{...}" if view.has_children else info.value


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
            for key, value in zip(kids[::2], kids[1::2], strict=False):
                row = variable_json(session, value, ref.frame, None)
                row["name"] = f"[{shown_value(key) if key.printer and key.printer.hint == 'string' else key.value}]"
                rows.append(row)
        else:
            rows = [variable_json(session, kid, ref.frame, None) for kid in kids]
        if wanted is None and count and len(rows) >= count:
            return rows  # a page before the end: `[raw]` comes last
    if view.raw_reference and wanted != "indexed":
        raw = ValueRef(ref.frame, view.raw_reference, ref.expression, ref.pointer)
        rows.append({"name": RAW, "value": view.raw_value or "{...}",
                     "variablesReference": session.handles.variable_id(raw)})  # fmt: skip
        if ref.expression:
            rows[-1]["evaluateName"] = ref.expression
    return rows
