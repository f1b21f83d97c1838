"""PcAnswers (source/pcanswers.py): an address's answer is made on the engine's thread once
and then found without a handoff, until the modules change or the program is replaced."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from aliceserver.debuggers.source.pcanswers import PcAnswers
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols


@dataclass
class Layout:
    generation: int = 0


@dataclass
class Source:
    symbols: Layout = field(default_factory=Layout)


class Engine:
    """Counts the handoffs to the engine's thread."""

    def __init__(self) -> None:
        self.handoffs = 0
        self.source = Source()

    def run_on_engine(self, fn: Callable[[], str]) -> str:
        self.handoffs += 1
        return fn()


def test_an_answer_is_made_once_while_the_modules_stay() -> None:
    engine = Engine()
    answers: PcAnswers[str] = PcAnswers(lambda: cast(SourceSymbols, engine.source), engine.run_on_engine)
    made: list[int] = []

    def line_of(address: int) -> str:
        made.append(address)
        return f"line {address & 0xFF}"

    assert answers.answer(0x401010, lambda: line_of(0x401010)) == "line 16"
    assert answers.answer(0x401010, lambda: line_of(0x401010)) == "line 16"
    assert answers.answer(0x401020, lambda: line_of(0x401020)) == "line 32"
    assert (made, engine.handoffs) == ([0x401010, 0x401020], 2)
    engine.source.symbols.generation += 1  # a library mapped: every address is asked again
    answers.answer(0x401010, lambda: line_of(0x401010))
    answers.answer(0x401010, lambda: line_of(0x401010))
    engine.source = Source()  # a new program (exec, run again): its own symbols
    answers.answer(0x401010, lambda: line_of(0x401010))
    assert (made, engine.handoffs) == ([0x401010, 0x401020, 0x401010, 0x401010], 4)


def test_a_failed_answer_is_not_kept() -> None:
    engine = Engine()
    answers: PcAnswers[str] = PcAnswers(lambda: cast(SourceSymbols, engine.source), engine.run_on_engine)

    def fails() -> str:
        raise ValueError("no line table")

    for _ in range(2):
        try:
            answers.answer(0x10, fails)
        except ValueError:
            pass
    assert engine.handoffs == 2
