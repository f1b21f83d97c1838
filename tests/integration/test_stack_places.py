"""The frames shown at a place in the code are kept from one stop to the next (a loop
stopping at a breakpoint shows the same callers each time): a library unloaded and another
loaded in its place shows its own."""

from __future__ import annotations

import os

import pytest

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from tests.support.build import Builder
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(120)


@pytest.mark.live_only
def test_a_library_loaded_where_another_was_shows_its_own_frames(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    libraries = [builder.build(name, extra=["-shared", "-fPIC"]) for name in ("lib_plugin", "lib_plugin_twin")]
    program = builder.build("reload_plugin", extra=["-ldl"])
    launch(debugger, program, [str(library) for library in libraries])
    debugger.insert_location_breakpoint("plugin_work")
    seen = []
    for library in libraries:
        stop: Stopped = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
        top, caller = debugger.stack_trace(stop.thread_id, 0, 2)
        assert top.function == "plugin_work" and caller.function == "main"
        assert top.module == str(library)
        assert top.source is not None
        seen.append((top.pc, os.path.basename(top.source.path)))
        assert debugger.stack_trace(stop.thread_id, 0, 2) == [top, caller]  # asked again
    assert [source for _pc, source in seen] == ["lib_plugin.c", "lib_plugin_twin.c"]
    assert continue_to_exit(debugger, events).code == 0
