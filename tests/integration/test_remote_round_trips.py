"""What the engine asks of gdbserver at each stop, counted through a recording proxy and
a write at a time (each write one round trip at most): the packets of a breakpoint hit
resumed (the step-over's z0/Z0 ride with the resumes; the thread list and stack line a
reported stop reads are asked at once, its registers come with the stop reply), a `next`
over a call (a range step, gdb's vCont;r, not an instruction at a time; its return trap's
Z0 with the continue) and a stepi (no `Hg`: the stop's thread is the stub's). A
speed-up that regressed would show here as more packets, never as a timing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from aliceserver.debuggers.events import Event, Stopped
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import StepKind
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.debuggers.remote.connection import TcpChannel
from tests.support.build import Builder, marker_line
from tests.support.gdbserver import gdbserver
from tests.support.rsp_proxy import Proxy, rsp_proxy

pytestmark = pytest.mark.timeout(120)
_PACKET = re.compile(rb"\$([^#]*)#[0-9a-f]{2}")


def _bodies(sent: bytes) -> list[bytes]:
    return _PACKET.findall(sent)


def _stop(events: Subscription) -> Stopped:
    event: Event = events.get(timeout=30)
    while not isinstance(event, Stopped):
        event = events.get(timeout=30)
    return event


@contextmanager
def _engine(program: Path) -> Iterator[tuple[PtraceDebugger, Subscription, Proxy]]:
    with gdbserver(program) as server, rsp_proxy(server.address) as proxy:
        debugger = PtraceDebugger()
        events = debugger.subscribe()
        try:
            debugger.connect_remote(proxy.address, program=str(program))
            yield debugger, events, proxy
        finally:
            debugger.close()


def _recorded_writes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """What the engine writes to the stub, a write at a time (a round trip each at most)."""
    writes: list[bytes] = []
    write = TcpChannel.write

    def recorded(channel: TcpChannel, data: bytes) -> None:
        writes.append(data)
        write(channel, data)

    monkeypatch.setattr(TcpChannel, "write", recorded)
    return writes


@dataclass
class AtLoop:
    debugger: PtraceDebugger
    events: Subscription
    proxy: Proxy
    writes: list[bytes]  # what the engine wrote to the stub, a write at a time
    tid: int  # the thread stopped at the loop's line
    loop: int  # that line


@pytest.fixture
def at_loop(builder: Builder, monkeypatch: pytest.MonkeyPatch) -> Iterator[AtLoop]:
    """mi_prog over gdbserver, through a recording proxy, stopped at its loop's line."""
    writes = _recorded_writes(monkeypatch)
    program = builder.build("mi_prog")
    loop = marker_line("mi_prog.c", "loop")
    with _engine(program) as (debugger, events, proxy):
        debugger.insert_location_breakpoint(f"mi_prog.c:{loop}")
        debugger.resume()
        yield AtLoop(debugger, events, proxy, writes, _stop(events).thread_id, loop)


def _kinds(writes: list[bytes]) -> list[list[bytes]]:
    """Each write's packets by their verb (`m` for a memory read, `qXfer`, `vCont`...)."""
    return [
        [body[:1] if body[:1] == b"m" else re.split(rb"[,:;]", body)[0] for body in _bodies(data)]
        for data in writes
    ]


def _reads_at_stop(writes: list[list[bytes]], *, code: bool = False) -> bool:
    """What a reported stop reads, asked in one write with its stop reply: the thread list
    and the stack pointer's line (after the pc's line, where a step ends: the next step
    reads the code there), no `g` (frame 0 unwinds from the registers the stop reply
    carried); after it at most the next stack line, where the frame's slots above the
    stack pointer cross into it (as the environment's size puts the stack)."""
    asked = [b"m", b"qXfer", b"m"] if code else [b"qXfer", b"m"]
    return writes[0] == asked and writes[1:] in ([], [[b"m"]])


