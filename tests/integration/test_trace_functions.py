"""The functions a trace pattern chooses from: a name filter gets records only for the names
it accepts (libc's 2,666 records cost 0.4-0.6 s of the engine thread at each traced run),
and the same functions as the whole listing filtered afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import StopReason
from aliceserver.tracing.patterns import name_filter, parse_pattern
from tests.support.build import Builder
from tests.support.events import EventLog
from tests.support.session import continue_to_stop, launch

pytestmark = pytest.mark.timeout(120)


def test_name_filter_lists_what_the_whole_listing_filtered_gives(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program: Path = builder.build("trace_calls")
    launch(debugger, program)
    debugger.insert_location_breakpoint("main")
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)  # libc is loaded
    accept = name_filter([parse_pattern("square"), parse_pattern("str*"), parse_pattern("fib")])
    assert accept is not None
    asked: list[str] = []

    def named(name: str) -> bool:
        asked.append(name)
        return accept(name)

    chosen = debugger.functions(named)
    assert {f.name for f in chosen} >= {"square", "fib"}
    assert "main" in asked and "main" not in {f.name for f in chosen}  # names tested, not listed
    assert chosen == [f for f in debugger.functions() if accept(f.name)]


def test_a_file_pattern_needs_every_record() -> None:
    assert name_filter([parse_pattern("square"), parse_pattern("@file:trace_calls.c")]) is None
    assert name_filter([parse_pattern("@usercode")]) is None
