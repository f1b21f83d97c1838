"""step (into / over / out / instruction) against gdb's step, next, finish and stepi:
stop lines, functions without line info, return values, loops, recursion, threads."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any, Sequence

import pytest

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.model import SignalPolicy, StepKind
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.elf import objdump_function
from tests.support.events import EventLog
from tests.support.gdb import GdbReply, gdb_env, gdb_path, returned_value, run_gdb
from tests.support.session import launch

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.both_backends,
]

BASIC = PROGRAMS_DIR / "src_basic.c"
THREADS = PROGRAMS_DIR / "src_threads.c"
UNTIL = PROGRAMS_DIR / "src_until.c"
KINDS = {"next": StepKind.OVER, "step": StepKind.INTO, "finish": StepKind.OUT,
         "until": StepKind.UNTIL}


def line_of(name: str, source: Path = BASIC) -> int:
    return marker_line(source, name)


def gdb_steps(program: Path, spec: str, actions: Sequence[str]) -> list[GdbReply]:
    """gdb's replies to `actions` after stopping at `spec` (first reply: the `run`)."""
    commands = ["handle SIGUSR1 nostop noprint pass", f"break {spec}", "run", *actions]
    return run_gdb(program, commands, env=gdb_env())[2:]


class Session:
    """The engine stopped at a location, stepping as told."""

    def __init__(self, debugger: Any, events: EventLog, program: Path, spec: str) -> None:
        self.dbg = debugger
        self.events = events
        launch(debugger, program, env=gdb_env())
        debugger.set_signal_policy(
            signal.SIGUSR1, SignalPolicy(stop=False, pass_to_program=True, print_=False)
        )
        self.breakpoints = [
            debugger.insert_breakpoint(loc.address).id for loc in debugger.resolve_location(spec)
        ]
        assert self.breakpoints, spec
        debugger.resume()
        self.stop = events.wait_for(Stopped, timeout=20)
        self.tid = self.stop.thread_id

    def do(self, action: str) -> Stopped:
        self.dbg.step(self.tid, KINDS[action])
        self.stop = self.events.wait_for(Stopped, timeout=20)
        return self.stop

    def where(self) -> tuple[str | None, int | None]:
        top = self.dbg.stack_trace(self.tid, 0, 1)[0]
        return top.function, top.source.line if top.source else None


def gdb_where(reply: GdbReply) -> tuple[str | None, int | None]:
    assert reply.where is not None, reply
    return reply.where.function, reply.where.line


def compare_actions(
    debugger: Any, events: EventLog, program: Path, spec: str, actions: Sequence[str]
) -> list[tuple[str | None, int | None]]:
    replies = gdb_steps(program, spec, actions)
    expected = [gdb_where(r) for r in replies[1:]]
    session = Session(debugger, events, program, spec)
    assert session.where() == gdb_where(replies[0])
    got = []
    for action in actions:
        stop = session.do(action)
        assert stop.reason in (StopReason.STEP, StopReason.FUNCTION_FINISHED), stop
        got.append(session.where())
    assert got == expected
    return got


def test_next_steps_over_a_call(debugger: Any, events: EventLog, builder: Builder) -> None:
    got = compare_actions(
        debugger, events, builder.build("src_basic"), f"src_basic.c:{line_of('call_top')}", ["next"]
    )
    assert got == [("main", line_of("call_top") + 1)]