def test_a_breakpoint_hit_resumed_costs_the_thread_list_and_the_step_over(
    builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = _recorded_writes(monkeypatch)
    program = builder.build("mi_prog")
    with _engine(program) as (debugger, events, _):
        debugger.insert_location_breakpoint("add")
        debugger.resume()
        _stop(events)  # the first hit: symbols and libraries read by now
        hits = []
        for _ in range(3):
            before = len(writes)
            debugger.resume()
            debugger.stack_trace(_stop(events).thread_id, 0, 1)  # as a front end shows the stop
            hits.append(_kinds(writes[before:]))
    for sent in hits:
        # z0 + vCont;s in one write, Z0 + vCont;c in another, the stop's reads in a third
        assert sent[:2] == [[b"z0", b"vCont"], [b"Z0", b"vCont"]], sent
        assert _reads_at_stop(sent[2:]), sent


def test_next_over_a_call_is_a_range_step_and_stepi_asks_no_thread(at_loop: AtLoop) -> None:
    debugger, events, tid = at_loop.debugger, at_loop.events, at_loop.tid
    before = len(at_loop.proxy.from_client)
    debugger.step(tid, StepKind.OVER)
    _stop(events)
    source = debugger.stack_trace(tid, 0, 1)[0].source
    stepped = _bodies(bytes(at_loop.proxy.from_client[before:]))
    before = len(at_loop.writes)
    debugger.step_instruction(tid)
    _stop(events)
    debugger.stack_trace(tid, 0, 1)
    stepi = _kinds(at_loop.writes[before:])
    assert source is not None and source.line == at_loop.loop - 1  # the loop's `for`, as gdb's next
    assert any(body.startswith(b"vCont;r") for body in stepped), stepped
    assert not any(body.startswith(b"vCont;s") for body in stepped), stepped  # no step at a time
    # the step (no Hg: the stop's thread is the stub's), then in one write what the stop's
    # report reads, nothing asked after it
    assert stepi[0] == [b"vCont"] and _reads_at_stop(stepi[1:]), stepi


def test_next_over_a_call_sends_its_return_trap_with_the_resumes(at_loop: AtLoop) -> None:
    """A next over a call stops in the callee (a range step), runs to the return address
    and steps on: the return trap's Z0 goes in the continue's write and its z0 in the next
    request's, no round trip of their own (gdb's next spends two on them)."""
    before = len(at_loop.writes)
    at_loop.debugger.step(at_loop.tid, StepKind.OVER)
    _stop(at_loop.events)
    sent = _kinds(at_loop.writes[before:])
    trap = next(kinds for kinds in sent if b"vCont" in kinds and b"Z0" in kinds)
    assert trap[-2:] == [b"Z0", b"vCont"], sent  # the return trap, then the continue
    removal = next(kinds for kinds in sent[sent.index(trap) + 1 :] if b"z0" in kinds)
    assert removal[0] == b"z0" and len(removal) > 1, sent  # with the request after it


def test_a_next_reads_the_code_at_its_first_move_only_and_its_last_stops_reads_at_once(
    at_loop: AtLoop,
) -> None:
    """After a call is stepped over, the rest of the line is range-stepped with no look at
    the code at pc (a call there would be stepped into and returned from, as one further
    in the line): the return trap's z0 goes with the range step. The plan's
    last stop, whose stops before asked for nothing, asks what its report reads at once."""
    before = len(at_loop.writes)
    at_loop.debugger.step(at_loop.tid, StepKind.OVER)
    _stop(at_loop.events)
    at_loop.debugger.stack_trace(at_loop.tid, 0, 1)
    sent = _kinds(at_loop.writes[before:])
    trap = next(index for index, kinds in enumerate(sent) if kinds[-2:] == [b"Z0", b"vCont"])
    removal = next(kinds for kinds in sent[trap + 1 :] if b"z0" in kinds)
    assert removal == [b"z0", b"vCont"], sent
    last_move = max(index for index, kinds in enumerate(sent) if b"vCont" in kinds)
    assert _reads_at_stop(sent[last_move + 1 :], code=True), sent


def test_nexts_in_a_row_read_the_code_and_the_callees_frame_with_the_stop_replies(at_loop: AtLoop) -> None:
    """A next's first move reads the code at the pc, which the stop before (a next's last)
    asked for with its stop reply; a range step that stops in a callee asks for the
    stack line its plan reads (the return address) with its stop reply too, its registers
    in the reply: the return trap's Z0 and continue are the next write, no `g` or `m` of
    their own."""
    debugger, events, tid = at_loop.debugger, at_loop.events, at_loop.tid
    debugger.remove_breakpoint(1)  # the loop's next turn is stepped to
    nexts = []
    for _ in range(3):  # to the `for`, back to the loop's line, over its call
        before = len(at_loop.writes)
        debugger.step(tid, StepKind.OVER)
        _stop(events)
        debugger.stack_trace(tid, 0, 1)
        nexts.append(_kinds(at_loop.writes[before:]))
    for sent in nexts[1:]:
        assert b"vCont" in sent[0], sent  # the code at the pc was read with the stop before
    over_call = nexts[2]
    trap = next(index for index, kinds in enumerate(over_call) if kinds[-2:] == [b"Z0", b"vCont"])
    # between the range step into the callee and its return trap: its stop's reads only
    assert _reads_at_stop(over_call[1:trap], code=True), over_call
