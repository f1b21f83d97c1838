"""Moved calls refused under CET user shadow stacks (patches/shadow_stack.py). This
machine's kernel and CPU have no user shadow stacks, so the decision is tested on a made-up
/proc and on a span planned from real code bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.ptrace.patches.shadow_stack import moved_call_refusal, shadow_stack_on
from aliceserver.debuggers.ptrace.patches.sites import Refusal, SitePlan, plan_site

START = 0x401000
# push rbp; mov rbp, rsp; call START; pop rbp; mov eax, 1; nop; ret
CODE = bytes.fromhex("55 4889e5 e8f7ffffff 5d b801000000 90 c3".replace(" ", ""))


def _proc(tmp_path: Path, pid: int, threads: dict[int, str | None]) -> str:
    for tid, features in threads.items():
        task = tmp_path / str(pid) / "task" / str(tid)
        task.mkdir(parents=True)
        lines = ["Name:\tprog", f"Pid:\t{tid}"]
        if features is not None:
            lines += [f"x86_Thread_features:\t{features}", "x86_Thread_features_locked:\t"]
        (task / "status").write_text("\n".join(lines) + "\n")
    return str(tmp_path)


@pytest.mark.parametrize(
    ("threads", "on"),
    [
        ({10: None, 11: None}, False),  # a kernel without shadow stacks: no such line
        ({10: "", 11: ""}, False),  # supported, not enabled
        ({10: "wrss", 11: ""}, False),
        ({10: "", 11: "shstk wrss"}, True),  # one thread has it on
        ({10: "shstk"}, True),
    ],
)
def test_shadow_stack_on_reads_each_threads_features(tmp_path: Path, threads: dict[int, str | None],
                                                     on: bool) -> None:  # fmt: skip
    assert shadow_stack_on(10, _proc(tmp_path, 10, threads)) is on


def test_no_process_no_shadow_stack(tmp_path: Path) -> None:
    assert shadow_stack_on(12345, str(tmp_path)) is False


def test_a_span_with_a_call_is_refused_only_with_shadow_stacks() -> None:
    at_call = plan_site(CODE, START, START + 4)
    assert isinstance(at_call, SitePlan) and at_call.instructions[0].text.startswith("call")
    refusal = moved_call_refusal(at_call, True)
    assert isinstance(refusal, Refusal) and f"the call at {START + 4:#x}" in refusal.reason
    assert "shadow stack (CET)" in refusal.reason
    assert moved_call_refusal(at_call, False) is None
    no_call = plan_site(CODE, START, START + 10)
    assert isinstance(no_call, SitePlan) and moved_call_refusal(no_call, True) is None
