"""Variable objects in a deep stack: evaluated in their own frame, found by unwinding no
deeper than that frame (the MI session over the real engine, in process)."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from aliceserver.adapters.mi.session import SessionConfig
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from tests.support.build import Builder, marker_line
from tests.support.mi_inprocess import InProcessMi

pytestmark = [pytest.mark.timeout(60), pytest.mark.both_backends]


class CountingDebugger(PtraceDebugger):
    """The engine, noting how many frames each stack_trace asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.depths: list[int | None] = []

    def stack_trace(self, thread_id: int, start: int = 0, count: int | None = None, *, arguments: bool = False) -> Any:
        self.depths.append(None if count is None else start + count)
        return super().stack_trace(thread_id, start, count, arguments=arguments)


@pytest.fixture
def session(builder: Builder) -> Iterator[tuple[InProcessMi, CountingDebugger]]:
    program = builder.build("src_basic")
    made: list[CountingDebugger] = []

    def factory() -> CountingDebugger:
        made.append(CountingDebugger())
        return made[0]

    mi = InProcessMi(factory, SessionConfig(program=str(program), quiet=True))
    mi.prompt()
    try:
        yield mi, made[0]
    finally:
        mi.close()


def _ok(mi: InProcessMi, text: str) -> Any:
    result, _seen = mi.command(text)
    assert result.cls in ("done", "running"), (text, result)
    return result.results


def test_varobjs_of_a_deep_recursion_read_their_own_frame(
    session: tuple[InProcessMi, CountingDebugger],
) -> None:
    mi, debugger = session
    _ok(mi, f"-break-insert src_basic.c:{marker_line('src_basic.c', 'fact_base')}")
    _ok(mi, "-exec-run")
    mi.stopped()
    mi.prompt()  # factorial(1), called from factorial(2) ... factorial(5), main
    inner = _ok(mi, "-var-create - * n")
    outer = _ok(mi, "-var-create --thread 1 --frame 3 - * n")
    assert (inner["value"], outer["value"]) == ("1", "4")
    debugger.depths.clear()
    assert _ok(mi, f"-var-evaluate-expression {inner['name']}")["value"] == "1"
    assert max(d or 10**6 for d in debugger.depths) == 1  # frame 0 alone was shown
    debugger.depths.clear()
    assert _ok(mi, f"-var-evaluate-expression {outer['name']}")["value"] == "4"
    assert max(d or 10**6 for d in debugger.depths) <= 16  # not the whole stack
    _ok(mi, "-exec-finish")  # back in factorial(2): the inner n's frame is gone
    mi.stopped()
    mi.prompt()
    changes = _ok(mi, "-var-update --all-values *")["changelist"]
    scope = {c["name"]: c["in_scope"] for c in changes.values}
    assert scope.get(inner["name"]) == "false"
    assert _ok(mi, f"-var-evaluate-expression {outer['name']}")["value"] == "4"
