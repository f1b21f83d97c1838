"""A stop's registers over gdbserver come from its stop reply where they can: the `T`
reply carries rip, rsp and rbp, frame 0's CFI step in main needs no more (its CFA rule's
register and the return address's slot), and a step's kept unwinding compares only the
registers it read. So a stepi in main's loop, its frame and arguments shown, sends no
`g`, as gdb's own step over the same stub; a register the reply did not carry still reads
its true value (one `g` then)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from aliceserver.debuggers.events import Event, Stopped
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import StepKind
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from tests.support.build import Builder, marker_line
from tests.support.gdbserver import gdbserver
from tests.support.rsp_proxy import Proxy, rsp_proxy

pytestmark = pytest.mark.timeout(120)
_PACKET = re.compile(rb"\$([^#]*)#[0-9a-f]{2}")


def _stop(events: Subscription) -> Stopped:
    event: Event = events.get(timeout=30)
    while not isinstance(event, Stopped):
        event = events.get(timeout=30)
    return event


def _full_reads(proxy: Proxy, since: int) -> int:
    """How many `g` packets the client sent after byte `since` of what it sent."""
    return _PACKET.findall(bytes(proxy.from_client[since:])).count(b"g")


class AtLoop:
    def __init__(self, debugger: PtraceDebugger, events: Subscription, proxy: Proxy, tid: int) -> None:
        self.debugger, self.events, self.proxy, self.tid = debugger, events, proxy, tid

    def shown(self, move: str) -> tuple[int, str]:
        """`move` the thread, then its stop as a front end shows it (frame 0 with its
        arguments and caller): the `g` packets that cost, and what was shown."""
        before = len(self.proxy.from_client)
        if move == "stepi":
            self.debugger.step_instruction(self.tid)
        else:
            self.debugger.step(self.tid, StepKind.OVER)
        _stop(self.events)
        frames = self.debugger.stack_trace(self.tid, 0, 2, arguments=True)
        return _full_reads(self.proxy, before), repr([(f.function, f.pc, f.cfa) for f in frames])


@pytest.fixture
def at_loop(builder: Builder) -> Iterator[AtLoop]:
    program: Path = builder.build("mi_prog")
    loop = marker_line("mi_prog.c", "loop")
    with gdbserver(program) as server, rsp_proxy(server.address) as proxy:
        debugger = PtraceDebugger()
        events = debugger.subscribe()
        try:
            debugger.connect_remote(proxy.address, program=str(program))
            debugger.insert_location_breakpoint(f"mi_prog.c:{loop}")
            debugger.resume()
            tid = _stop(events).thread_id
            debugger.remove_breakpoint(1)
            yield AtLoop(debugger, events, proxy, tid)
        finally:
            debugger.close()


def test_a_stepi_in_main_sends_no_g(at_loop: AtLoop) -> None:
    for _ in range(3):
        reads, frames = at_loop.shown("stepi")
        assert reads == 0, frames
        assert "'main'" in frames, frames


def test_registers_the_stop_reply_lacks_are_read_once_and_true(at_loop: AtLoop) -> None:
    """rbx and r12 are no expedited registers: main's caller keeps them (same value), read
    from frame 0's when asked, with one `g` for the stop; the values are the thread's."""
    at_loop.shown("stepi")
    before = len(at_loop.proxy.from_client)
    caller = at_loop.debugger.frame_registers(at_loop.tid, 1)
    kept = caller["rbx"], caller["r12"]
    registers = at_loop.debugger.read_registers(at_loop.tid)
    assert _full_reads(at_loop.proxy, before) == 1
    assert kept == (registers.values["rbx"], registers.values["r12"])



def test_stepi_into_a_callee_with_its_arguments_sends_no_g(at_loop: AtLoop) -> None:
    """In add(a, b), its arguments shown look for entry values at main's call site, with
    main's registers over add's (those its CFI does not restore): each is asked for when
    read, not copied whole (which cost a `g` at each stop in a callee)."""
    shown = [at_loop.shown("stepi") for _ in range(30)]
    assert any(frames.startswith("[('add'") for _, frames in shown), shown
    assert all(reads == 0 for reads, _ in shown), shown
