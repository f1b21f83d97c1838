"""A printer's value as the front ends browse it (DAP variables, MI var objects, agent
tools): its head (to_string), display hint and children, counted without walking the
container where its printer says the size, and read one page at a time.

Called inside a printer call (context.entered), as render.py.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from typing import Any

from aliceserver.debuggers.model import PrinterView
from aliceserver.debuggers.printers import context
from aliceserver.debuggers.printers.gdbvalue import LazyString, Value, from_python
from aliceserver.debuggers.printers.paging import Cursor
from aliceserver.debuggers.printers.paging import items as paged_items
from aliceserver.debuggers.printers.render import (
    ChildText,
    _hint,
    _string_repr,
    error_text,
    find_printer,
    lazy_string_text,
    render,
    reported,
)
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions
from aliceserver.debuggers.symbols.dwarf.values import Value as DwarfValue

# Counted by walking the children when the printer does not say the size: a longer list
# shows this many (lldb's formatters cap their walks the same way).
COUNT_LIMIT = 10_000
_MAX_COUNT = (1 << 31) - 1  # clients keep indexedVariables in an int32
# The size libstdc++'s and Rust's printers put in their heads: `std::vector of length 3,
# capacity 3`, `std::map with 2 elements`, `std::unordered_map with 1 element`, `Vec(size=3)`.
_SIZE = re.compile(r"(?:\bof length |\bwith |\(size=)(\d+)(?: elements?\b|,|\)|$)")


@dataclass(frozen=True, slots=True)
class Child:
    """One item of a printer's children: a value, or text the printer gave (a str)."""

    name: str
    value: DwarfValue | None
    text: str | None = None


def printer_of(value: DwarfValue) -> Any:
    try:
        return find_printer(context.current().session, Value(value))
    except Exception:  # a failing lookup function: the value shows raw, as gdb
        return None


def view(value: DwarfValue, opts: FormatOptions, child: ChildText, *, count: bool) -> PrinterView | None:
    """The printer's view of `value`, or None when no printer takes it; `count`: count
    its children (else `count` stays None: frame lines need no count)."""
    printer = printer_of(value)
    if printer is None:
        return None
    hint = _hint(printer)
    try:
        head = _string_repr(printer, hint, 0, opts, child)
    except Exception as exc:  # as print: a memory error's text, else nothing (gdb's var object)
        head = reported(exc)
    summary = render(value, 0, replace(opts, summary=True), child) or head
    has_children = hasattr(printer, "children")
    first = _first_name(printer) if has_children else None
    indexed = hint in ("array", "map") or first == "[0]"
    number = None
    if count and has_children:
        number = 0 if first is None else _count(printer, head, hint)
    return PrinterView(head, summary, hint, has_children, number, indexed)


def _first_name(printer: Any) -> str | None:
    try:
        item = context.current().run(lambda: next(iter(printer.children()), None))
    except Exception:
        return ""  # children that fail: one error child shows
    if isinstance(item, tuple) and item and isinstance(item[0], str):
        return item[0]
    return None if item is None else ""


def _count(printer: Any, head: str, hint: str | None) -> int:
    call = context.current()
    said = _said_size(printer, head)
    if said is not None:
        return said
    walked = 0
    limit = COUNT_LIMIT * (2 if hint == "map" else 1)
    try:
        items = call.run(lambda: itertools.islice(printer.children(), limit))
        while call.run(lambda: next(items, None)) is not None:
            call.check_time()
            walked += 1
    except Exception:
        walked += 1  # the error shows as one more child
    return (walked + 1) // 2 if hint == "map" else walked


def _said_size(printer: Any, head: str | None) -> int | None:
    """The count of children the printer says: its num_children (gdb 14's API) or the size
    in its head (`head` None: asked for here); None where it says none."""
    call = context.current()
    if hasattr(printer, "num_children"):
        try:
            return min(int(call.run(printer.num_children)), _MAX_COUNT)
        except Exception:
            pass
    if head is None:
        try:
            text = call.run(printer.to_string) if hasattr(printer, "to_string") else None
        except Exception:
            return None
        head = text if isinstance(text, str) else ""
    found = _SIZE.search(head)
    return None if found is None else min(int(found.group(1)), _MAX_COUNT)


def page(
    value: DwarfValue, start: int, count: int | None, opts: FormatOptions, cursor: Cursor | None = None
) -> list[Child]:
    """Items `start` .. `start + count` of the printer's children (all when count is
    None); only those are made (a vector's elements before `start` are never read).
    `cursor`: kept from the value's last page, so this one continues from there."""
    if cursor is None or cursor.printer is None:
        cursor = cursor or Cursor()
        cursor.printer = printer_of(value)
    printer = cursor.printer
    if printer is None or not hasattr(printer, "children"):
        return []
    out: list[Child] = []
    if count is None:  # all of them: within a bound (a printer's generator may never end)
        count = COUNT_LIMIT * 2
    try:
        for item in paged_items(cursor, value, start, count, lambda: _said_size(printer, None)):
            out.append(_child(item, start + len(out), opts))
    except Exception as exc:
        out.append(Child(f"[{start + len(out)}]", None, error_text(exc)))
    return out


def _child(item: Any, index: int, opts: FormatOptions) -> Child:
    if not isinstance(item, tuple) or len(item) != 2 or not isinstance(item[0], str):
        return Child(f"[{index}]", None, "<error: Result of children iterator not a tuple of two strings.>")
    name, obj = item
    try:
        if isinstance(obj, LazyString):
            return Child(name, None, lazy_string_text(obj, opts))
        if isinstance(obj, str):
            return Child(name, None, obj)
        return Child(name, from_python(obj))
    except Exception as exc:
        return Child(name, None, error_text(exc))
