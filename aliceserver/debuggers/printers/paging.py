"""Pages of a printer's children, read from where the last page of the same value stopped.

A client scrolling a container asks page after page: each page continues the children
iterator kept from the one before (a cursor per printed value, dropped when the program
moves or its memory is written), so page n costs one page, not n. A page far past the
cursor is read by index where the printer's maintainers offer indexing: the printer's own
`child(n)` (gdb's API, with its `num_children`), or, for an `array` printer, its class's
`operator[]` xmethod once that gives the same first children as the printer's iterator
(a std::deque's elements are not contiguous, its operator[] still finds them). Elsewhere
(a std::map) the iterator is walked, as gdb and lldb walk theirs.

Called inside a printer call (context.entered), as children.py.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from aliceserver.debuggers.printers import context
from aliceserver.debuggers.printers.gdbvalue import Value, from_python
from aliceserver.debuggers.symbols.dwarf.types import type_name
from aliceserver.debuggers.symbols.dwarf.values import Value as DwarfValue

Item = Any  # what a children iterator yields: (name, value) as the printer made it
Indexer = Callable[[int], Item]
_CHECKED = 2  # first children compared between an operator[] xmethod and the iterator


@dataclass
class Cursor:
    """A printer's children iterator kept between pages of one value at one stop."""

    printer: Any = None  # None: not looked up yet
    items: Iterator[Item] | None = None
    position: int = 0  # index of the item `items` gives next
    # (how to read child n, how many children) where the printer offers indexing;
    # None: not looked for yet, False: none
    indexer: tuple[Indexer, int] | bool | None = None


def items(cursor: Cursor, value: DwarfValue, start: int, count: int, size: Callable[[], int | None]) -> Iterator[Item]:
    """The printer's items `start` .. `start + count`, by index when the cursor is further
    than a page away and the printer offers indexing, else from its iterator (continued
    from the cursor when it stands at or before `start`). `size`: the printer's count of
    children where it says it, else None (indexing then stays unused)."""
    call = context.current()
    behind = start - cursor.position if cursor.items is not None and cursor.position <= start else start
    if behind > count:
        indexed = _indexer(cursor, value, size)
        if indexed is not None:
            index, total = indexed
            for n in range(start, min(start + count, total)):
                call.check_time()
                yield call.run(lambda n=n: index(n))  # type: ignore[misc]
            return
    if cursor.items is None or cursor.position > start:
        cursor.items, cursor.position = call.run(lambda: iter(cursor.printer.children())), 0
    source = cursor.items
    try:
        if start > cursor.position:  # skipped without keeping the items
            call.run(lambda: next(itertools.islice(source, start - cursor.position - 1, None), None))
            cursor.position = start
        for _ in range(count):
            call.check_time()
            try:
                item = call.run(lambda: next(source))
            except StopIteration:
                return
            cursor.position += 1
            yield item
    except Exception:
        cursor.items = None  # a failed iterator is not continued
        raise


def _indexer(cursor: Cursor, value: DwarfValue, size: Callable[[], int | None]) -> tuple[Indexer, int] | None:
    if cursor.indexer is None:
        cursor.indexer = _find_indexer(cursor.printer, value, size) or False
    return cursor.indexer if isinstance(cursor.indexer, tuple) else None


def _find_indexer(printer: Any, value: DwarfValue, size: Callable[[], int | None]) -> tuple[Indexer, int] | None:
    call = context.current()
    try:
        if callable(getattr(printer, "child", None)) and callable(getattr(printer, "num_children", None)):
            return printer.child, int(call.run(printer.num_children))
        if _hint(printer) != "array":
            return None
        total = size()
        subscript = _subscript(value)
        if total is None or subscript is None or not _agrees(printer, subscript, total):
            return None
        return subscript, total
    except Exception:  # a printer or xmethod failing here: the iterator is walked instead
        return None


def _hint(printer: Any) -> str | None:
    hint = context.current().run(printer.display_hint) if hasattr(printer, "display_hint") else None
    return hint if isinstance(hint, str) else None


def _subscript(value: DwarfValue) -> Indexer | None:
    from aliceserver.debuggers.printers.xmethods import subscript_worker

    worker = subscript_worker(context.current(), value)
    if worker is None:
        return None
    return lambda n: (f"[{n}]", Value(worker(from_python(n))))


def _agrees(printer: Any, subscript: Indexer, total: int) -> bool:
    """Whether operator[] gives the iterator's first children: the same names, and the same
    objects (address and type) or, for values made up, the same bytes."""
    call = context.current()
    first = call.run(lambda: list(itertools.islice(printer.children(), min(total, _CHECKED))))
    for n, item in enumerate(first):
        if not isinstance(item, tuple) or len(item) != 2:
            return False
        name, mine = subscript(n)
        theirs = from_python(item[1])
        ours = from_python(mine)
        if item[0] != name or type_name(theirs.type) != type_name(ours.type):
            return False
        if theirs.address is not None or ours.address is not None:
            if theirs.address != ours.address:
                return False
        elif theirs.data() != ours.data():
            return False
    return len(first) == min(total, _CHECKED)