def test_step_enters_the_function_past_its_prologue(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    got = compare_actions(
        debugger,
        events,
        builder.build("src_basic"),
        f"src_basic.c:{line_of('call_top')}",
        ["step", "next", "step", "next", "step"],
    )
    assert got[0] == ("top", line_of("top_first"))
    assert got[2] == ("middle", line_of("middle_first"))
    assert got[4] == ("leaf", line_of("leaf"))


def test_step_over_a_function_without_line_info(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    got = compare_actions(
        debugger,
        events,
        builder.build("src_basic"),
        f"src_basic.c:{line_of('call_nolines')}",
        ["step"],
    )
    assert got == [("main", line_of("call_nolines") + 1)]


def test_step_into_a_libc_call_like_gdb(debugger: Any, events: EventLog, builder: Builder) -> None:
    """Through the PLT: gdb enters strlen when libc has line info (libc6-dbg), else steps over."""
    compare_actions(
        debugger,
        events,
        builder.build("src_basic"),
        f"src_basic.c:{line_of('call_strlen')}",
        ["step"],
    )


@pytest.mark.parametrize("function", ["leaf", "pointer_to", "half", "make_pair"])
def test_finish_reports_the_return_value(
    debugger: Any, events: EventLog, builder: Builder, function: str
) -> None:
    program = builder.build("src_basic")
    spec = f"src_basic.c:{line_of(function)}"
    replies = gdb_steps(program, spec, ["finish"])
    expected = returned_value(replies[1])
    assert expected is not None, replies[1].output
    session = Session(debugger, events, program, spec)
    stop = session.do("finish")
    assert stop.reason == StopReason.FUNCTION_FINISHED
    assert session.where() == gdb_where(replies[1])
    assert stop.return_value is not None
    assert stop.return_value.value == expected
    assert not stop.return_value.error


def test_twenty_nexts_through_a_loop(debugger: Any, events: EventLog, builder: Builder) -> None:
    got = compare_actions(debugger, events, builder.build("src_basic"), "loop_sum", ["next"] * 20)
    assert got[0] == ("loop_sum", line_of("loop_first") + 1)
    assert got.count(("loop_sum", line_of("loop_body"))) >= 9


def test_next_in_recursion_stays_in_the_frame(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("src_basic")
    session = Session(debugger, events, program, f"src_basic.c:{line_of('fact_rec')}")
    assert debugger.evaluate("n", session.tid).value == "5"
    cfa = debugger.stack_trace(session.tid, 0, 1)[0].cfa
    for bp in session.breakpoints:
        debugger.remove_breakpoint(bp)
    session.do("next")
    assert session.where() == ("factorial", line_of("fact_mul"))
    assert debugger.evaluate("n", session.tid).value == "5"
    assert debugger.evaluate("below", session.tid).value == "24"
    assert debugger.stack_trace(session.tid, 0, 1)[0].cfa == cfa
    session.do("finish")
    assert session.stop.return_value is not None and session.stop.return_value.value == "120"


def test_breakpoint_in_a_deeper_recursion_wins_over_next(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("src_basic")
    session = Session(debugger, events, program, f"src_basic.c:{line_of('fact_rec')}")
    for bp in session.breakpoints:
        debugger.remove_breakpoint(bp)
    [base] = debugger.resolve_location(f"src_basic.c:{line_of('fact_base')}")
    hit = debugger.insert_breakpoint(base.address)
    stop = session.do("next")
    assert stop.reason == StopReason.BREAKPOINT and stop.breakpoint_ids == (hit.id,)
    assert session.where() == ("factorial", line_of("fact_base"))
    assert debugger.evaluate("n", session.tid).value == "1"


def test_a_step_ending_on_a_breakpoint_reports_its_hit(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    """As gdb: a next/step that lands where a user's breakpoint is reports that breakpoint
    (its condition judged, its hit counted), not the end of the step."""
    program = builder.build("src_basic")
    session = Session(debugger, events, program, f"src_basic.c:{line_of('loop_first')}")
    [body] = debugger.resolve_location(f"src_basic.c:{line_of('loop_body')}")
    judged: list[int] = []

    def refuse(tid: int) -> bool:
        judged.append(tid)
        return False

    quiet = debugger.insert_breakpoint(body.address, condition=refuse)
    for _ in range(3):
        stop = session.do("next")
        assert stop.reason is StopReason.STEP  # the condition said no: the step's own stop
        if session.where() == ("loop_sum", line_of("loop_body")):
            break
    assert session.where() == ("loop_sum", line_of("loop_body"))
    assert judged == [session.tid]
    debugger.remove_breakpoint(quiet.id)
    hit = debugger.insert_breakpoint(body.address)
    for action in ("next", "next"):  # round the loop: the for line, then the body again
        stop = session.do(action)
        if stop.reason is StopReason.BREAKPOINT:
            break
    assert stop.reason is StopReason.BREAKPOINT and stop.breakpoint_ids == (hit.id,)
    assert session.where() == ("loop_sum", line_of("loop_body"))
    [info] = [b for b in debugger.breakpoints() if b.id == hit.id]
    assert info.hit_count == 1
    stop = session.do("step")  # from the breakpoint: the step leaves its line as usual
    assert stop.reason is StopReason.STEP


def test_instruction_step(debugger: Any, events: EventLog, builder: Builder) -> None:
    program = builder.build("src_basic")
    session = Session(debugger, events, program, f"src_basic.c:{line_of('leaf')}")
    base = [m for m in debugger.modules() if m.is_main][0].base
    insns = objdump_function(program, "leaf")
    pc = session.stop.address
    assert pc is not None
    [index] = [i for i, insn in enumerate(insns) if insn.address + base == pc]
    debugger.step(session.tid, StepKind.INSTRUCTION)
    stop = events.wait_for(Stopped, timeout=20)
    assert stop.reason == StopReason.STEP
    assert stop.address == insns[index + 1].address + base
    assert debugger.read_registers(session.tid)["rip"] == stop.address


def test_other_threads_breakpoint_during_next_is_reported(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("src_threads")
    spec = f"src_threads.c:{line_of('step_over_slow', THREADS)}"
    worker_line = line_of("worker_hit", THREADS)
    replies = run_gdb(
        program,
        [f"break {spec}", "run", f"break src_threads.c:{worker_line}", "next"],
        env=gdb_env(),
    )
    gdb_stop = replies[-1].where
    assert gdb_stop is not None and (gdb_stop.function, gdb_stop.line) == (
        "worker_hit",
        worker_line,
    )

    session = Session(debugger, events, program, spec)
    main_tid = session.tid
    [location] = debugger.resolve_location(f"src_threads.c:{worker_line}")
    bp = debugger.insert_breakpoint(location.address)
    stop = session.do("next")
    assert stop.reason == StopReason.BREAKPOINT, stop
    assert stop.breakpoint_ids == (bp.id,)
    assert stop.thread_id != main_tid
    top = debugger.stack_trace(stop.thread_id, 0, 1)[0]
    assert (top.function, top.source.line if top.source else None) == ("worker_hit", worker_line)
    # The program runs on to its end (a stop for the abandoned step may come first).
    debugger.remove_breakpoint(bp.id)
    for _ in range(3):
        debugger.resume()
        event = events.wait_for(
            object, timeout=20, predicate=lambda e: isinstance(e, (Stopped, Exited))
        )
        if isinstance(event, Exited):
            break
    else:
        pytest.fail(f"the program did not exit:\n{events.describe()}")
    assert event.code == 0
    assert "released=1 hits=1" in events.output()


def test_until_leaves_loops_like_gdb(debugger: Any, events: EventLog, builder: Builder) -> None:
    """gdb's `until`: at a loop's end it does not go back to the loop's start, it runs on
    to the first line after the loop; elsewhere it is `next`; then out to the caller."""
    actions = ["next", "next", "next", *["until"] * 8]
    got = compare_actions(debugger, events, builder.build("src_until"), "sum_to", actions)
    assert got[2:4] == [("sum_to", line_of("for", UNTIL)), ("sum_to", line_of("after_for", UNTIL))]
    assert ("sum_to", line_of("sum_done", UNTIL)) in got
    assert got[-1] == ("main", line_of("main_for", UNTIL))


def test_until_runs_a_loop_with_calls_to_its_end(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    """No breakpoint in the loop (gdb would report it): the calls in the body are stepped
    over on every round until the loop exits."""
    got = compare_actions(
        debugger, events, builder.build("src_until"), "main", ["next", "next", "next", "until"]
    )
    assert got[2:] == [("main", line_of("main_for", UNTIL)), ("main", line_of("main_print", UNTIL))]
