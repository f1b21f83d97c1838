"""A detach while threads run through jump patches: each thread inside a trampoline is put
back to the program state it stands for before the patches go (patch_leaving.py), so that
no trampoline's int3 is met once nobody traces the program."""

from __future__ import annotations

import os
from typing import Any

import pytest

from aliceserver.debuggers.events import StopReason
from tests.support.build import Builder, marker_line
from tests.support.events import EventLog
from tests.support.session import continue_to_stop, launch

pytestmark = pytest.mark.timeout(60)


def test_a_detach_takes_every_thread_out_of_the_trampolines(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("patch_sites"))
    [spin] = debugger.resolve_location(f"patch_sites.c:{marker_line('patch_sites.c', 'spin')}")
    site = int(spin.address)
    debugger.insert_breakpoint(site, condition=debugger.expression_condition("n == 1500"))
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)  # 4 threads in the loop
    patch = debugger.jump_patches.sites[site]
    # The stopped thread as if it had just taken the jump: its condition holds, so the
    # trampoline would run into its stop trap, which kills an untraced program.
    debugger.write_register(stop.thread_id, "rip", patch.trampoline.entry)
    debugger.detach()
    _, status = os.waitpid(info.pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status


def test_a_thread_stepped_through_pushfq_at_a_detach_keeps_no_trap_flag(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    # A thread stopped after the trampoline's first instruction (lea rsp) is single-stepped
    # through pushfq and popfq at the detach: the flags it pushed carry our steps' trap flag,
    # which popfq would leave set in the untraced program (a SIGTRAP kills it).
    info = launch(debugger, builder.build("patch_sites"))
    [spin] = debugger.resolve_location(f"patch_sites.c:{marker_line('patch_sites.c', 'spin')}")
    site = int(spin.address)
    debugger.insert_breakpoint(site, condition=debugger.expression_condition("n == 1500"))
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    patch = debugger.jump_patches.sites[site]
    pushfq = patch.trampoline.code.index(b"\x9c")  # after lea rsp,[rsp-128], flags untouched
    rsp = debugger.read_registers(stop.thread_id)["rsp"]
    debugger.write_register(stop.thread_id, "rsp", rsp - 128)
    debugger.write_register(stop.thread_id, "rip", patch.trampoline.entry + pushfq)
    debugger.detach()
    _, status = os.waitpid(info.pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
