"""Answers about a code address that its module's symbols alone decide (its line, its line
table row), kept while the modules stay as they are and read on the caller's thread.

MI's `*stopped` asks where the stop is and which line table row holds its pc, at every
stop: each question handed to the tracer thread and back costs a context switch or two,
and a loop's stops ask about the same few pcs. An answer is made on the tracer thread the
first time and found without a handoff after that, until a module is mapped, moved or
dropped (ProcessSymbols.generation) or the program is replaced (a new SourceSymbols).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from aliceserver.debuggers.source.sourcesymbols import SourceSymbols

T = TypeVar("T")

_MAX_KEPT = 4096  # addresses remembered; all are dropped when there are more


class PcAnswers(Generic[T]):
    def __init__(self, source: Callable[[], SourceSymbols], run_on_engine: Callable[[Callable[[], T]], T]) -> None:
        self._source = source
        self._run_on_engine = run_on_engine
        self._made_with: tuple[SourceSymbols, int] | None = None
        self._found: dict[int, T] = {}

    def answer(self, address: int, make: Callable[[], T]) -> T:
        """make()'s answer for `address`, made on the tracer thread when not known yet."""
        source = self._source()
        made_with = self._made_with
        if made_with is not None and made_with[0] is source and made_with[1] == source.symbols.generation:
            if address in self._found:
                return self._found[address]

        def go() -> T:
            # On the tracer thread, where the modules change: the layout read with the answer
            now = (source, source.symbols.generation)
            if self._made_with != now or len(self._found) >= _MAX_KEPT:
                self._found = {}
                self._made_with = now
            found = self._found[address] = make()
            return found

        return self._run_on_engine(go)
