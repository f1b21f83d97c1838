"""What a user breakpoint does at a hit: its condition, its hit condition (`N`, `= N`,
`>= N`, `% N`, as VS Code and gdb's ignore counts mean them) and its log message
(`x is {x}`: expressions in braces are evaluated, nothing stops)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from aliceserver.errors import ProtocolError
from aliceserver.regexes import compiled_later

if TYPE_CHECKING:
    from aliceserver.debuggers.logpoints import LogSpec

_HIT = compiled_later(r"^\s*(==|=|>=|>|%)?\s*(\d+)\s*$")


_NEVER = 1 << 40  # hits to let go when no later one can stop


@dataclass(frozen=True, slots=True)
class HitCondition:
    """A hit condition, called with the count of hits so far (this one's included)."""

    operator: str  # "=", ">=", ">" or "%"
    number: int

    def __call__(self, count: int) -> bool:
        if self.operator == "%":
            return count % self.number == 0
        if self.operator == ">=":
            return count >= self.number
        if self.operator == ">":
            return count > self.number
        return count == self.number

    def to_let_go(self, passed: int) -> int:
        """How many of the hits after `passed` it refuses before one it accepts (a jump
        patch lets them go in the program: patch_counts.py)."""
        if self.operator == "%":
            return self.number - 1 - passed % self.number
        if self.operator == ">=":
            return max(0, self.number - 1 - passed)
        if self.operator == ">":
            return max(0, self.number - passed)
        return self.number - 1 - passed if passed < self.number else _NEVER


def parse_hit_condition(text: str) -> HitCondition:
    """`N`/`= N`: only the Nth hit; `>= N`: from the Nth on; `> N`; `% N`: every Nth."""
    match = _HIT().match(text)
    if match is None:
        raise ProtocolError(f"bad hit condition {text!r}: use N, = N, >= N, > N or % N")
    operator, number = match.group(1) or "=", int(match.group(2))
    if operator == "%" and number == 0:
        raise ProtocolError("hit condition % 0 never stops")
    return HitCondition("=" if operator == "==" else operator, number)


def split_log_message(text: str) -> list[tuple[str, bool]]:
    """(piece, is_expression) parts of a log message; `{{` and `}}` are literal braces."""
    parts: list[tuple[str, bool]] = []
    literal = ""
    at = 0
    while at < len(text):
        if text.startswith("{{", at) or text.startswith("}}", at):
            literal += text[at]
            at += 2
            continue
        if text[at] == "{":
            end = text.find("}", at)
            if end < 0:
                raise ProtocolError(f"unclosed '{{' in log message {text!r}")
            if literal:
                parts.append((literal, False))
                literal = ""
            parts.append((text[at + 1 : end].strip(), True))
            at = end + 1
            continue
        literal += text[at]
        at += 1
    if literal:
        parts.append((literal, False))
    return parts


@dataclass(slots=True)
class HitPolicy:
    """Decides, at each hit of one user breakpoint, whether it stops (on the tracer thread)."""

    condition: Callable[[int], bool] | None = None  # an expression_condition
    hit_condition: Callable[[int], bool] | None = None
    log: Callable[[int], str] | None = None  # renders the log message in the hit thread
    emit: Callable[[str], None] | None = None  # where log lines go
    log_spec: Callable[[], LogSpec | None] | None = None  # the log as the program may record it
    passed: int = field(default=0)  # hits whose condition held: what hit conditions count

    def __call__(self, tid: int) -> bool:
        if self.condition is not None and not self.condition(tid):
            return False
        self.passed += 1
        if self.hit_condition is not None and not self.hit_condition(self.passed):
            return False
        if self.log is not None and self.emit is not None:
            self.emit(self.log(tid))
            return False  # a logpoint never stops
        return True

    def logged(self) -> LogSpec | None:
        """A logpoint an engine may print from the program's records (LoggingGate): one
        without a hit condition (which counts hits the program would not tell)."""
        if self.log_spec is None or self.emit is None or self.hit_condition is not None:
            return None
        return self.log_spec()

    def ignored(self) -> int:
        """The hits after its condition its hit condition refuses next (CountingGate)."""
        hit = self.hit_condition
        return hit.to_let_go(self.passed) if isinstance(hit, HitCondition) else 0

    def skipped(self, count: int) -> None:
        """`count` hits let go in the program: they count for the hit condition."""
        self.passed += count
