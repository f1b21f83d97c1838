"""MI under `set print address off`, side by side with gdb 13: frame tuples (*stopped,
-stack-list-frames, -stack-info-frame) and breakpoint tuples have no addr field, the
breakpoint table no addr column, and an argument whose value printed empty no value."""

from __future__ import annotations

import pytest

from tests.integration.test_break_conditions import _mi_records
from tests.support.batch import needs_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def test_mi_frames_and_breakpoints_without_addresses_like_gdb(builder: Builder) -> None:
    program = builder.build("mi_prog")
    commands = ["-gdb-set print address off", "-break-insert move", "-break-insert -f nosuch_function",
                "-break-list", "-exec-run", "-stack-list-frames", "-stack-info-frame", "-stack-list-arguments 1",
                "-exec-finish", "-stack-list-variables 1", "-gdb-set print address on", "-stack-info-frame"]
    theirs = _mi_records(program, commands, gdb=True)
    got = _mi_records(program, commands, gdb=False)
    assert got == theirs
    stops = [line for line in got if line.startswith("*stopped")]
    assert stops and all("addr=" not in line for line in stops)
    assert '{name="p"}' in stops[0]  # a pointer's value prints empty: no value field
    assert 'addr="' in got[-1]  # on again: the address is back
