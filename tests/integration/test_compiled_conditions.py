"""Breakpoint conditions compiled per address (ptrace/conditions.py, dwarf/expr/compiled.py)
give the general evaluator's answers: each condition's truth at every iteration of a loop,
with the compiler on and off; which path judged each hit; parameters in a recursion; a
thread's own locals; errors; and a new compilation after a re-run of another build."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.ptrace import conditions
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.jump_patches import jump_patches as jump_patches  # the fixture
from tests.support.session import continue_to_exit, continue_to_stop, launch

# Each scenario with jump patches on and off: the same stops either way.
pytestmark = [pytest.mark.timeout(120), pytest.mark.usefixtures("jump_patches")]

SOURCE = "cond_types.c"
BODY = marker_line(SOURCE, "body")
SUMS = [sum(range(i + 1)) for i in range(10)]

# condition -> at which iterations i (0..9) of main's loop it holds.
COMPILED: dict[str, Callable[[int], bool]] = {
    "u == 4000000005u": lambda i: i == 5,  # unsigned int
    "u > 4000000006": lambda i: i > 6,  # unsigned int vs a long literal
    "u - 4000000000u == 2": lambda i: i == 2,
    "c == 'd'": lambda i: i == 3,  # char
    "c - 'a' + sh == -3": lambda i: True,  # char and short promoted to int
    "sh < -8": lambda i: i > 5,  # short
    "l == -25000000000": lambda i: i == 5,  # long
    "uc < 100": lambda i: i >= 6,  # unsigned char, wrapped at 256
    "p == 0": lambda i: i % 3 == 0,  # pointer
    "p != 0 && i > 6": lambda i: i % 3 != 0 and i > 6,
    "s.count > 3": lambda i: i > 3,  # struct member
    "sp->total == 15": lambda i: SUMS[i] == 15,  # through a pointer
    "global_level == 12": lambda i: i == 6,  # a global
    "file_static + i == 9": lambda i: i == 2,  # a file-static unsigned short
    "mood == ANGRY": lambda i: i == 7,  # an enum and its (negative) enumerator
    "mood == BUSY": lambda i: i > 4 and i != 7,
    "(unsigned char)(i * 50) == 44": lambda i: i == 6,  # a cast that wraps
    "i % 4 == 3 && -i < -5": lambda i: i == 7,
    "(i ^ 5) == 1 || i << 2 == 32": lambda i: i in (4, 8),
    "i / 3 == 2 && i % 3 == 2": lambda i: i == 8,
    "!(i < 9)": lambda i: i == 9,
    "l < 0 == (i != 0)": lambda i: True,
}
GENERAL: dict[str, Callable[[int], bool]] = {  # not compiled: the general evaluator's
    "ratio > 1.0": lambda i: i >= 5,  # a double
    "ratio > 1": lambda i: i >= 5,  # a double against an int
    "fn == depth_of": lambda i: True,  # a function pointer and a function
}


@pytest.fixture
def general_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Conditions judged by the general evaluator alone (nothing compiles)."""
    monkeypatch.setattr(conditions, "compile_condition", lambda tree, frame: None)
    yield


def truth_table(debugger: Any, events: EventLog, builder: Builder) -> tuple[dict[str, list[int]], dict[str, Any]]:
    """Every condition on the loop body at once: the iterations at which each stopped."""
    launch(debugger, builder.build("cond_types"))
    [body] = debugger.resolve_location(f"{SOURCE}:{BODY}")
    [after] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'after')}")
    checks = {text: debugger.expression_condition(text) for text in {**COMPILED, **GENERAL}}
    names = {debugger.insert_breakpoint(body.address, condition=check).id: text for text, check in checks.items()}
    debugger.insert_breakpoint(after.address)
    seen: dict[str, list[int]] = {text: [] for text in checks}
    while True:
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        if stop.address == after.address:
            break
        assert debugger.source_position(stop.address).line == BODY
        i = int(debugger.evaluate("i", stop.thread_id).value)
        assert {b.hit_count for b in debugger.breakpoints() if b.id in names} == {i + 1}
        for ident in stop.breakpoint_ids:
            seen[names[ident]].append(i)
    assert all(b.hit_count == 10 for b in debugger.breakpoints() if b.id in names)
    assert continue_to_exit(debugger, events).code == 0
    return seen, checks


