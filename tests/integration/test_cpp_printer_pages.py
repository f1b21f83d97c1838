"""Pages deep in a printed container (DAP's `variables` with a start, MI's windows): a page
far in is read by the container's own indexing, the next page continues the printer's
iterator where the last stopped, and no page reads more than itself from the printer."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_path
from tests.support.printer_pulls import count_pulled_children

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: its printers are used"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.both_backends,
]

BIG_SOURCE = PROGRAMS_DIR / "cpp_big_containers.cpp"


@pytest.fixture
def pulled(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many items the printers' children iterators gave (counted as they are pulled)."""
    return count_pulled_children(monkeypatch)


def test_deep_and_consecutive_pages_read_only_the_page(
    builder: Builder, debugger: Any, events: Any, pulled: list[int]
) -> None:
    from aliceserver.debuggers.events import StopReason
    from tests.support.session import continue_to_stop, launch

    launch(debugger, MoreBuilder(builder.cache_dir).build_cpp("cpp_big_containers"))
    [place] = debugger.resolve_location(f"cpp_big_containers.cpp:{marker_line(BIG_SOURCE, 'ready')}")
    debugger.insert_breakpoint(place.address)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT, timeout=120)
    big = debugger.evaluate("big", stop.thread_id)
    assert big.indexed_children == 10_000_000
    # The middle and the end of ten million: by operator[] (libstdc++'s xmethod), once it
    # agrees with the printer's first children.
    for start in (5_000_000, 5_000_100, 9_999_950):
        pulled[0] = 0
        page = debugger.variable_children(big.reference, start, 100)
        wanted = range(start, min(start + 100, 10_000_000))
        assert [(kid.name, kid.value) for kid in page] == [(f"[{i}]", str(i)) for i in wanted]
        assert pulled[0] <= 2, (start, pulled[0])
    # A map has no such indexing: its pages go on from where the last one stopped.
    tree = debugger.evaluate("tree", stop.thread_id)
    for start in range(0, 1000, 200):  # pairs 0..500, a page of 100 pairs at a time
        pulled[0] = 0
        page = debugger.variable_children(tree.reference, start, 200)
        assert [kid.value for kid in page[:4]] == [str(start // 2), str(start), str(start // 2 + 1), str(start + 2)]
        assert len(page) == 200 and pulled[0] <= 200, (start, pulled[0])
    pulled[0] = 0  # back to the start: the iterator starts over
    assert [kid.value for kid in debugger.variable_children(tree.reference, 0, 2)] == ["0", "0"]
    assert pulled[0] <= 2
