"""What a user breakpoint does at a hit: its condition, its hit condition (`N`, `= N`,
`>= N`, `% N`, as VS Code and gdb's ignore counts mean them) and its log message
(`x is {x}`: expressions in braces are evaluated, nothing stops)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from aliceserver.errors import ProtocolError

_HIT = re.compile(r"^\s*(==|=|>=|>|%)?\s*(\d+)\s*$")


def parse_hit_condition(text: str) -> Callable[[int], bool]:
    """`N`/`= N`: only the Nth hit; `>= N`: from the Nth on; `> N`; `% N`: every Nth."""
    match = _HIT.match(text)
    if match is None:
        raise ProtocolError(f"bad hit condition {text!r}: use N, = N, >= N, > N or % N")
    operator, number = match.group(1) or "=", int(match.group(2))
    if operator == "%":
        if number == 0:
            raise ProtocolError("hit condition % 0 never stops")
        return lambda count: count % number == 0
    if operator == ">=":
        return lambda count: count >= number
    if operator == ">":
        return lambda count: count > number
    return lambda count: count == number


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