def expected(table: dict[str, Callable[[int], bool]]) -> dict[str, list[int]]:
    return {text: [i for i in range(10) if holds(i)] for text, holds in table.items()}


def test_compiled_conditions_hold_where_the_general_evaluator_says(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    seen, checks = truth_table(debugger, events, builder)
    assert seen == expected({**COMPILED, **GENERAL})
    paths = {text: (check.compiled, check.general) for text, check in checks.items()}
    assert paths == {**{text: (10, 0) for text in COMPILED}, **{text: (0, 10) for text in GENERAL}}


def test_the_general_evaluator_alone_agrees(
    debugger: Any, events: EventLog, builder: Builder, general_only: None
) -> None:
    seen, checks = truth_table(debugger, events, builder)
    assert seen == expected({**COMPILED, **GENERAL})
    assert all((check.compiled, check.general) == (0, 10) for check in checks.values())


def stop_at(
    debugger: Any, events: EventLog, builder: Builder, marker: str, condition: str, flags: tuple[str, ...] = ()
) -> tuple[Stopped, int, Any]:
    """Launch, put `condition` on the marked line, run to its first stop: (stop, bp id, condition)."""
    launch(debugger, builder.build("cond_types", extra=flags))
    [place] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, marker)}")
    check = debugger.expression_condition(condition)
    bp = debugger.insert_breakpoint(place.address, condition=check)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (bp.id,)
    assert debugger.source_position(stop.address).line == marker_line(SOURCE, marker)
    return stop, bp.id, check


def hits(debugger: Any, ident: int) -> int:
    return next(b.hit_count for b in debugger.breakpoints() if b.id == ident)


def test_a_parameter_in_a_recursion_is_read_in_the_hit_frame(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    # depth_of(3) returns from depth 0 first: the third hit is depth 2, whose local is 30.
    stop, ident, check = stop_at(debugger, events, builder, "recurse", "depth == 2 && c->count == 13 && local == 30")
    assert debugger.evaluate("depth", stop.thread_id).value == "2"
    assert hits(debugger, ident) == 3 and (check.compiled, check.general) == (3, 0)
    debugger.remove_breakpoint(ident)
    assert continue_to_exit(debugger, events).code == 0


def test_each_thread_reads_its_own_locals(debugger: Any, events: EventLog, builder: Builder) -> None:
    stop, ident, check = stop_at(debugger, events, builder, "worker", "id == 2 && n == 3")
    assert debugger.evaluate("id", stop.thread_id).value == "2"
    assert debugger.evaluate("n", stop.thread_id).value == "3"
    hit_count = hits(debugger, ident)  # first: reading the hits folds the patch's counted arrivals
    assert check.general == 0 and check.compiled == hit_count >= 4
    debugger.remove_breakpoint(ident)
    assert continue_to_exit(debugger, events).code == 0


def condition_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [str(r.exc_info[1]) for r in caplog.records if r.exc_info and "condition failed" in r.getMessage()]


def test_an_unknown_name_stops_with_the_general_evaluators_error(
    debugger: Any, events: EventLog, builder: Builder, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR, logger="aliceserver.debuggers.ptrace.signal_stops")
    stop, ident, check = stop_at(debugger, events, builder, "body", "nosuch == 1")
    assert debugger.evaluate("i", stop.thread_id).value == "0" and hits(debugger, ident) == 1
    assert condition_errors(caplog) == ['No symbol "nosuch" in current context.']
    assert (check.compiled, check.general) == (0, 1)
    debugger.remove_breakpoint(ident)
    assert continue_to_exit(debugger, events).code == 0


def test_a_compiled_condition_that_fails_is_judged_by_the_general_evaluator(
    debugger: Any, events: EventLog, builder: Builder, caplog: pytest.LogCaptureFixture
) -> None:
    # `maybe` is NULL when i % 3 == 0: those hits stop with the general evaluator's error.
    caplog.set_level(logging.ERROR, logger="aliceserver.debuggers.ptrace.signal_stops")
    stop, ident, check = stop_at(debugger, events, builder, "body", "maybe->count == 100")
    assert debugger.evaluate("i", stop.thread_id).value == "0"
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert debugger.evaluate("i", stop.thread_id).value == "3" and hits(debugger, ident) == 4
    assert condition_errors(caplog) == ["Cannot access memory at address 0x0"] * 2
    assert (check.compiled, check.general) == (2, 2)
    debugger.remove_breakpoint(ident)
    assert continue_to_exit(debugger, events).code == 0


def test_a_rerun_of_another_build_compiles_again(debugger: Any, events: EventLog, builder: Builder) -> None:
    # The same pc in both builds, but `a` and `b` trade stack slots: a condition compiled for
    # the first program would read `b` in the second, and stop at n == 8.
    first = builder.build("cond_types")
    second = builder.build("cond_types", extra=("-DSWAP",))
    stop, ident, check = stop_at(debugger, events, builder, "probe", "a == 8")
    assert debugger.evaluate("n", stop.thread_id).value == "4"
    assert continue_to_exit(debugger, events).code == 0
    launch(debugger, second)
    assert debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'probe')}")[0].address == stop.address
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (ident,) and debugger.evaluate("n", stop.thread_id).value == "4"
    assert debugger.evaluate("b", stop.thread_id).value == "4"
    assert (check.compiled, check.general) == (15, 0) and first != second
    assert continue_to_exit(debugger, events).code == 0


