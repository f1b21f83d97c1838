"""Watchpoints wider than one x86 debug register, as gdb 13 sets them: a 16-byte struct,
a 12-byte array and an unaligned int each split over several registers (at most four in
all), their whole value told at each change; one wider than the four together is refused
in our words (gdb falls back to a software watchpoint, which we do not have), and one set
before the run that cannot be set in the process says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, ours, output_like_gdb
from tests.support.build import Builder

pytestmark = needs_gdb


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("watch_wide")


def test_a_struct_an_array_and_an_unaligned_int_are_watched_whole(prog: Path) -> None:
    out = output_like_gdb(prog, [
        "break main", "run", "watch where", "watch triple", "continue", "continue", "continue",
        "delete", "watch rec.count", "continue", "info watchpoints", "kill",
    ])  # fmt: skip
    assert "Old value = {x = 0, y = 0}\nNew value = {x = 0, y = 1}\n" in out
    assert "Old value = {0, 0, 0}\nNew value = {0, 0, 1}\n" in out
    assert "Hardware watchpoint 4: rec.count\n\nOld value = 1\nNew value = 2\n" in out


def test_watch_location_of_a_bit_field_tells_its_bits(prog: Path) -> None:
    """`watch -location flags.c` watches the bytes holding it and tells the field's own
    value, passing over writes of its neighbours in those bytes (gdb's bit-field lvalue)."""
    out = output_like_gdb(prog, [
        "break touch", "run", "delete 1", "watch -location flags.c", "watch -location flags.a",
        "continue", "continue", "continue", "continue", "info watchpoints", "kill",
    ])  # fmt: skip
    assert "Hardware watchpoint 2: -location flags.c\n\nOld value = 0\nNew value = -1\n" in out
    assert "Old value = -1\nNew value = -2\n" in out


def _ours(prog: Path, commands: list[str]) -> str:
    done = ours(["-batch", "-nx", *ex(*commands), str(prog)], prog.parent)
    return done.stdout + done.stderr


def test_a_watch_wider_than_the_registers_is_a_software_watchpoint(prog: Path) -> None:
    """gdb's fallback where the debug registers cannot hold a write watch: a software
    watchpoint (`Watchpoint N`, type `watchpoint`), the program single-stepped while it
    is enabled."""
    out = output_like_gdb(prog, ["break touch", "run", "watch wide", "info watchpoints", "continue", "continue",
                                 "info watchpoints", "kill"])  # fmt: skip
    assert "Watchpoint 2: wide\n" in out and "2       watchpoint     keep y" in out
    assert "Old value = '\\000' <repeats 99 times>\n" in out


def test_a_watch_on_an_expression_watches_what_it_reads(builder: Builder) -> None:
    """`watch a + b` stops where its value changes (a write that leaves the sum alone is
    passed over), bit-fields' sums and an element's product alike; `watch 5` is gdb's
    constant error."""
    prog = builder.build("watch_sums")
    out = output_like_gdb(prog, [
        "break main", "run", "watch a + b", "watch 5", "watch q.d + q.f + q.g", "info watchpoints",
        *["continue"] * 9, "delete", "watch arr[1] * 2", "continue", "continue", "kill",
    ])  # fmt: skip
    assert "Hardware watchpoint 2: a + b\n\nOld value = 0\nNew value = 1\n" in out
    assert "Cannot watch constant value `5'." in out
    assert "Hardware watchpoint 3: q.d + q.f + q.g\n\nOld value = 1\nNew value = 3\n" in out
    assert "Old value = 10\nNew value = 12\n" in out


def test_a_watch_on_an_expression_read_through_a_pointer_is_refused(builder: Builder) -> None:
    """gdb re-reads such an expression's chain as its pointer moves; we do not follow it,
    and say so rather than watch the wrong memory."""
    prog = builder.build("watch_sums")
    said = _ours(prog, ["break main", "run", "watch *p + 1", "info watchpoints", "kill"])
    assert "cannot watch '*p + 1': it is not in memory, and the memory it reads moves with a pointer" in said
    assert "No watchpoints." in said


def test_watchpoints_of_an_ended_run_free_their_registers(prog: Path) -> None:
    """Watchpoints deleted after their program exited took their debug registers with
    them: the next run has all four for a struct and an array (two each)."""
    out = output_like_gdb(prog, [
        "break main", "run", "watch -location flags.c", "watch -location rec.count", *["continue"] * 8,
        "delete", "break main", "run", "watch where", "watch triple", "continue", "info watchpoints", "kill",
    ])  # fmt: skip
    assert "Hardware watchpoint 5: where\n" in out and "Hardware watchpoint 6: triple\n" in out
    assert "Old value = {x = 0, y = 0}\nNew value = {x = 0, y = 1}\n" in out


def test_constants_and_registers_are_refused_in_gdbs_words(builder: Builder) -> None:
    """A function is a constant to watch; a register cannot be read- or access-watched."""
    prog = builder.build("watch_sums")
    out = output_like_gdb(prog, [
        "break main", "run", "watch main", "rwatch $pc", "awatch $rax", "rwatch a", "info watchpoints", "kill",
    ])  # fmt: skip
    assert "Cannot watch constant value `main'." in out
    assert out.count("Expression cannot be implemented with read/access watchpoint.") == 2


def test_software_watchpoints_when_hardware_ones_are_off(builder: Builder) -> None:
    """`set can-use-hw-watchpoints 0`: every write watch is a software one, triggers,
    `next` and `finish` past them as gdb; read and access watches are refused in gdb's
    words; one on a local dies with its frame."""
    prog = builder.build("daily_flow")
    out = output_like_gdb(prog, [
        "set can-use-hw-watchpoints 0", "break add", "run", "watch total", "rwatch total", "info watchpoints",
        "continue", "continue", "next", "next", "delete", "break depth", "continue", "watch below", "delete 3",
        "continue", "continue", "info watchpoints",
    ])  # fmt: skip
    assert "Watchpoint 2: total\n" in out
    assert "Can't set read/access watchpoint when hardware watchpoints are disabled." in out
    assert "deleted because the program has left the block" in out


def test_a_call_runs_past_software_watchpoints(builder: Builder) -> None:
    """gdb runs a function it calls with its software watchpoints unchecked: `p f ()`
    returns its value even where f writes a watched variable."""
    prog = builder.build("daily_flow")
    out = output_like_gdb(prog, [
        "break depth", "run", "set can-use-hw-watchpoints 0", "watch total", "p square (3)", "p add (2)",
        "p total", "continue", "kill",
    ])  # fmt: skip
    assert "$1 = 9\n$2 = void\n$3 = 17\n" in out


def test_a_software_watchpoint_steps_over_a_breakpoint_that_does_not_stop(builder: Builder) -> None:
    """A continue's single steps reach a breakpoint whose condition is false: it is
    stepped over as a continue steps over it (it looped on the trap)."""
    prog = builder.build("daily_flow")
    out = output_like_gdb(prog, [
        "break main", "run", "set can-use-hw-watchpoints 0", "watch total", "break add if 0", "next", "next",
        "continue", "continue", "info breakpoints", "kill",
    ])  # fmt: skip
    assert "Watchpoint 2: total\n\nOld value = 0\nNew value = 1\n" in out
