"""Recorded calls' values formatted once per distinct raw value, the cache bounded."""

from __future__ import annotations

from aliceserver.debuggers.ptrace.recorded_calls import CACHED, _cached


def test_each_distinct_value_is_formatted_once_and_the_cache_stays_bounded() -> None:
    formatted: list[int] = []

    def show(raw: int) -> str:
        formatted.append(raw)
        return f"<{raw}>"

    at_third = _cached(show, 3)
    for i in range(10):
        assert at_third((0, 0, 0, i & 1, 99)) == f"<{i & 1}>"
    assert formatted == [0, 1]
    for raw in range(CACHED + 10):  # more distinct values than kept: right still
        assert at_third((0, 0, 0, raw)) == f"<{raw}>"
    assert at_third((0, 0, 0, 0)) == "<0>"
    assert len(formatted) <= 2 + CACHED + 10 + 1
