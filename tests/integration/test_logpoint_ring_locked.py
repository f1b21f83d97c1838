"""A logpoint's full ring under scheduler-locking (patched_logs.finish_records): one thread
is held stopped inside its record (reserved, not yet complete) while another runs alone and
fills the ring. The drain stops at the held record, so the running thread's trap at the
full ring found nothing freed and retried forever; now the held thread is stepped to the
end of its record inside the trampoline first, and the running one goes on."""

from __future__ import annotations

import re
import time
from typing import Any

import capstone  # type: ignore[import-untyped, unused-ignore]
import pytest

from aliceserver.debuggers.events import Output, Stopped
from aliceserver.debuggers.ptrace.patched_breakpoints import JumpPatches
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import continue_to_stop, launch

pytestmark = pytest.mark.timeout(360)
SOURCE = "logpoint_lock.c"
PASSES = 200000


def _after_reservation(debugger: Any, site_address: int) -> int:
    """The first instruction after the ring reservation's `lock cmpxchg; jne` in the
    trampoline of the patch at `site_address`: a thread there holds a record not written."""
    trampoline = debugger.jump_patches.sites[site_address].trampoline
    decoder = capstone.Cs(capstone.CS_ARCH_X86, capstone.CS_MODE_64)
    reserved = False
    for insn in decoder.disasm(trampoline.code, trampoline.entry):
        if insn.address < trampoline.ring_retry:
            continue
        if "cmpxchg" in insn.mnemonic or insn.mnemonic.startswith("lock"):
            reserved = True
        elif reserved and insn.mnemonic == "jne":
            return int(insn.address + insn.size)
    raise AssertionError("no ring reservation in the trampoline")


def test_a_thread_held_in_its_record_does_not_block_the_ring(
    debugger: Any, builder: Builder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(JumpPatches, "log_ring_records", 16)
    program = builder.build("logpoint_lock")
    events = EventLog(debugger)
    launch(debugger, program)
    [log_line] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'log')}")
    [end_line] = debugger.resolve_location(f"{SOURCE}:{marker_line(SOURCE, 'end')}")
    site = int(log_line.address)
    debugger.insert_breakpoint(site, condition=debugger.breakpoint_condition(log_message="i={i} id={id}"))
    for _ in range(20):  # the first hit patches it: the threads then run on
        debugger.resume()
        time.sleep(0.2)
        debugger.interrupt()
        events.wait_for(Stopped, timeout=30)
        if site in debugger.jump_patches.sites:
            break
    held = debugger.insert_breakpoint(_after_reservation(debugger, site))
    stop = continue_to_stop(debugger, events)
    assert stop.breakpoint_ids == (held.id,)
    debugger.remove_breakpoint(held.id)
    holder = stop.thread_id
    runner = next(t.tid for t in debugger.threads(details=False) if t.tid not in (holder, debugger.process.pid))
    end = debugger.insert_breakpoint(int(end_line.address))
    mark = events.mark()
    debugger.resume(runner)  # scheduler-locking: it alone runs, through thousands of full rings
    # (some 12,000 traps at a full ring of 16: 40-55 s on this 2-core machine, more under load)
    stop = events.wait_for(Stopped, timeout=240)
    assert (stop.thread_id, stop.breakpoint_ids) == (runner, (end.id,))
    text = "".join(e.text for e in events.since(mark, Output) if e.category == "console")
    runner_id = int(debugger.evaluate("id", runner).value)
    assert text.count(f" id={runner_id}\n") >= 1000  # (it had over 100,000 passes left)
    assert re.search(r"^i=\d+ id=\d+$", text, re.M)
    assert f"i={PASSES - 1} id={runner_id}\n" in text  # its last pass logged before the stop
