"""query(): each structured filter on its own, then combined, with limit and offset."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from aliceserver.errors import ProtocolError
from aliceserver.tracing.query import QueryFilters, query
from aliceserver.tracing.store import TraceStore

MS = 1_000_000


def row(kind: str, ms: int, thread: int | None = None, function: str | None = None, *,
        file: str | None = None, retval: str | None = None, duration_ms: float | None = None,
        text: str | None = None, args: list[list[str]] | None = None) -> tuple[object, ...]:  # fmt: skip
    duration = None if duration_ms is None else int(duration_ms * MS)
    return (kind, ms * MS, thread, function, file, 1 if file else None, None, None, None,
            json.dumps(args) if args is not None else None, retval, duration, text, None)  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TraceStore]:
    trace = TraceStore("q", str(tmp_path_factory.mktemp("q")))
    trace.extend([
        row("call", 1, 10, "parse_expr", file="/p/src/parser.c", args=[["n", "1"]]),
        row("return", 2, 10, "parse_expr", file="/p/src/parser.c", retval="0", duration_ms=1),
        row("call", 3, 11, "lex_token", file="/p/src/lexer.c", args=[]),
        row("return", 9, 11, "lex_token", file="/p/src/lexer.c", retval="0x0", duration_ms=6),
        row("call", 10, 10, "ns::Parser::parse", file="/p/src/parser.cpp", args=[]),
        row("return", 11, 10, "ns::Parser::parse", file="/p/src/parser.cpp", retval=None, duration_ms=1),
        row("stdout", 12, text="hello\n"),
        row("stderr", 13, text="oops\n"),
        row("crash", 14, 10, "parse_expr", file="/p/src/parser.c", text="SIGSEGV"),
    ])  # fmt: skip
    yield trace
    trace.close()


def ids(store: TraceStore, **filters: object) -> list[tuple[str, float]]:
    result = query(store, QueryFilters(**filters))  # type: ignore[arg-type]
    return [(event.kind, event.time_ms) for event in result.events]


def test_no_filter_gives_everything_in_time_order(store: TraceStore) -> None:
    assert [t for _, t in ids(store)] == [1, 2, 3, 9, 10, 11, 12, 13, 14]


def test_event_type(store: TraceStore) -> None:
    assert ids(store, kinds=("stdout", "stderr")) == [("stdout", 12), ("stderr", 13)]
    with pytest.raises(ProtocolError):
        ids(store, kinds=("bogus",))


def test_function_equals_contains_regex(store: TraceStore) -> None:
    assert ids(store, function="parse_expr") == [("call", 1), ("return", 2), ("crash", 14)]
    assert [t for _, t in ids(store, function_contains="Parser")] == [10, 11]
    assert [t for _, t in ids(store, function_regex=r"^(lex|ns::)")] == [3, 9, 10, 11]
    with pytest.raises(ProtocolError):
        ids(store, function_regex="(")


def test_source_file(store: TraceStore) -> None:
    assert [t for _, t in ids(store, file="parser.c")] == [1, 2, 14]
    assert [t for _, t in ids(store, file="src/lexer.c")] == [3, 9]
    assert ids(store, file="er.c") == []  # whole path components only


def test_return_value_equals_and_is_null(store: TraceStore) -> None:
    assert ids(store, return_value="0") == [("return", 2)]
    assert ids(store, return_value="0x0") == [("return", 9)]
    assert ids(store, return_is_null=True) == [("return", 11)]
    assert ids(store, return_is_null=False) == [("return", 2), ("return", 9)]


def test_thread(store: TraceStore) -> None:
    assert [t for _, t in ids(store, thread=11)] == [3, 9]


def test_time_range(store: TraceStore) -> None:
    assert [t for _, t in ids(store, since_ms=9, until_ms=12)] == [9, 10, 11, 12]


def test_minimum_duration(store: TraceStore) -> None:
    assert ids(store, min_duration_ms=2) == [("return", 9)]


def test_limit_offset_and_total(store: TraceStore) -> None:
    result = query(store, QueryFilters(limit=2, offset=3))
    assert [e.time_ms for e in result.events] == [9, 10] and result.total == 9 and result.more
    assert not query(store, QueryFilters(limit=10, offset=5)).more
    with pytest.raises(ProtocolError):
        query(store, QueryFilters(limit=-1))


def test_combined_filters_and_decoded_fields(store: TraceStore) -> None:
    (event,) = query(store, QueryFilters(kinds=("call",), thread=10, file="parser.c")).events
    assert event.function == "parse_expr" and event.arguments == (("n", "1"),) and event.line == 1
