"""evaluate against gdb's `print` / `whatis` at the same stop, gdb's error messages, writes
that the program sees, and expression conditions on breakpoints."""

from __future__ import annotations

import re
import signal
from typing import Any

import pytest

from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.model import SignalPolicy
from aliceserver.errors import ProtocolError, TargetError
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.events import EventLog
from tests.support.gdb import GdbReply, gdb_env, gdb_path, printed_value, run_gdb
from tests.support.session import continue_to_exit, launch

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.both_backends,
]

BASIC = PROGRAMS_DIR / "src_basic.c"
VARS_LINE = marker_line(BASIC, "vars")

EXPRESSIONS = [
    "count * 3 + 1", "count - 10", "7 / 2", "7 % 3", "1.0 / 4", "-count",  # arithmetic
    "copy.in.y", "copy.ratio", "copy",  # members
    "op->id", "op->in.x", "op->name",  # ->
    "values[2]", "values[19]", "numbers[7]",  # []
    "*vp", "*op", "*label",  # *
    "&copy", "&values[3]", "&global_counter",  # &
    "(char)65", "(long)scaled", "(unsigned char)300", "(double)count / 2",  # casts
    "count > 2", "count == 3", "count != 3", "count < 2 || result > 100", "!count",  # comparisons
    "sizeof(struct outer)", "sizeof(values)", "sizeof(int)",  # sizeof
    "label", "global_text", "copy.name",  # char* strings
    "hue", "(enum color)5", "hue == BLUE",  # enums
    "letter", "scaled", "global_counter", "static_counter", "values",
]  # fmt: skip

HEX = ["count", "result", "values[1]", "copy.id"]


@pytest.fixture(scope="module")
def gdb_prints(builder: Builder) -> dict[str, GdbReply]:
    program = builder.build("src_basic")
    commands = [f"break src_basic.c:{VARS_LINE}", "run"]
    commands += [f"print {e}" for e in EXPRESSIONS]
    commands += [f"whatis {e}" for e in EXPRESSIONS]
    commands += [f"print/x {e}" for e in HEX]
    commands += ["print nosuch", "print count +", "print *count"]
    replies = run_gdb(program, commands, env=gdb_env())
    return {c: r for c, r in zip(commands, replies, strict=False)}


def start(debugger: Any, builder: Builder) -> None:
    """src_basic, with its SIGUSR1 (raised at the end) passed on quietly."""
    launch(debugger, builder.build("src_basic"), env=gdb_env())
    debugger.set_signal_policy(
        signal.SIGUSR1, SignalPolicy(stop=False, pass_to_program=True, print_=False)
    )


