"""Entry values at -O2 as gdb 13 shows them (`print entry-values default`): a parameter's
value at its function's entry, read through the caller's DW_TAG_call_site_parameter.
Frame lines fold an equal pair into `x=x@entry=5` and show `x=22, x@entry=5` otherwise;
MI's frame args, -stack-list-arguments and -stack-list-variables list `x@entry` items."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import VariableScope
from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.mi_client import MiClient
from tests.support.session import launch

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

FLAGS = ("-g", "-O2")


def _program(builder: Builder) -> Path:
    return builder.build("entry_values", FLAGS)


def test_frame_lines_show_entry_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    changed = marker_line("entry_values.c", "changed")
    assert_like_gdb([
        "-ex", "break lost", "-ex", f"break entry_values.c:{changed}", "-ex", "break kept", "-ex", "run",
        "-ex", "bt", "-ex", "continue", "-ex", "bt", "-ex", "continue", "-ex", "bt",
        "-ex", "set print entry-values both", "-ex", "frame", "-ex", "set print entry-values no", "-ex", "frame",
        "-ex", "set print entry-values only", "-ex", "frame", "-ex", "set print entry-values compact",
        "-ex", "frame", "-ex", "show print entry-values", "-ex", "continue", "-ex", "bt", str(program),
    ], tmp_path)  # fmt: skip


def _mi_lists(program: Path, cwd: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=cwd, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert entry_values.c:{marker_line('entry_values.c', 'changed')}")
        mi.ok("-exec-run")
        seen: list[object] = [mi.stopped().results["frame"]]
        for command in ("-stack-list-arguments 1", "-stack-list-arguments 2", "-stack-list-arguments 0",
                        "-stack-list-variables 1", "-stack-list-variables 0"):  # fmt: skip
            seen.append(mi.ok(command).results)
        return seen
    finally:
        mi.close()


def test_mi_lists_entry_values_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = _program(builder)
    ours, gdb = _mi_lists(program, tmp_path, gdb=False), _mi_lists(program, tmp_path, gdb=True)
    assert ours == gdb
    assert "x@entry" in repr(ours)


@pytest.mark.live_only
def test_arguments_without_entry_values_as_dap_asks(debugger: Any, events: Any, builder: Builder) -> None:
    """entry_values=False (DAP shows none) leaves them out; asked after, they come, and a
    later answer without them may be that answer (entries are extra, never different)."""
    launch(debugger, _program(builder))
    [location] = debugger.resolve_location(f"entry_values.c:{marker_line('entry_values.c', 'changed')}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=20)
    bare = debugger.frame_variables(stop.thread_id, 0, VariableScope.ARGUMENTS, entry_values=False)
    assert bare and all(info.entry is None for info in bare)
    full = debugger.frame_variables(stop.thread_id, 0, VariableScope.ARGUMENTS)
    assert [info.name for info in full] == [info.name for info in bare]
    assert any(info.entry is not None for info in full)
    again = debugger.frame_variables(stop.thread_id, 0, VariableScope.ARGUMENTS, entry_values=False)
    assert [(info.name, info.value) for info in again] == [(info.name, info.value) for info in bare]
