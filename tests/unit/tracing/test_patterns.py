"""Trace patterns: name globs (`*` within a segment, `**` across `::`), @file:, @usercode."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.model import FunctionSymbol, SourcePosition
from aliceserver.errors import ProtocolError
from aliceserver.tracing.patterns import matching, parse_pattern


def fn(name: str, path: str | None = "/proj/src/parser.c", address: int = 0) -> FunctionSymbol:
    source = SourcePosition(path, 1) if path else None
    return FunctionSymbol(name, address or hash(name) & 0xFFFFFF, 16, source, "/proj/prog")


@pytest.mark.parametrize(
    "pattern,name,matches",
    [
        ("parse_*", "parse_expr", True),
        ("parse_*", "ns::parse_expr", False),
        ("*", "main", True),
        ("*", "ns::f", False),
        ("ns::*", "ns::f", True),
        ("ns::*", "ns::inner::f", False),
        ("ns::**", "ns::inner::f", True),
        ("**::push*", "std::vector::push_back", True),
        ("**", "a::b::c", True),
        ("f?o", "foo", True),
        ("f?o", "f:o", False),
        ("add", "add", True),
        ("add", "adder", False),
        ("a.b", "axb", False),  # regex characters are literal
    ],
)
def test_name_globs(pattern: str, name: str, matches: bool) -> None:
    assert parse_pattern(pattern).matches(fn(name), "/proj") is matches


@pytest.mark.parametrize(
    "pattern,path,matches",
    [
        ("@file:parser.c", "/proj/src/parser.c", True),
        ("@file:*.c", "/proj/src/parser.c", True),
        ("@file:*.h", "/proj/src/parser.c", False),
        ("@file:src/parser.c", "/proj/src/parser.c", True),
        ("@file:src/*.c", "/proj/src/parser.c", True),
        ("@file:proj/*.c", "/proj/src/parser.c", False),
        ("@file:proj/**.c", "/proj/src/parser.c", True),
        ("@file:/proj/**", "/proj/src/parser.c", True),
    ],
)
def test_file_globs(pattern: str, path: str, matches: bool) -> None:
    assert parse_pattern(pattern).matches(fn("f", path), "/proj") is matches


def test_usercode_is_under_the_project_root(tmp_path: object) -> None:
    usercode = parse_pattern("@usercode")
    assert usercode.matches(fn("f", "/proj/src/a.c"), "/proj")
    assert not usercode.matches(fn("f", "/project2/a.c"), "/proj")
    assert not usercode.matches(fn("f", "/usr/include/stdio.h"), "/proj")
    assert not usercode.matches(fn("f", None), "/proj")


def test_matching_lists_each_function_once() -> None:
    functions = [fn("parse", address=1), fn("print", address=2), fn("main", "/usr/src/x.c", address=3)]
    patterns = [parse_pattern("p*"), parse_pattern("@usercode")]
    assert [f.name for f in matching(patterns, functions, "/proj")] == ["parse", "print"]


@pytest.mark.parametrize("bad", ["", "  ", "@file:", "@nonsense"])
def test_bad_patterns_are_refused(bad: str) -> None:
    with pytest.raises(ProtocolError):
        parse_pattern(bad)
