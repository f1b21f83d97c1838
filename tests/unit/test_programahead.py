"""programahead's check of an idle CPU: the tasks runnable now, from the kernel's count."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from aliceserver import programahead


def test_the_runnable_count_holds_this_process_and_a_spinning_child() -> None:
    assert programahead.runnable_tasks() >= 1  # this test, reading it
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        # Always runnable, on a CPU or queued for one: with us, at least two.
        counts = [programahead.runnable_tasks() for _ in range(50)]
        assert max(counts) >= 2, counts
    finally:
        spinner.kill()
        spinner.wait()


@pytest.mark.parametrize(("runnable", "spare"), [(1, True), (len(os.sched_getaffinity(0)), True),
                                                 (len(os.sched_getaffinity(0)) + 1, False)])  # fmt: skip
def test_a_child_is_wanted_while_the_runnable_tasks_leave_a_cpu(
    monkeypatch: pytest.MonkeyPatch, runnable: int, spare: bool
) -> None:
    monkeypatch.setattr(programahead, "runnable_tasks", lambda: runnable)
    assert programahead._spare_cpu() is spare  # noqa: SLF001


def test_an_unreadable_count_leaves_the_child_wanted(monkeypatch: pytest.MonkeyPatch) -> None:
    def unreadable() -> int:
        raise OSError("no /proc")

    monkeypatch.setattr(programahead, "runnable_tasks", unreadable)
    assert programahead._spare_cpu()  # noqa: SLF001
