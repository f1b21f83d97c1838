"""Property tests: the evaluator raises nothing but EvaluationError, and integer arithmetic
follows C (32-bit int wrap-around, truncating division)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.expr import EvaluationError, ast, evaluate_expression
from aliceserver.debuggers.symbols.dwarf.format import format_value

from .conftest import FakeSymbols  # type: ignore[import-not-found]

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
ALPHABET = "ipardtcnmexyz0123456789 +-*/%&|^!~<>=?:()[].,'\"\\$_xXuUlLfF#@{};"


def run(symbols: FakeSymbols, source: str | ast.Expr) -> None:
    try:
        value = evaluate_expression(source, symbols)
    except EvaluationError:
        return
    text = format_value(value)  # formatting must not raise either
    assert isinstance(text, str)


@SETTINGS
@given(st.text(alphabet=ALPHABET, max_size=40))
def test_random_text_raises_only_the_typed_error(text: str) -> None:
    run(FakeSymbols(), text)


@SETTINGS
@given(st.text(max_size=30))
def test_random_unicode_raises_only_the_typed_error(text: str) -> None:
    run(FakeSymbols(), text)


NAMES = st.sampled_from(["i", "arr", "p", "pt", "c", "d", "name", "color", "uc", "pp", "r", "x"])
LEAVES = st.one_of(
    st.builds(ast.Name, NAMES),
    st.builds(ast.IntLit, st.integers(-(2**70), 2**70), st.sampled_from(["int", "unsigned long"])),
    st.builds(ast.FloatLit, st.floats(allow_nan=True), st.sampled_from(["float", "double"])),
    st.builds(ast.CharLit, st.integers(0, 255)),
    st.builds(ast.StringLit, st.binary(max_size=5)),
    st.builds(ast.Register, st.sampled_from(["rax", "pc", "sp", "rbx", "zz"])),
)
TYPES = st.builds(
    ast.TypeName,
    st.sampled_from(["int", "char", "unsigned char", "double", "struct point", "myint", "void",
                     "enum color", "nosuch", "float", "long"]),
    st.integers(0, 2),
)  # fmt: skip
OPS = st.sampled_from(list("+-*/%<>&|^") + ["<<", ">>", "==", "!=", "<=", ">=", "&&", "||"])


def _extend(children: st.SearchStrategy[ast.Expr]) -> st.SearchStrategy[ast.Expr]:
    return st.one_of(
        st.builds(ast.Unary, st.sampled_from(["-", "+", "!", "~", "*", "&", "sizeof", "++"]),
                  children),
        st.builds(ast.Binary, OPS, children, children),
        st.builds(ast.Ternary, children, children, children),
        st.builds(ast.Assign, st.sampled_from(["=", "+=", "<<=", "/="]), children, children),
        st.builds(ast.Index, children, children),
        st.builds(ast.Member, children, st.sampled_from(["x", "y", "z"]), st.booleans()),
        st.builds(ast.Cast, TYPES, children),
        st.builds(ast.SizeofType, TYPES),
    )  # fmt: skip


@SETTINGS
@given(st.recursive(LEAVES, _extend, max_leaves=12))
def test_random_trees_raise_only_the_typed_error(tree: ast.Expr) -> None:
    run(FakeSymbols(), tree)


INT32 = st.integers(-(2**31) + 1, 2**31 - 1)  # -2147483648 is `-(long)2147483648` in C


def c_int(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


@SETTINGS
@given(INT32, INT32, st.sampled_from(["+", "-", "*", "/", "%", "&", "|", "^", "<", "=="]))
def test_int_arithmetic_matches_c(a: int, b: int, op: str) -> None:
    symbols = FakeSymbols()
    text = f"({a}) {op} ({b})"
    if op in "/%" and b == 0:
        try:
            evaluate_expression(text, symbols)
        except EvaluationError as exc:
            assert str(exc) == "Division by zero"
            return
        raise AssertionError("no division error")
    got = evaluate_expression(text, symbols).as_int()
    if op == "/":
        want = c_int(abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1))
    elif op == "%":
        want = c_int(a - b * int(abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)))
    elif op == "<":
        want = int(a < b)
    elif op == "==":
        want = int(a == b)
    else:
        want = c_int(eval(f"a {op} b"))
    assert got == want, text
