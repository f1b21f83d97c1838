"""A stop of a thread running a jump patch's displaced copy of its site (a watchpoint on
what a displaced instruction writes) is shown where the program is: the original
instruction after the write, its function, line and frames, as at a trap; and a resume
from there goes on in the program, each write made once (patch_displaced.py)."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.model import LaunchConfig, StdioMode, WatchKind
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import continue_to_stop

pytestmark = pytest.mark.timeout(120)
SOURCE = "patched_resume.c"


def patched_at(debugger: Any, address: int) -> str:
    return str(next(b.note for b in debugger.breakpoints() if b.address == address))


def start(debugger: Any, events: EventLog, builder: Builder, flags: tuple[str, ...], spec: str,
          condition: str) -> tuple[int, int]:  # fmt: skip
    """The program stopped at `spec`'s first hit (a trap: its condition compiles there),
    jump patches on; (the site, the stopped thread)."""
    debugger.jump_patches.enabled = True
    debugger.launch(LaunchConfig(program=str(builder.build("patched_resume", flags=flags))))
    [site] = debugger.resolve_location(spec)
    debugger.insert_breakpoint(site.address, condition=debugger.expression_condition(condition))
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.address == site.address
    return site.address, stop.thread_id


def test_a_watch_firing_on_a_displaced_add_to_memory_stops_after_it_in_the_program(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    # -O2: tick is `add [rip+ticks], rdi; ret`: the patch displaces the RIP-relative add.
    site, tid = start(debugger, events, builder, ("-g", "-O2"), "tick", "by == by")
    debugger.watch_expression("ticks", WatchKind.WRITE, tid, 0)
    for by, total in ((1, 1), (2, 3), (3, 6)):
        watched = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
        assert patched_at(debugger, site).startswith("jump patch to ")
        after_add = site + 7
        assert watched.address == after_add  # not the trampoline's copy of it
        [top, *_] = debugger.stack_trace(watched.thread_id)
        assert (top.function, top.pc) == ("tick", after_add)
        assert debugger.evaluate("ticks", watched.thread_id).value == str(total)
        hit = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        assert hit.address == site
        assert debugger.evaluate("by", hit.thread_id).value == str(by + 1)


def test_a_watch_inside_the_patched_span_takes_the_patch_out_and_stops_there(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    # -O0: `total++` is `add dword [rbp-0xc], 1` (4 bytes) then a load: both displaced, and
    # the watch stops between them, in bytes the jump overwrote.
    line = marker_line(SOURCE, "total")
    site, tid = start(debugger, events, builder, ("-g", "-O0"), f"{SOURCE}:{line}", "round == round")
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)  # a patch now, judging round
    assert patched_at(debugger, site).startswith("jump patch to ")
    debugger.watch_expression("total", WatchKind.WRITE, tid, 0)
    watched = continue_to_stop(debugger, events, StopReason.WATCHPOINT)
    assert watched.address == site + 4
    assert debugger.stack_trace(watched.thread_id)[0].function == "main"
    assert debugger.evaluate("total", watched.thread_id).value == "2"
    assert not patched_at(debugger, site).startswith("jump patch to ")  # the bytes are back
    hit = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert hit.address == site
    assert debugger.evaluate("round", hit.thread_id).value == "2"
    assert debugger.evaluate("total", hit.thread_id).value == "2"


def test_a_signal_in_a_trampoline_is_delivered_in_the_program(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    # A 2 ms timer interrupts the loop mostly inside work's trampoline (its condition is
    # false): the handler's caller is work (or main), never a frame without a function,
    # and no step of ours leaks a trap flag into the program (no stray stop).
    debugger.jump_patches.enabled = True
    debugger.launch(LaunchConfig(program=str(builder.build("patched_signal")), stdio=StdioMode.PIPES))
    [site] = debugger.resolve_location(f"patched_signal.c:{marker_line('patched_signal.c', 'work')}")
    debugger.insert_breakpoint(site.address, condition=debugger.expression_condition("i == -1"))
    [handler] = debugger.resolve_location(f"patched_signal.c:{marker_line('patched_signal.c', 'handler')}")
    debugger.insert_breakpoint(handler.address)
    callers = []
    for _ in range(40):
        stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        assert stop.address == handler.address
        names = [frame.function for frame in debugger.stack_trace(stop.thread_id)]
        assert names[:2] == ["on_alarm", "__restore_rt"], names
        callers.append(names[2])
    assert set(callers) <= {"work", "main"}, callers
    assert patched_at(debugger, site.address).startswith("jump patch to ")
