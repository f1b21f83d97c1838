"""Chains of entry values: a call value that is itself the caller's entry value, and so on
up a recursion of thousands of frames (`f (n - 1)` at -O2: DW_OP_entry_value(rsi) - 1).

gdb evaluates each call value inside the expression that asked for it and stops at 256
expressions deep with "DWARF-2 expression error: Loop detected (257)." (dwarf2/expr.c),
an error, not an optimized-out value. Here the chain is resolved by a loop, never by a
recursion (Python's own limit is about 1,000 frames, five a level): an expression that
asks for an entry value not known yet stops (_Needs), the one asked is resolved, and the
asking expression runs again with that answer.

Each answer is kept for the stop (CallerFrame.answers) with how many expressions deep its
resolving went: asked at any depth, it is gdb's answer, or gdb's error where that depth
and its own pass gdb's limit. So a backtrace of 3,000 such frames resolves each link once,
not 256 links for each frame."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from aliceserver.debuggers.symbols.dwarf.callsites import (
    EntryRequest,
    EntrySlot,
    call_value,
    caller_of,
    evaluate_call_value,
    register_entry,
)
from aliceserver.debuggers.symbols.dwarf.entryplans import planned
from aliceserver.debuggers.symbols.dwarf.locexpr import MAX_NESTING, EvaluationError, LoopDetected
from aliceserver.debuggers.symbols.dwarf.typedstack import Entry

Outcome = Entry | EvaluationError


_REACH = 1 << 16  # links followed from one request (a longer chain is as gdb's too deep)


@dataclass(frozen=True, slots=True)
class _Answer:
    """An entry value (or why there is none), and how many expressions deep under the one
    evaluating its call value its resolving went (-1: no call value was evaluated). A
    LoopDetected outcome is a chain longer than _REACH or a cycle: `height` is at least
    that deep, where it is known only to be."""

    outcome: Outcome
    height: int

    def at(self, depth: int) -> Outcome | None:
        """The outcome asked by an expression evaluated at `depth` - 1; None when it must
        be found again (a chain cut at _REACH, asked nearer its end)."""
        if depth + self.height > MAX_NESTING:
            return LoopDetected(MAX_NESTING + 1)
        return None if isinstance(self.outcome, LoopDetected) else self.outcome


class _Needs(Exception):  # noqa: N818 - not an error: a call value waits for an entry value
    """Raised through the evaluator (not an EvaluationError: nothing turns it into a value)."""

    def __init__(self, request: EntryRequest) -> None:
        super().__init__()
        self.request = request


@dataclass
class _Chain:
    answers: dict[Hashable, Any] = field(default_factory=dict)  # of requests no caller keeps
    pending: set[Hashable] = field(default_factory=set)  # keys of the requests waiting

    def key(self, request: EntryRequest) -> tuple[dict[Hashable, Any], Hashable]:
        """Where the answer to `request` is kept: by its caller frame's pc and CFA (one frame
        of one thread at this stop) and the function and register asked."""
        caller = caller_of(request.ctx)
        cfa = None if caller is None or caller.answers is None else caller.ctx.cfa()
        if caller is None or caller.answers is None or cfa is None:
            return self.answers, (id(request.ctx), request.function_pc, request.regno)
        return caller.answers, (caller.ctx.pc, cfa, request.function_pc, request.regno)

    def kept(self, request: EntryRequest, *, bounds: bool = True) -> _Answer | None:
        """The answer kept for `request`; with `bounds` False, not one cut at _REACH (it
        is found again from here, deeper)."""
        store, key = self.key(request)
        if key in self.pending:  # a cycle: deeper than any limit
            return _Answer(LoopDetected(MAX_NESTING + 1), _REACH)
        found: _Answer | None = store[key][1] if key in store else None
        if found is not None and not bounds and isinstance(found.outcome, LoopDetected):
            return None
        return found

    def keep(self, request: EntryRequest, answer: _Answer) -> None:
        store, key = self.key(request)
        store[key] = (request, answer)  # the request kept too: its frame's id is not taken meanwhile


def resolve_entry(request: EntryRequest) -> Entry:
    """DW_OP_entry_value(DW_OP_regN) asked by an expression evaluated at depth 0: the value
    the caller's call value gives (evaluated at depth 1, its own entry values deeper);
    by the call value's plan where it has one (entryplans.py)."""
    found = planned(request)
    if found is not None:
        return found
    chain = _Chain()
    answer = chain.kept(request)
    outcome = None if answer is None else answer.at(1)
    if outcome is None:
        answer = _resolve_all(chain, request)
        outcome = answer.at(1)
        assert outcome is not None  # a chain cut at _REACH is too deep at any depth
    if isinstance(outcome, EvaluationError):
        raise outcome
    return outcome


def _resolve_all(chain: _Chain, request: EntryRequest) -> _Answer:
    waiting = [request]
    chain.pending.add(chain.key(request)[1])
    while True:
        asked = waiting[-1]
        if len(waiting) > _REACH:  # known only to be deeper than gdb goes
            answer = _Answer(LoopDetected(MAX_NESTING + 1), 0)
        else:
            try:
                answer = _resolve(chain, asked)
            except _Needs as needs:
                waiting.append(needs.request)
                chain.pending.add(chain.key(needs.request)[1])
                continue
        chain.pending.discard(chain.key(asked)[1])
        chain.keep(asked, answer)
        waiting.pop()
        if not waiting:
            return answer


def _resolve(chain: _Chain, asked: EntryRequest) -> _Answer:
    """One try at `asked`: _Needs when its call value asks for an entry value not known."""
    caller = caller_of(asked.ctx)
    try:
        known = call_value(asked.ctx, caller, asked.function_pc, EntrySlot(regno=asked.regno), asked.callee)
    except EvaluationError as exc:
        return _Answer(exc, -1)
    assert caller is not None  # call_value found one
    deepest = [-1]  # of the entry values the call value used, below it

    def served(sub: EntryRequest) -> Entry:
        found = chain.kept(sub, bounds=False)
        if found is None:
            raise _Needs(sub)
        deepest[0] = max(deepest[0], found.height)
        if isinstance(found.outcome, EvaluationError):
            raise found.outcome
        return found.outcome

    try:
        outcome: Outcome = register_entry(evaluate_call_value(caller, known, served), caller.ctx)
    except EvaluationError as exc:
        outcome = exc
    return _Answer(outcome, max(0, deepest[0] + 1))
