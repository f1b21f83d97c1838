"""frame_variables and variable_children against gdb's `info args` / `info locals` / `print`
/ `whatis` at the same stop: arguments, locals, the caller's locals, globals and statics,
registers, struct members, array pages, pointer targets, nested structs, -O2 values that
were optimized out, and references that die on resume."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import StepKind, VariableInfo, VariableScope
from aliceserver.errors import ProtocolError, TargetError
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.events import EventLog
from tests.support.gdb import (
    GdbReply,
    gdb_env,
    gdb_path,
    name_values,
    printed_value,
    run_gdb,
)
from tests.support.session import launch

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.both_backends,
]

BASIC = PROGRAMS_DIR / "src_basic.c"
VARS_LINE = marker_line(BASIC, "vars")

ARGS = ["count", "label", "op"]
LOCALS = ["copy", "hue", "values", "vp", "scaled", "letter", "result"]
PRINTS = [
    "copy.id", "copy.in", "copy.in.x", "copy.in.y", "copy.ratio", "copy.name",
    "values[10]", "values[11]", "values[12]", "values[13]", "values[14]",
    "*vp", "op->id", "op->in", "op->ratio", "op->name",
    "global_counter", "static_counter", "global_text", "numbers",
    "$rip", "$rsp",
]  # fmt: skip


@pytest.fixture(scope="module")
def gdb_vars(builder: Builder) -> dict[str, GdbReply]:
    """One gdb run stopped at @vars: info args/locals, the caller's locals, prints, whatis."""
    program = builder.build("src_basic")
    commands = [f"break src_basic.c:{VARS_LINE}", "run", "info args", "info locals"]
    commands += ["up", "info locals", "down"]
    commands += [f"print {e}" for e in PRINTS]
    commands += [f"whatis {n}" for n in ARGS + LOCALS]
    replies = run_gdb(program, commands, env=gdb_env())
    answers = {c: r for c, r in zip(commands, replies, strict=False)}
    answers["info locals"] = replies[3]
    answers["up info locals"] = replies[5]
    return answers


def whatis(answers: dict[str, GdbReply], name: str) -> str:
    text = answers[f"whatis {name}"].output.strip()
    assert text.startswith("type = "), text
    return text[len("type = ") :]


