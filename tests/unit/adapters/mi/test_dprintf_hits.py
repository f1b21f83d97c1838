"""A patched dprintf's hits counted from two threads at once: the logpoint drainer renders
records (each one a hit) while the engine's thread counts hits the gate saw or the
program let go (the MI thread takes them at the stop). No hit may be lost between them.
CPython 3.11 switches threads only at calls and backward jumps, never inside a `+=` on an
attribute, so the threads here trace every opcode of the breakpoint modules' functions:
the trace function's calls let the interpreter switch between any two opcodes, as a
free-threaded build would."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType, SimpleNamespace
from typing import Any

import pytest

from aliceserver.adapters.mi.breakpoints import BreakpointTable, MiBreakpoint, _Gate
from aliceserver.adapters.mi.dprintf import log_spec
from aliceserver.session.breakpoints import BreakpointKind

HITS = 20_000


@pytest.fixture
def tiny_switch_interval() -> Iterator[None]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def opcode_steps(frame: FrameType, event: str, arg: object) -> Any:
    """A thread's trace function: every opcode of the MI breakpoint code is a step."""
    if "adapters/mi" not in frame.f_code.co_filename:
        return None
    frame.f_trace_opcodes = True
    return lambda *_: None


def traced(work: Callable[[], None]) -> Callable[[], None]:
    def run() -> None:
        sys.settrace(opcode_steps)
        try:
            work()
        finally:
            sys.settrace(None)

    return run


def test_records_and_gate_hits_all_counted(tiny_switch_interval: None) -> None:
    bp = MiBreakpoint(1, BreakpointKind.FUNCTION, "f", gdb_type="dprintf", dprintf='"i=%d\\n", i')
    session: Any = SimpleNamespace(debugger=SimpleNamespace(expression_condition=lambda text: text))
    spec = log_spec(session, bp)
    assert spec is not None
    gate = _Gate(lambda tid: True, bp)
    table = BreakpointTable(session)
    table.entries[bp.number] = bp

    def drainer() -> None:
        for i in range(HITS):
            spec.render((i,), ())

    def engine() -> None:
        for _ in range(HITS):
            gate.skipped(1)

    threads = [threading.Thread(target=traced(work)) for work in (drainer, engine)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    table.take_unseen_hits()
    assert bp.hits == 2 * HITS
