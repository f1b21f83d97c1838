"""Counting the items the pretty printers' children iterators give, as they are pulled:
a page of a ten-million-item container must read only itself from the printer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


def count_pulled_children(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on (until the test ends), every printer the engine finds counts the children
    it gives in the returned one-item list; a test sets it to 0 before what it measures."""
    from aliceserver.debuggers.printers import children as module

    count = [0]
    original = module.printer_of

    class Counting:
        def __init__(self, printer: Any) -> None:
            self._printer = printer

        def __getattr__(self, name: str) -> Any:
            return getattr(self._printer, name)

        def children(self) -> Iterator[Any]:
            for item in self._printer.children():
                count[0] += 1
                yield item

    def counting(value: Any) -> Any:
        printer = original(value)
        return None if printer is None else Counting(printer)

    monkeypatch.setattr(module, "printer_of", counting)
    return count