def stop_at_vars(debugger: Any, events: EventLog, builder: Builder) -> Stopped:
    launch(debugger, builder.build("src_basic"), env=gdb_env())
    [location] = debugger.resolve_location(f"src_basic.c:{VARS_LINE}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    return events.wait_for(Stopped, timeout=20)


def by_name(variables: list[VariableInfo]) -> dict[str, VariableInfo]:
    return {v.name: v for v in variables}


def test_arguments_and_locals_match_gdb(
    debugger: Any, events: EventLog, builder: Builder, gdb_vars: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    args = debugger.frame_variables(stop.thread_id, 0, VariableScope.ARGUMENTS)
    local = debugger.frame_variables(stop.thread_id, 0, VariableScope.LOCALS)
    assert [(v.name, v.value) for v in args] == name_values(gdb_vars["info args"])
    assert [(v.name, v.value) for v in local] == name_values(gdb_vars["info locals"])
    assert [v.name for v in args] == ARGS and [v.name for v in local] == LOCALS
    for v in args + local:
        assert v.type == whatis(gdb_vars, v.name), v
        assert not v.error
    values = by_name(local)
    assert values["copy"].reference > 0 and values["copy"].named_children == 4
    assert values["values"].reference > 0 and values["values"].indexed_children == 20
    assert values["result"].reference == 0


def test_caller_frame_locals_match_gdb_up(
    debugger: Any, events: EventLog, builder: Builder, gdb_vars: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    caller = debugger.frame_variables(stop.thread_id, 1, VariableScope.LOCALS)
    expected = name_values(gdb_vars["up info locals"])
    assert [name for name, _ in expected][:4] == ["o", "c", "text", "sorted"]
    assert [(v.name, v.value) for v in caller] == expected
    assert debugger.frame_variables(stop.thread_id, 1, VariableScope.ARGUMENTS) == []


def test_globals_include_globals_and_statics_of_the_unit(
    debugger: Any, events: EventLog, builder: Builder, gdb_vars: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    found = by_name(debugger.frame_variables(stop.thread_id, 0, VariableScope.GLOBALS))
    for name in ("global_counter", "static_counter", "global_text", "numbers"):
        assert name in found, sorted(found)
        assert found[name].value == printed_value(gdb_vars[f"print {name}"])
    assert "got_signal" in found  # a static of the unit, not yet set
    assert "count" not in found and "copy" not in found


def test_registers_scope(
    debugger: Any, events: EventLog, builder: Builder, gdb_vars: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    found = by_name(debugger.frame_variables(stop.thread_id, 0, VariableScope.REGISTERS))
    regs = debugger.read_registers(stop.thread_id)
    for name in ("rip", "rsp"):
        assert name in found
        assert found[name].value.startswith("0x")
        assert int(found[name].value, 16) == regs[name]
    # gdb prints `(void (*)()) 0x... <show_values+N>` and `(void *) 0x7ff...`.
    assert f"{regs['rip']:#x}" in printed_value(gdb_vars["print $rip"])
    assert f"{regs['rsp']:#x}" in printed_value(gdb_vars["print $rsp"])
    # The caller's frame: its own pc and stack pointer.
    caller = by_name(debugger.frame_variables(stop.thread_id, 1, VariableScope.REGISTERS))
    frame1 = debugger.stack_trace(stop.thread_id, 1, 1)[0]
    assert int(caller["rip"].value, 16) == frame1.pc
    assert int(caller["rsp"].value, 16) > regs["rsp"]


def child_map(debugger: Any, parent: VariableInfo, **paging: int) -> dict[str, VariableInfo]:
    assert parent.reference > 0, parent
    return by_name(debugger.variable_children(parent.reference, **paging))


def test_struct_members_and_nested_struct(
    debugger: Any, events: EventLog, builder: Builder, gdb_vars: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    copy = by_name(debugger.frame_variables(stop.thread_id, 0, VariableScope.LOCALS))["copy"]
    members = debugger.variable_children(copy.reference)
    assert [m.name for m in members] == ["id", "in", "ratio", "name"]
    for member in members:
        assert member.value == printed_value(gdb_vars[f"print copy.{member.name}"])
    inner = by_name(members)["in"]
    assert inner.type == "struct inner" and inner.named_children == 2
    nested = debugger.variable_children(inner.reference)
    assert [(m.name, m.value) for m in nested] == [
        ("x", printed_value(gdb_vars["print copy.in.x"])),
        ("y", printed_value(gdb_vars["print copy.in.y"])),
    ]


def test_array_elements_paged(
    debugger: Any, events: EventLog, builder: Builder, gdb_vars: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    values = by_name(debugger.frame_variables(stop.thread_id, 0, VariableScope.LOCALS))["values"]
    page = debugger.variable_children(values.reference, start=10, count=5)
    assert [e.name for e in page] == [f"[{i}]" for i in range(10, 15)]
    assert [e.value for e in page] == [
        printed_value(gdb_vars[f"print values[{i}]"]) for i in range(10, 15)
    ]
    assert [e.type for e in page] == ["int"] * 5
    everything = debugger.variable_children(values.reference)
    assert len(everything) == 20 and everything[10:15] == page
    assert debugger.variable_children(values.reference, start=18, count=5) == everything[18:]


def test_pointer_targets(
    debugger: Any, events: EventLog, builder: Builder, gdb_vars: dict[str, GdbReply]
) -> None:
    stop = stop_at_vars(debugger, events, builder)
    local = by_name(debugger.frame_variables(stop.thread_id, 0, VariableScope.LOCALS))
    [target] = debugger.variable_children(local["vp"].reference)
    assert target.value == printed_value(gdb_vars["print *vp"]) == "103"
    assert target.type == "int"
    op = by_name(debugger.frame_variables(stop.thread_id, 0, VariableScope.ARGUMENTS))["op"]
    children = debugger.variable_children(op.reference)
    if len(children) == 1:  # the pointee as one child ("*op"), its members below it
        children = debugger.variable_children(children[0].reference)
    assert [(c.name, c.value) for c in children] == [
        (name, printed_value(gdb_vars[f"print op->{name}"]))
        for name in ("id", "in", "ratio", "name")
    ]


def test_references_die_on_resume(debugger: Any, events: EventLog, builder: Builder) -> None:
    stop = stop_at_vars(debugger, events, builder)
    copy = by_name(debugger.frame_variables(stop.thread_id, 0, VariableScope.LOCALS))["copy"]
    assert debugger.variable_children(copy.reference)
    debugger.step(stop.thread_id, StepKind.OVER)
    events.wait_for(Stopped, timeout=20)
    with pytest.raises((ProtocolError, TargetError)):
        debugger.variable_children(copy.reference)


# --- -O2 -----------------------------------------------------------------------------------


def test_optimized_out_is_said_never_garbage(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("src_opt", flags=("-g", "-O2"))
    line = marker_line(PROGRAMS_DIR / "src_opt.c", "opt_after")
    replies = run_gdb(
        program, [f"break src_opt.c:{line}", "run", "info args", "info locals"], env=gdb_env()
    )
    assert replies[1].where is not None and replies[1].where.function == "work"
    gdb_values = dict(name_values(replies[2]) + name_values(replies[3]))
    assert "<optimized out>" in gdb_values.values(), gdb_values  # the program still shows one

    launch(debugger, program, env=gdb_env())
    [location] = debugger.resolve_location(f"src_opt.c:{line}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=20)
    ours = {
        v.name: v
        for scope in (VariableScope.ARGUMENTS, VariableScope.LOCALS)
        for v in debugger.frame_variables(stop.thread_id, 0, scope)
    }
    assert set(ours) == set(gdb_values)
    tolerated = []
    for name, expected in gdb_values.items():
        mine = ours[name]
        if expected == "<optimized out>":
            assert "optimized out" in mine.value, (name, mine)
        elif "optimized out" in mine.value:
            tolerated.append(name)  # gdb recovered it (e.g. from an entry value); saying so is fine
        else:
            assert mine.value == expected, (name, mine, expected)
    assert len(tolerated) < len(gdb_values)
    # Evaluating an optimized-out name says so too, never a number.
    gone = [n for n, v in gdb_values.items() if v == "<optimized out>"][0]
    try:
        result = debugger.evaluate(gone, stop.thread_id)
    except ProtocolError as error:
        assert "optimized out" in str(error)
    else:
        assert "optimized out" in result.value
