"""Size budgets: every reply fits, and says what it left out and how to ask for it.

Tools cut what they know best (a long value, an array page, the stack below frame 20) and
record an `Omission` with the call that fetches the rest; `fit_reply` is the last guard that
shrinks whatever is still too big, generically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

ELLIPSIS = "…"


@dataclass(frozen=True, slots=True)
class Budget:
    max_string: int = 240  # characters of one value or string
    max_items: int = 25  # elements of an array, children of a struct, entries of a list
    max_frames: int = 20  # stack frames in one reply
    max_depth: int = 1  # levels of children expanded inline by debug_variables
    source_context: int = 5  # source lines shown above and below the current line
    max_output: int = 2000  # characters of program output in one reply
    max_reply: int = 16000  # characters of a whole reply (as JSON)

    def scaled(self, factor: float) -> Budget:
        """A smaller budget (for the generic guard)."""
        return replace(
            self,
            max_string=max(40, int(self.max_string * factor)),
            max_items=max(3, int(self.max_items * factor)),
            max_frames=max(3, int(self.max_frames * factor)),
            max_output=max(200, int(self.max_output * factor)),
        )


@dataclass(slots=True)
class Omissions:
    """What a reply left out: each entry names it and the call that gets it."""

    items: list[dict[str, str]] = field(default_factory=list)

    def add(self, what: str, how: str) -> None:
        entry = {"what": what, "how": how}
        if entry not in self.items:
            self.items.append(entry)

    def attach(self, reply: dict[str, Any]) -> dict[str, Any]:
        if self.items:
            reply["omitted"] = list(self.items)
        return reply


def cut_text(text: str, limit: int) -> tuple[str, int]:
    """`text` cut to `limit` characters (with an ellipsis) and how many were cut."""
    if len(text) <= limit:
        return text, 0
    kept = max(0, limit - 1)
    return text[:kept] + ELLIPSIS, len(text) - kept


def cut_value(
    text: str, budget: Budget, omissions: Omissions, where: str, how: str
) -> str:
    """A value cut to the budget; records the omission with `how` to see all of it."""
    cut, lost = cut_text(text, budget.max_string)
    if lost:
        omissions.add(f"{where}: {lost} of {len(text)} characters", how)
    return cut


def reply_size(reply: Any) -> int:
    return len(json.dumps(reply, ensure_ascii=False, separators=(",", ":")))


def _shrink(value: Any, string_limit: int, item_limit: int, counts: list[int]) -> Any:
    # counts: [strings cut, lists cut]
    if isinstance(value, str):
        cut, lost = cut_text(value, string_limit)
        counts[0] += bool(lost)
        return cut
    if isinstance(value, list):
        kept = value[:item_limit]
        counts[1] += len(value) > item_limit
        return [_shrink(v, string_limit, item_limit, counts) for v in kept]
    if isinstance(value, dict):
        return {
            k: v if k in ("omitted", "error", "hint") else _shrink(v, string_limit, item_limit, counts)
            for k, v in value.items()
        }
    return value


def fit_reply(reply: dict[str, Any], budget: Budget) -> dict[str, Any]:
    """`reply` unchanged when it fits `budget.max_reply`, else shrunk until it does."""
    if reply_size(reply) <= budget.max_reply:
        return reply
    string_limit, item_limit = budget.max_string, budget.max_items
    shrunk = reply
    while string_limit > 16 or item_limit > 1:
        counts = [0, 0]
        shrunk = _shrink(reply, string_limit, item_limit, counts)
        note = {
            "what": f"the reply was over {budget.max_reply} characters: {counts[0]} strings "
            f"cut to {string_limit} characters, {counts[1]} lists to {item_limit} items",
            "how": "ask for less at once: a smaller count, a start offset, one variable path",
        }
        shrunk["omitted"] = [*shrunk.get("omitted", []), note]
        if reply_size(shrunk) <= budget.max_reply:
            return dict(shrunk)
        string_limit, item_limit = max(16, string_limit // 2), max(1, item_limit // 2)
    return dict(shrunk)
