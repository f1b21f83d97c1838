"""Threads whose hits of a patched breakpoint come while another thread's stop is being
reported: each is put back at the site to run the jump again, and must still do so at a
later continue when another stop came first (patched_breakpoints.py). Four threads cross
one line 2,000 times each; the condition holds 20 times per thread: 80 stops, as with
traps and in gdb."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.model import LaunchConfig, StdioMode
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.jump_patches import jump_patches as jump_patches  # the fixture

pytestmark = [pytest.mark.timeout(300), pytest.mark.usefixtures("jump_patches")]


def test_every_threads_true_condition_stops_once(debugger: Any, events: EventLog, builder: Builder,
                                                 jump_patches: str) -> None:  # fmt: skip
    debugger.launch(LaunchConfig(program=str(builder.build("patch_sites")), stdio=StdioMode.PIPES))
    [site] = debugger.resolve_location(f"patch_sites.c:{marker_line('patch_sites.c', 'spin')}")
    ident = debugger.insert_breakpoint(site.address, condition=debugger.expression_condition("n % 100 == 99")).id
    stops: dict[str, list[int]] = {}
    patched = 0
    debugger.resume()
    while True:
        event = events.wait_for(object, timeout=30, predicate=lambda e: isinstance(e, (Stopped, Exited)))
        if not isinstance(event, Stopped):
            break
        assert event.reason == StopReason.BREAKPOINT and event.address == site.address, event
        thread = debugger.evaluate("id", event.thread_id).value
        stops.setdefault(thread, []).append(int(debugger.evaluate("n", event.thread_id).value))
        [note] = [b.note for b in debugger.breakpoints() if b.id == ident]
        patched += note.startswith("jump patch to ")
        debugger.resume()
    assert stops == {str(i): list(range(99, 2000, 100)) for i in range(4)}
    if jump_patches == "on":
        assert patched >= 70  # (the first hits come through the trap, as it compiles)
