"""Signals as gdb's signals.exp meets them, side by side with gdb 13: calling an
unprototyped `static void func1 ()` (no DW_AT_type: void, not an unknown return type);
`condition $var` naming the breakpoint by a convenience variable's value; `info signals`
and `handle` over gdb's whole table in gdb's order (SIGEMT, SIGLOST, SIG127, EXC_*...,
which Linux has not), glibc's SIG32 and SIG33 nostop noprint once a program runs; `step`
and `next` out of a handler go through the signal trampoline back to the interrupted
code's next line (ours stopped at `<signal handler called>`); stepi, step and next from
a signal's stop deliver it and stop at its handler's entry (ours kept it for the next
continue: stepi stayed in the loop, a step of the loop never ended), and a signal taken
during a step runs its handler, the step going on after it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, output_like_gdb, theirs
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("alarm_handler")


def test_call_unprototyped_void_function_like_gdb(prog: Path) -> None:
    line = marker_line("alarm_handler.c", "first")
    got = output_like_gdb(prog, [f"break {line}", "run", "print func1 ()", "print count", "call func2 ()",
                                 "print count", "kill"])  # fmt: skip
    assert "$1 = void" in got


def test_condition_by_convenience_variable_like_gdb(prog: Path) -> None:
    got = output_like_gdb(prog, ["break handler if 0", "set $h = $bpnum", "condition $h",
                                 "condition $h count > 1", "info breakpoints", "condition $nosuch",
                                 "set $f = 1.5", "condition $f", "condition $1 count"])  # fmt: skip
    assert "stop only if count > 1" in got


def test_signal_table_like_gdb(prog: Path) -> None:
    got = output_like_gdb(prog, ["info signals", "handle SIG63 print SIGILL", "handle SIGEMT nostop",
                                 "info signals 7", "info signals SIGEMT", "handle 7-8 nopass",
                                 "handle a nopass", "info signals", "handle al pass", "break main", "run",
                                 "info signals SIG32", "info signals", "kill"])  # fmt: skip
    assert "EXC_BREAKPOINT Yes\tYes\tNo\t\tBreakpoint" in got


@pytest.mark.parametrize("command", ["step", "next"])
def test_step_out_of_handler_like_gdb(builder: Builder, command: str) -> None:
    spin = builder.build("vtalrm_spin")
    got = output_like_gdb(spin, ["break handler", "run", command, command, command, "bt", "kill"])
    assert "<signal handler called>" not in got
    assert "return 0;" in got  # back in main, after the loop the handler ended


def _without_timing(text: str) -> str:
    """Where the timer's signal found the loop, and what its handler's argument slot
    holds at the handler's entry (before the handler wrote it), differ from run to run."""
    text = re.sub(r"0x[0-9a-f]+ in main", "ADDR in main", normalized(text))
    return re.sub(r"handler \(sig=-?\d+\)", "handler (sig=N)", text)


@pytest.mark.parametrize("command", ["stepi", "nexti", "step", "next"])
def test_step_from_signal_stop_enters_handler_like_gdb(builder: Builder, command: str) -> None:
    spin = builder.build("vtalrm_spin")
    args = ["-batch", "-nx", *ex("handle SIGVTALRM stop print", "run", command, "bt", "kill"), str(spin)]
    expected, got = theirs(args, spin.parent), ours(args, spin.parent)
    assert _without_timing(got.stdout) == _without_timing(expected.stdout)
    assert "#1  <signal handler called>" in got.stdout


@pytest.mark.parametrize("command", ["step", "next"])
def test_signal_during_step_runs_its_handler_like_gdb(builder: Builder, command: str) -> None:
    spin = builder.build("vtalrm_spin")
    line = marker_line("vtalrm_spin.c", "loop")
    got = output_like_gdb(spin, [f"break {line}", "run real", command, "bt", "kill"])
    assert "return 0;" in got


@pytest.mark.parametrize("command", ["stepi", "nexti"])
def test_stepi_onto_a_breakpoint_hits_it_like_gdb(builder: Builder, command: str) -> None:
    """gdb's bpstat takes a step's stop at a breakpoint's address for its hit: stepi into
    a handler whose entry has a breakpoint (sigstep.exp's `break *handler`), counted."""
    spin = builder.build("vtalrm_spin")
    args = ["-batch", "-nx", *ex("handle SIGVTALRM stop print", "run", "break *handler", command,
                                 "info breakpoints", "kill"), str(spin)]  # fmt: skip
    expected, got = theirs(args, spin.parent), ours(args, spin.parent)
    assert _without_timing(got.stdout) == _without_timing(expected.stdout)
    assert "\nBreakpoint 1, handler (sig=" in got.stdout and "breakpoint already hit 1 time" in got.stdout


@pytest.mark.parametrize("command", ["stepi", "nexti"])
def test_signal_during_stepi_runs_its_handler_like_gdb(builder: Builder, command: str) -> None:
    """A real-time timer's SIGALRM (nostop) comes while the program waits at the loop:
    stepi and nexti run its handler through (a breakpoint at its entry stops there) and
    then take their one instruction, as gdb's step-resume breakpoint (sigstep.exp's
    'stepi over handler'); ours stopped at the handler's entry."""
    spin = builder.build("vtalrm_spin")
    loop = marker_line("vtalrm_spin.c", "loop")
    wait = "python import time; time.sleep(0.3)"  # the timer (50 ms) expires meanwhile
    got = output_like_gdb(spin, ["break main", "run real", f"advance {loop}", wait, command, "p $pc", "kill"])
    assert "<signal handler called>" not in got
    args = ["-batch", "-nx", *ex("break main", "run real", f"advance {loop}", wait, "break *handler", command, "bt",
                                 "kill"), str(spin)]  # fmt: skip
    expected, ran = theirs(args, spin.parent), ours(args, spin.parent)
    assert _without_timing(ran.stdout) == _without_timing(expected.stdout)
    assert "\nBreakpoint 2, handler (sig=" in ran.stdout