def stop_at_vars(debugger: Any, events: EventLog, builder: Builder) -> Stopped:
    start(debugger, builder)
    [location] = debugger.resolve_location(f"src_basic.c:{VARS_LINE}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    return events.wait_for(Stopped, timeout=20)


STOP_DOLLARS = ["$_thread", "$_siginfo.si_signo", "$_siginfo.si_code", "$_siginfo._sifields._sigfault.si_addr"]


def test_thread_and_siginfo_of_the_stop_match_gdb(debugger: Any, events: EventLog, builder: Builder) -> None:
    commands = [f"break src_basic.c:{VARS_LINE}", "run"] + [f"print {e}" for e in STOP_DOLLARS]
    replies = run_gdb(builder.build("src_basic"), commands, env=gdb_env())
    stop = stop_at_vars(debugger, events, builder)
    for expression, reply in zip(STOP_DOLLARS, replies[2:], strict=True):
        assert debugger.evaluate(expression, stop.thread_id).value == printed_value(reply), expression


def test_values_match_gdb_print(
    debugger: Any, events: EventLog, builder: Builder, gdb_prints: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    mismatches = []
    for expression in EXPRESSIONS:
        expected = printed_value(gdb_prints[f"print {expression}"])
        try:
            got = debugger.evaluate(expression, stop.thread_id).value
        except ProtocolError as error:
            got = f"error: {error}"
        if got != expected:
            mismatches.append(f"{expression!r}: gdb {expected!r} engine {got!r}")
    assert not mismatches, "\n".join(mismatches)


def test_types_match_gdb_whatis(
    debugger: Any, events: EventLog, builder: Builder, gdb_prints: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    mismatches = []
    for expression in EXPRESSIONS:
        text = gdb_prints[f"whatis {expression}"].output.strip()
        expected = re.sub(r"^type = ", "", text)
        got = debugger.evaluate(expression, stop.thread_id).type
        if got != expected:
            mismatches.append(f"{expression!r}: gdb {expected!r} engine {got!r}")
    assert not mismatches, "\n".join(mismatches)


def test_hex_format(
    debugger: Any, events: EventLog, builder: Builder, gdb_prints: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    for expression in HEX:
        expected = printed_value(gdb_prints[f"print/x {expression}"])
        assert debugger.evaluate(expression, stop.thread_id, fmt="x").value == expected


def test_errors_carry_gdb_messages(
    debugger: Any, events: EventLog, builder: Builder, gdb_prints: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    assert gdb_prints["print nosuch"].error == 'No symbol "nosuch" in current context.'
    with pytest.raises(ProtocolError) as error:
        debugger.evaluate("nosuch", stop.thread_id)
    assert 'No symbol "nosuch" in current context.' in str(error.value)
    message = gdb_prints["print count +"].error
    assert message is not None and "syntax error" in message
    with pytest.raises(ProtocolError, match="syntax error"):
        debugger.evaluate("count +", stop.thread_id)
    # gdb takes an int as an address and fails to read it; the engine may raise that
    # message or hand back a value flagged as an error that carries it.
    message = gdb_prints["print *count"].error
    assert message == "Cannot access memory at address 0x3"
    try:
        value = debugger.evaluate("*count", stop.thread_id)
    except ProtocolError as error:
        assert message in str(error)
    else:
        assert value.error and message in value.value, value


@pytest.mark.live_only(reason="it empties the live engine's thread table: a state no core holds")
def test_evaluate_with_no_thread_left_is_a_clear_error(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    # Between its last thread's end and its exit status (a step out of main), a process
    # has no thread to evaluate in; found by the DAP fuzzer as an internal IndexError.
    stop_at_vars(debugger, events, builder)
    threads = debugger._access.inferior.threads.values()
    for thread in threads:
        thread.gone = True
    try:
        with pytest.raises(TargetError, match="no threads left"):
            debugger.evaluate("1 + 1")
    finally:
        for thread in threads:
            thread.gone = False
    assert debugger.evaluate("1 + 1").value == "2"


def test_assignment_changes_the_program(debugger: Any, events: EventLog, builder: Builder) -> None:
    stop = stop_at_vars(debugger, events, builder)
    assert debugger.evaluate("result = 42", stop.thread_id).value == "42"
    assert debugger.evaluate("result", stop.thread_id).value == "42"
    assert debugger.evaluate("global_counter = 1234", stop.thread_id).value == "1234"
    assert debugger.evaluate("op->in.x = 9", stop.thread_id).value == "9"  # main's `o`
    debugger.remove_breakpoint(debugger.breakpoints()[0].id)
    assert continue_to_exit(debugger, events, timeout=20).code == 0
    out = events.output()
    assert "shown=42 " in out and "global=1234 " in out


def test_condition_stops_once_and_counts_every_hit(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    start(debugger, builder)
    [body] = debugger.resolve_location(f"src_basic.c:{marker_line(BASIC, 'loop_body')}")
    [done] = debugger.resolve_location(f"src_basic.c:{marker_line(BASIC, 'loop_done')}")
    bp = debugger.insert_breakpoint(body.address, condition=debugger.expression_condition("i == 7"))
    after = debugger.insert_breakpoint(done.address)
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=20)
    assert stop.breakpoint_ids == (bp.id,)
    assert debugger.evaluate("i", stop.thread_id).value == "7"
    assert debugger.evaluate("sum", stop.thread_id).value == str(sum(range(7)))
    assert [b.hit_count for b in debugger.breakpoints() if b.id == bp.id] == [8]
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=20)
    assert stop.breakpoint_ids == (after.id,), "the condition let a second hit stop"
    assert [b.hit_count for b in debugger.breakpoints() if b.id == bp.id] == [10]
    assert debugger.evaluate("sum", stop.thread_id).value == "45"
    debugger.resume()
    assert isinstance(events.wait_for(Exited, timeout=20), Exited)


@pytest.mark.live_only(reason="conditions are compiled for the live engine's traps: nothing read at a stop")
def test_condition_with_a_syntax_error_raises_at_creation(debugger: Any, builder: Builder) -> None:
    launch(debugger, builder.build("src_basic"))
    for bad in ("i ==", "i == == 7", "(i", "i = = 2"):
        with pytest.raises(ProtocolError):
            debugger.expression_condition(bad)
            pytest.fail(f"no error for {bad!r}")
