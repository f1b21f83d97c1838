"""A dprintf's `%s` judged in the program: the trampoline copies the C string (up to
RingBuffer.STRING_BYTES, its NUL in them) into the record, and the server prints it as the
trap's path prints it; a longer string has that hit printed at the trap (gdb's dprintf
prints the whole string), a null pointer prints "(null)", and a string the program cannot
read is the value's error at the trap."""

from __future__ import annotations

from typing import Any

import pytest

from aliceserver.debuggers.events import Exited
from aliceserver.debuggers.logpoints import LogSpec
from tests.support import batch
from tests.support.batch import ex
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import launch

pytestmark = pytest.mark.timeout(180)
SOURCE = "dprintf_strings.c"
FORMAT = r'"i=%d name=%s other=[%10.3s]\n", i, name, other'
PASSES = 700
NAMES = [b"alpha", b"", None, b"E" * 199, b"L" * 250, b"caf\xe9 \xff", b"beta gamma"]


def _runs(builder: Builder, dprintf_format: str) -> dict[str, tuple[str, str]]:
    """stdout and stderr of the dprintf's batch run with jump patches on and off."""
    program = builder.build("dprintf_strings")
    runs = {}
    for patches in ("on", "off"):
        got = batch.ours(["-batch", "-nx", "-iex", f"set breakpoint jump-patches {patches}", *ex(
            f"dprintf {SOURCE}:{marker_line(SOURCE, 'log')},{dprintf_format}",
            f"break {SOURCE}:{marker_line(SOURCE, 'done')}", "run", "maint info breakpoints", "continue",
        ), str(program)], program.parent)  # fmt: skip
        assert got.returncode == 0, got.stderr
        runs[patches] = (got.stdout, got.stderr)
    return runs


def test_strings_print_as_the_trap_prints_them(builder: Builder) -> None:
    runs = {patches: out for patches, (out, _) in _runs(builder, FORMAT).items()}
    assert "; a %s of 200 bytes or more is printed at a trap" in runs["on"]  # (maint info)
    logged = [line for line in runs["off"].splitlines() if line.startswith("i=")]
    assert len(logged) == PASSES and "i=2 name=(null) other=[       EEE]" in logged
    assert [line for line in runs["on"].splitlines() if line.startswith("i=")] == logged
    assert "breakpoint already hit 700 times" in runs["on"]


def test_a_string_unreadable_later_is_the_values_error_at_the_trap(builder: Builder) -> None:
    runs = _runs(builder, r'"i=%d s=%s\n", i, unreadable')
    logged = {patches: [line for line in out.splitlines() if line.startswith("i=")] for patches, (out, _) in runs.items()}
    assert logged["on"] == logged["off"] and logged["on"][49:52] == ["i=49 s=alpha", "i=50 s=", "i=51 s="]
    assert runs["on"][1] == runs["off"][1] and "Cannot access memory at address 0x10" in runs["on"][1]
    assert "patch refused: its condition faulted at 0x" in runs["on"][0]  # after its first 50 records


class _Gate:
    """A logpoint gate: hits at the trap counted, records' strings kept."""

    def __init__(self, debugger: Any) -> None:
        values = tuple(debugger.expression_condition(f"(long long)({e})") for e in ("i", "name"))
        self.spec = LogSpec("strings", values, self._render, strings=(1,))
        self.trapped = 0
        self.recorded: list[tuple[int, bytes]] = []

    def __call__(self, tid: int) -> bool:
        self.trapped += 1
        return False

    def logged(self) -> LogSpec:
        return self.spec

    def _render(self, numbers: tuple[int, ...], strings: tuple[bytes, ...]) -> str:
        self.recorded.append((numbers[0], strings[0]))
        return ""


def test_only_long_strings_are_judged_at_the_trap(debugger: Any, builder: Builder) -> None:
    program = builder.build("dprintf_strings")
    events = EventLog(debugger)
    launch(debugger, program)
    [place] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'log')}")
    gate = _Gate(debugger)
    debugger.insert_breakpoint(int(place.address), condition=gate)
    debugger.resume()
    assert events.wait_for(Exited, timeout=60).code == 0
    recorded = dict(gate.recorded)
    assert len(recorded) == len(gate.recorded) and len(recorded) + gate.trapped == PASSES
    at_trap = set(range(PASSES)) - set(recorded)
    assert {i for i in at_trap if i >= 7} == {i for i in range(7, PASSES) if NAMES[i % 7] == b"L" * 250}
    for i, text in recorded.items():
        if NAMES[i % 7] is not None:
            assert text == NAMES[i % 7], (i, text)
