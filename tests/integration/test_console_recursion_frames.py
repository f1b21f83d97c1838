"""finish, until and advance in a recursion against gdb 13 (recursion_frames.c): the frame
asked for is told from the inner levels that pass the same address first by its CFA, as
gdb's frame id; a step over one trap that lands on another is a hit of that one."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import StopReason
from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.mi_client import mi_stopped_at
from tests.support.session import continue_to_stop, launch

pytestmark = [needs_gdb, pytest.mark.timeout(180), pytest.mark.both_backends]
SOURCE = "recursion_frames.c"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("recursion_frames")


def _at(name: str) -> str:
    return f"{SOURCE}:{marker_line(SOURCE, name)}"


def _stopped_in_fact(n: int, *then: str) -> list[str]:
    return ex(f"break {_at('test')} if n == {n}", "run", "delete", *then, "bt", "p n")


def test_until_a_line_the_inner_levels_pass_first(prog: Path) -> None:
    # fact(2) and fact(1) reach the end line first, each right after a call's return trap;
    # the stop shows the whole location, as a momentary breakpoint's does in gdb.
    assert_like_gdb([*_stopped_in_fact(3, f"until {_at('end')}"), str(prog)], prog.parent)


def test_until_a_later_line_of_the_same_frame_shows_the_location(prog: Path) -> None:
    assert_like_gdb([*_stopped_in_fact(3, f"until {_at('recurse')}"), str(prog)], prog.parent)


def test_advance_stops_in_any_frame(prog: Path) -> None:
    assert_like_gdb([*_stopped_in_fact(3, f"advance {_at('end')}"), str(prog)], prog.parent)


@pytest.mark.parametrize("up", [1, 2])
def test_finish_from_an_outer_frame_waits_for_that_frame(prog: Path, up: int) -> None:
    # From fact(2): `up` selects fact(3), whose caller's address fact(2) returns to first.
    assert_like_gdb([*_stopped_in_fact(2, f"up {up}", "finish", "p $", "finish"), str(prog)], prog.parent)


def _mi_finish_from_frame_1(prog: Path, gdb: bool) -> list[str]:
    with mi_stopped_at(prog, f'-c "n == 1" {_at("test")}', prog.parent, gdb=gdb) as mi:
        mi.ok("-break-delete")
        mi.ok("-exec-finish --thread 1 --frame 1")
        stopped = mi.read_until(lambda line: line.startswith("*stopped"))[-1]
        mi.prompt()
        _, shown = mi.command('-interpreter-exec console "up" "finish"')
        console = [line for line in shown if line.startswith("~")]
        return [re.sub(r',core="\d+"', "", stopped), *console]


def test_mi_exec_finish_with_a_frame_option(prog: Path) -> None:
    assert _mi_finish_from_frame_1(prog, gdb=False) == _mi_finish_from_frame_1(prog, gdb=True)


def test_a_step_over_a_trap_onto_the_next_one_is_a_hit(debugger: Any, events: EventLog, prog: Path) -> None:
    # The return address in fact (an imul, single-stepped over) is followed at once by the
    # end line's first instruction: both breakpoints stop at every level, as in gdb.
    launch(debugger, prog)
    at_test = debugger.resolve_location(_at("test"))[0].address
    only_n1 = debugger.breakpoint_condition(condition="n == 1")
    first = debugger.insert_breakpoint(at_test, temporary=True, condition=only_n1)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (first.id,)
    returns = debugger.stack_trace(stop.thread_id, 0, 2)[1].pc
    end = debugger.resolve_location(_at("end"))[0].address
    ids = {debugger.insert_breakpoint(address).id: address for address in (returns, end)}
    seen = []
    for _ in range(5):
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        seen.append((ids[stop.breakpoint_ids[0]], debugger.evaluate("n", stop.thread_id).value))
    assert seen == [(end, "1"), (returns, "2"), (end, "2"), (returns, "3"), (end, "3")]
