"""gdb's `$` values and `@` in the expression language: how they parse (beside `x@entry`)
and evaluate against a session's store on a fake frame."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.symbols.dwarf.expr import (
    EvaluationError,
    ast,
    evaluate_expression,
    parse,
)
from aliceserver.debuggers.symbols.dwarf.expr.dollars import SessionValues
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions, format_value

from .conftest import FakeSymbols  # type: ignore[import-not-found]


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("$", ast.History(0)), ("$$", ast.History(-1)), ("$$0", ast.History(0)), ("$$3", ast.History(-3)),
        ("$12", ast.History(12)), ("$i", ast.Register("i")), ("$pc", ast.Register("pc")),
        ("*arr@3", ast.Repeat(ast.Unary("*", ast.Name("arr")), ast.IntLit(3, "int"))),
        ("5 + a@2", ast.Repeat(ast.Binary("+", ast.IntLit(5, "int"), ast.Name("a")), ast.IntLit(2, "int"))),
        ("a@2 << 1", ast.Binary("<<", ast.Repeat(ast.Name("a"), ast.IntLit(2, "int")), ast.IntLit(1, "int"))),
        ("a@entry", ast.EntryValue("a")), ("a@entries", ast.Repeat(ast.Name("a"), ast.Name("entries"))),
    ],
)  # fmt: skip
def test_parses_as_gdb(text: str, tree: ast.Expr) -> None:
    assert parse(text) == tree


def show(symbols: FakeSymbols, values: SessionValues, text: str) -> str:
    return format_value(evaluate_expression(text, symbols, values=values), FormatOptions())


def test_history_and_variables(symbols: FakeSymbols) -> None:
    values = SessionValues()
    with pytest.raises(EvaluationError, match="The history is empty."):
        show(symbols, values, "$")
    assert values.record(evaluate_expression("arr", symbols)) == 1
    evaluate_expression("arr[0] = 100", symbols)  # the history keeps what was read then
    assert show(symbols, values, "$1") == "{1, 2, 3, 4}"
    assert show(symbols, values, "$[2] + $1[3]") == "7"
    assert show(symbols, values, "*arr@2") == "{100, 2}"
    with pytest.raises(EvaluationError, match="History has not yet reached \\$2."):
        show(symbols, values, "$2")
    with pytest.raises(EvaluationError, match="not a modifiable lvalue"):
        show(symbols, values, "$1 = 5")
    assert show(symbols, values, "$n") == "void"
    assert show(symbols, values, "$n = i * 2") == "10"
    assert show(symbols, values, "$n++") == "10"
    assert show(symbols, values, "$n") == "11"
    assert values.names()[0] == "n"
    with pytest.raises(EvaluationError, match="Only values in memory can be extended with '@'."):
        show(symbols, values, "$n@2")
