"""The call recorder's patches (calltrace_patching.planned) refuse a moved call under CET
shadow stacks as the breakpoints' patches do (patched_sites.py): the entry or return keeps
its trap and says why. The decision on spans planned from real code bytes."""

from __future__ import annotations

from aliceserver.debuggers.ptrace.calltrace_patching import planned
from aliceserver.debuggers.ptrace.patches.sites import Refusal, SitePlan

START = 0x401000
# push rbp; mov rbp, rsp; call START; pop rbp; mov eax, 1; nop; ret
CODE = bytes.fromhex("55 4889e5 e8f7ffffff 5d b801000000 90 c3".replace(" ", ""))
# push rbp; nop x4; pop rbp; call START; ret: a ret whose patch span is the call
TAIL = bytes.fromhex("55 90909090 5d e8f5ffffff c3".replace(" ", ""))


def test_an_entry_span_holding_a_call_is_refused_with_shadow_stacks() -> None:
    refused = planned(CODE, START, START, True)
    assert isinstance(refused, Refusal)
    assert f"the call at {START + 4:#x}" in refused.reason and "shadow stack (CET)" in refused.reason
    assert isinstance(planned(CODE, START, START, False), SitePlan)


def test_a_return_span_holding_a_call_is_refused_with_shadow_stacks() -> None:
    site = START + 6  # the call before the ret: the last start leaving room for a jump
    refused = planned(TAIL, START, site, True)
    assert isinstance(refused, Refusal) and f"the call at {site:#x}" in refused.reason
    assert isinstance(planned(TAIL, START, site, False), SitePlan)


def test_a_span_without_a_call_is_planned_either_way() -> None:
    for shadow_stack in (False, True):
        assert isinstance(planned(CODE, START, START + 10, shadow_stack), SitePlan)
