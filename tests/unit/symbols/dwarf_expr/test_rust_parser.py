"""The Rust expression lexer and parser: tuple fields after `.`, literal suffixes, paths
resolved against the frame's module, `as` casts, precedence, and gdb's error words."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.rust_lexer import tokenize
from aliceserver.debuggers.symbols.dwarf.expr.rust_parser import parse_rust
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError


def kinds(text: str) -> list[tuple[str, str]]:
    return [(t.kind, t.text) for t in tokenize(text)[:-1]]


def test_field_numbers_after_a_dot_are_not_floats() -> None:
    assert kinds("x.0.1") == [("ident", "x"), ("op", "."), ("field", "0"), ("op", "."), ("field", "1")]
    assert parse_rust("x.0.1") == ast.TupleField(ast.TupleField(ast.Name("x"), 0), 1)
    # A float literal is still one: `1.0.0` is the field 0 of 1.0, as gdb reads it.
    assert parse_rust("1.0.0") == ast.TupleField(ast.FloatLit(1.0, "f64"), 0)


@pytest.mark.parametrize(
    ("text", "value", "type_name"),
    [("5u8", 5, "u8"), ("10_000i64", 10000, "i64"), ("0xffu8", 255, "u8"), ("0o17", 15, "i32"),
     ("0b101", 5, "i32"), ("3000000000", 3000000000, "i64"), ("'a'", 97, "char"),
     ("b'a'", 97, "u8"), ("'\\u{e9}'", 0xE9, "char"), ("'é'", 0xE9, "char"), ("'\\n'", 10, "char"),
     ("true", 1, "bool"), ("false", 0, "bool")],
)  # fmt: skip
def test_integer_literals(text: str, value: int, type_name: str) -> None:
    assert parse_rust(text) == ast.IntLit(value, type_name)


@pytest.mark.parametrize(
    ("text", "value", "type_name"),
    [("1.5", 1.5, "f64"), ("2.5e-1f32", 0.25, "f32"), ("1_000.5", 1000.5, "f64"), ("1.", 1.0, "f64"),
     ("1e3", 1000.0, "f64")],
)  # fmt: skip
def test_float_literals(text: str, value: float, type_name: str) -> None:
    assert parse_rust(text) == ast.FloatLit(value, type_name)


def test_paths_resolve_against_the_frame_module() -> None:
    assert parse_rust("crate::m::X", "r::shapes") == ast.Name("r::m::X")
    assert parse_rust("self::X", "r::shapes") == ast.Name("r::shapes::X")
    assert parse_rust("super::X", "r::shapes") == ast.Name("r::X")
    assert parse_rust("r::shapes::Level::Mid") == ast.Name("r::shapes::Level::Mid")
    assert parse_rust("f::<i32>") == ast.Name("f<i32>")
    with pytest.raises(EvaluationError, match="Too many super"):
        parse_rust("super::super::X", "r")


def test_casts_and_precedence() -> None:
    # `as` binds tighter than `/`, looser than unary minus.
    assert parse_rust("-1 as u64") == ast.Cast(ast.TypeName("u64"), ast.Unary("-", ast.IntLit(1, "i32")))
    assert parse_rust("a as f32 / b") == ast.Binary(
        "/", ast.Cast(ast.TypeName("f32"), ast.Name("a")), ast.Name("b")
    )
    assert parse_rust("p as *const r::T") == ast.Cast(ast.TypeName("r::T", 1), ast.Name("p"))
    assert parse_rust("p as &mut u8") == ast.Cast(ast.TypeName("u8", 1), ast.Name("p"))
    assert parse_rust("a == b && c") == ast.Binary(
        "&&", ast.Binary("==", ast.Name("a"), ast.Name("b")), ast.Name("c")
    )
    assert parse_rust("&mut x") == ast.Unary("&", ast.Name("x"))
    assert parse_rust("sizeof(i32)") == ast.SizeofType(ast.TypeName("i32"))
    assert parse_rust("()") == ast.IntLit(0, "()")


@pytest.mark.parametrize(
    ("text", "message"),
    [("(1, 2)", "Tuple expressions not supported yet"), ("x.", "field name expected"),
     ("x.as", "field name expected"), ("~5", "unexpected token"), ("1 +", "unexpected end"),
     ("5q8", "Invalid integer suffix"), ("1..=", "unexpected end"), ("1...3", "unexpected token"),
     ("'ab'", "Character constant too long"), ("b'é'", "Non-ASCII value")],
)  # fmt: skip
def test_errors(text: str, message: str) -> None:
    with pytest.raises(EvaluationError, match=message):
        parse_rust(text)


def test_ranges() -> None:
    assert parse_rust("1..3") == ast.Range(ast.IntLit(1, "i32"), ast.IntLit(3, "i32"))
    assert parse_rust("..") == ast.Range(None, None)
    assert parse_rust("..=5") == ast.Range(None, ast.IntLit(5, "i32"), inclusive=True)
    assert parse_rust("a[2..]") == ast.Index(ast.Name("a"), ast.Range(ast.IntLit(2, "i32"), None))


@given(st.lists(st.integers(min_value=0, max_value=99), min_size=1, max_size=6))
def test_any_chain_of_tuple_fields(indexes: list[int]) -> None:
    expected: ast.Expr = ast.Name("t")
    for i in indexes:
        expected = ast.TupleField(expected, i)
    assert parse_rust("t" + "".join(f".{i}" for i in indexes)) == expected


@given(st.integers(min_value=0, max_value=2**64 - 1), st.sampled_from(["", "u64", "i128", "usize"]))
def test_integers_round_trip(value: int, suffix: str) -> None:
    text = f"{value:_}{suffix}"
    parsed = parse_rust(text)
    assert isinstance(parsed, ast.IntLit) and parsed.value == value


@given(st.text(max_size=30))
def test_any_text_parses_or_fails_with_the_typed_error(text: str) -> None:
    try:
        parse_rust(text)
    except EvaluationError:
        pass