OPERANDS = ["i", "u", "c", "sh", "l", "uc", "p", "maybe->count", "s.tag", "sp->total", "global_level",
            "file_static", "mood", "ANGRY", "0", "1", "-1", "7", "4000000000u", "'a'", "255",
            "-5000000000", "0x80000000", "64", "18446744073709551615ul"]  # fmt: skip
OPERATORS = "+ - * / % << >> & | ^ == != < > <= >= && ||".split()
PREFIXES = ["-", "!", "~", "(char)", "(unsigned short)", "(unsigned)", "(long)", "(_Bool)"]


def random_expression(rng: random.Random, depth: int) -> str:
    roll = rng.random()
    if depth == 0 or roll < 0.25:
        return rng.choice(OPERANDS)
    if roll < 0.45:
        return f"{rng.choice(PREFIXES)}({random_expression(rng, depth - 1)})"
    return f"({random_expression(rng, depth - 1)} {rng.choice(OPERATORS)} {random_expression(rng, depth - 1)})"


def test_random_conditions_agree_with_the_general_evaluator(
    debugger: Any, events: EventLog, builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each condition judged at one stop, compiled and not: the same truth, or an error in both."""
    rng = random.Random(20240607)
    launch(debugger, builder.build("cond_types"))
    [body] = debugger.resolve_location(f"{SOURCE}:{BODY}")
    stop_ids = {debugger.insert_breakpoint(body.address, condition=debugger.expression_condition(f"i == {i}")).id
                for i in (0, 4, 7)}  # fmt: skip

    def judge(check: Any, tid: int) -> object:
        try:
            return debugger._call(lambda: check(tid))  # on the tracer thread, as at a hit
        except Exception as error:  # the error is the answer
            return type(error).__name__, str(error)

    compiled = 0
    for _ in stop_ids:
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        for _ in range(150):
            text = f"{random_expression(rng, 3)} {rng.choice(OPERATORS[8:14])} {random_expression(rng, 2)}"
            fast = debugger.expression_condition(text)
            answer = judge(fast, stop.thread_id)
            with monkeypatch.context() as patch:
                patch.setattr(conditions, "compile_condition", lambda tree, frame: None)
                slow = debugger.expression_condition(text)
                assert (text, answer) == (text, judge(slow, stop.thread_id))
            assert slow.compiled == 0 and fast.compiled + fast.general == 1
            compiled += fast.compiled
    assert compiled > 300  # most are compiled: pointer arithmetic is not
    for ident in stop_ids:
        debugger.remove_breakpoint(ident)
    assert continue_to_exit(debugger, events).code == 0
