"""A DAP logpoint's message (`i is {i}`), rendered at each hit of its trap, and offered to
an engine that may print it from records of its values written by the program
(debuggers/logpoints.py).

Only a message whose expressions are all plain integers (signed or unsigned base types, not
characters nor booleans, whose description is the bare number) is offered, and only once a
trap's hit has shown each expression's type: a record holds numbers, and the number with the
type seen at the trap gives the text the trap's description gives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.logpoints import LogSpec
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, strip
from aliceserver.debuggers.symbols.dwarf.values import Value

_PLAIN = (Encoding.SIGNED, Encoding.UNSIGNED)


@dataclass(eq=False)
class LogMessage:
    """One logpoint's message: literal parts and expressions (split_log_message's)."""

    parts: list[tuple[str, bool]]
    evaluate: Callable[[str, int], tuple[Value, str]]  # (value, description) in a thread
    condition_of: Callable[[str], BreakpointCondition]  # the engine's expression condition
    # an expression part's index -> the value last shown there when a plain integer, else None
    _shown: dict[int, Value | None] = field(default_factory=dict)
    _spec: LogSpec | None = None

    def render(self, tid: int) -> str:
        """The message at a trap's hit in thread `tid`."""
        pieces = []
        for index, (text, is_expression) in enumerate(self.parts):
            if not is_expression:
                pieces.append(text)
                continue
            try:
                value, shown = self.evaluate(text, tid)
            except EvaluationError as error:
                self._shown[index] = None
                pieces.append(f"<{error}>")
                continue
            plain = _plain(value) and shown == str(value.as_int())
            self._shown[index] = value if plain else None
            pieces.append(shown)
        return "".join(pieces) + "\n"

    def logged(self) -> LogSpec | None:
        """The message as records of its values, once each expression was a plain integer."""
        expressions = [i for i, (_, is_expression) in enumerate(self.parts) if is_expression]
        if any(self._shown.get(i) is None for i in expressions):
            return None
        if self._spec is None:
            values = tuple(self.condition_of(self.parts[i][0]) for i in expressions)
            self._spec = LogSpec("logpoint", values, self._from_record)
        return self._spec

    def _from_record(self, numbers: tuple[int, ...], strings: tuple[bytes, ...] = ()) -> str:
        pieces, given = [], iter(numbers)
        for index, (text, is_expression) in enumerate(self.parts):
            seen = self._shown.get(index) if is_expression else None
            if seen is None:
                pieces.append(text)
            else:  # the number in the type the trap saw: its bytes, then its value
                pieces.append(str(Value.of_int(seen.type, next(given), seen.ctx).as_int()))
        return "".join(pieces) + "\n"


def _plain(value: Value) -> bool:
    t = strip(value.type)
    return (
        isinstance(t, BaseType) and t.encoding in _PLAIN and 0 < t.size <= 8 and not value.bit_size
    )
