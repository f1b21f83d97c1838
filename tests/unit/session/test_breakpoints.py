"""The session core's breakpoint record: one numbering, and a stop's engine ids mapped
back to the user's breakpoints."""

from __future__ import annotations

from aliceserver.session.breakpoints import (
    BreakpointKind,
    BreakpointNumbers,
    UserBreakpoint,
    UserBreakpoints,
    kind_of_spec,
)


def test_tables_sharing_one_numbering_never_reuse_a_number() -> None:
    numbers = BreakpointNumbers()
    client: UserBreakpoints[UserBreakpoint] = UserBreakpoints(numbers)
    console: UserBreakpoints[UserBreakpoint] = UserBreakpoints(numbers)
    first = client.add(UserBreakpoint(client.numbers.take(), BreakpointKind.FUNCTION, "main"))
    second = console.add(UserBreakpoint(console.numbers.take(), BreakpointKind.DATA_WATCH, "x"))
    third = client.add(UserBreakpoint(client.numbers.take(), BreakpointKind.SOURCE_LINE, "p.c:3"))
    assert (first.number, second.number, third.number) == (1, 2, 3)
    assert numbers.last == 3 and numbers.next == 4
    assert [bp.number for bp in client] == [1, 3] and 2 in console and 2 not in client
    assert client.remove(1) is first and client.remove(1) is None
    assert client.numbers.take() == 4  # a deleted number is not given again, as in gdb


def test_a_stops_engine_ids_name_their_breakpoints_once_each() -> None:
    table: UserBreakpoints[UserBreakpoint] = UserBreakpoints()
    line = table.add(UserBreakpoint(1, BreakpointKind.SOURCE_LINE, "p.c:3", location_id=10, address_ids=(11, 12)))
    watch = table.add(UserBreakpoint(2, BreakpointKind.DATA_WATCH, "x", watch_id=11))
    assert table.owners((12, 11)) == [line]  # two of its traps: counted once
    assert table.owners((11,), watch=True) == [watch]
    assert table.count_hits((11, 12)) == [line] and line.hits == 1 and watch.hits == 0
    assert table.by_location_id(10) is line and table.by_location_id(11) is None
    table.discard(watch)
    assert table.owners((11,), watch=True) == [] and len(table) == 1


def test_the_kind_of_a_location_spec() -> None:
    assert kind_of_spec("prog.c:42") is BreakpointKind.SOURCE_LINE
    assert kind_of_spec("42") is BreakpointKind.SOURCE_LINE
    assert kind_of_spec("*0x401136") is BreakpointKind.ADDRESS
    assert kind_of_spec("0x401136") is BreakpointKind.ADDRESS
    assert kind_of_spec("main") is BreakpointKind.FUNCTION
    assert kind_of_spec("ns::Widget::draw") is BreakpointKind.FUNCTION
