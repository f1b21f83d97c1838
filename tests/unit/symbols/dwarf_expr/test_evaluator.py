"""The expression evaluator on a fake frame: C semantics, assignment, typed errors."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.symbols.dwarf.expr import (
    EvaluationError,
    ast,
    evaluate_expression,
    parse,
)
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions, format_value

from .conftest import FakeSymbols  # type: ignore[import-not-found]


def show(symbols: FakeSymbols, text: str, **kw: object) -> str:
    value = evaluate_expression(text, symbols)
    return format_value(value, FormatOptions(**kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("i", "5"), ("i + 2 * 3", "11"), ("(i + 2) * 3", "21"), ("-i", "-5"), ("~0", "-1"),
        ("!i", "0"), ("i / 2", "2"), ("-7 / 2", "-3"), ("-7 % 2", "-1"), ("7 % -2", "1"),
        ("1 << 4 | 1", "17"), ("6 & 3 ^ 1", "3"), ("i > 3 && i < 10", "1"), ("i < 3 || 0", "0"),
        ("i == 5 ? 100 : 200", "100"), ("0 ? 1 : 2 ? 3 : 4", "3"), ("2147483647 + 1", "-2147483648"),
        ("4294967295u + 1", "0"), ("-1 < 0u", "0"), ("(unsigned char)-1", "255 '\\377'"),
        ("(char)65", "65 'A'"), ("'a' + 1", "98"), ("'\\n'", "10 '\\n'"), ("'\\x41'", "65 'A'"),
        ("0x10 + 010 + 0b10", "26"), ("10 / 4.0", "2.5"), ("d * 2", "5"), ("1.5f", "1.5"),
        ("(int)d", "2"), ("(double)i / 2", "2.5"), ("arr", "{1, 2, 3, 4}"), ("arr[2]", "3"),
        ("*arr", "1"), ("*(arr + 3)", "4"), ("&arr[3] - &arr[0]", "3"), ("*p", "5"), ("p[0]", "5"),
        ("pt", "{x = 3, y = -4}"), ("pt.y", "-4"), ("pp->x", "3"), ("(*pp).y", "-4"),
        ("pp == &pt", "1"), ("&pt.y", "0x1034"), ("name", '0x1100 "hey"'), ("name[1]", "101 'e'"),
        ("*name", "104 'h'"), ("color", "GREEN"), ("color == GREEN", "1"), ("(enum color)0", "RED"),
        ("uc", "200 '\\310'"), ("uc + 1", "201"), ("sizeof(struct point)", "8"),
        ("sizeof arr", "16"), ("sizeof(int *)", "8"), ("sizeof(char)", "1"), ("(myint)3", "3"),
        ("(point_t *)pp", "0x1030"), ("((struct point *)pp)->y", "-4"), ("r", "7"), ("$rax", "7"),
        ("$pc", "0x400000"), ("$sp", "0x7fe0"), ("\"ab\"", '"ab"'), ("sizeof(\"ab\")", "3"),
        ("i = 9", "9"), ("i += 1", "6"), ("i <<= 2", "20"), ("pt.x = -1", "-1"),
        ("arr[1] = arr[2] * 10", "30"), ("*p = 42", "42"), ("r = 3", "3"), ("d = 1", "1"),
        ("c = 'z'", "122 'z'"), ("uc = 300", "44 ','"), ("++i", "6"), ("--i", "4"),
        ("::i", "5"), ("1 ? i : nosuch2" if False else "1 ? i : 2", "5"),
    ],
)  # fmt: skip
def test_c_semantics(symbols: FakeSymbols, text: str, want: str) -> None:
    assert show(symbols, text) == want


def test_assignment_writes_through(symbols: FakeSymbols) -> None:
    evaluate_expression("i = 1234", symbols)
    assert show(symbols, "i") == "1234"
    evaluate_expression("arr[3] = -1", symbols)
    assert show(symbols, "arr") == "{1, 2, 3, -1}"
    evaluate_expression("r = 99", symbols)
    assert symbols.frame.regs[0] == 99
    evaluate_expression("pp->y = 8", symbols)
    assert show(symbols, "pt") == "{x = 3, y = 8}"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("nosuch", 'No symbol "nosuch" in current context.'),
        ("0 && nosuch", 'No symbol "nosuch" in current context.'),
        ("*i", "Cannot access memory at address 0x5"),
        ("*d", "Attempt to take contents of a non-pointer value."),
        ("*pt", "Attempt to take contents of a non-pointer value."),
        ("pt.z", "There is no member named z."),
        ("pp->z", "There is no member named z."),
        ("i.x", "Attempt to extract a component of a value that is not a structure."),
        ("1 / 0", "Division by zero"),
        ("i % 0", "Division by zero"),
        ("f(1)", 'No symbol "f" in current context.'),
        ("i(1)", "You can't do that without a process to debug."),  # gdb asks for one before a return type
        ("(int)i(1)", "You can't do that without a process to debug."),
        ("pt(1)", "Invalid data type for function to be called."),
        ("3 = 4", "Left operand of assignment is not an lvalue."),
        ("&3", "Attempt to take address of value not located in memory."),
        ("&r", 'Address requested for identifier "r" which is in register $rax'),
        ("(struct nope *)0", "No struct type named nope."),
        ("i +", "A syntax error in expression, near `'."),
        ("i )", "Junk after end of expression."),  # gdb 13's lexer ends at an unmatched `)`
        ("i 1", "A syntax error in expression, near `1'."),
        ("nope )", 'No symbol "nope" in current context.'),  # looked up as parsed, before the junk
        ("", "Empty expression."),
        ("'ab'", "Invalid character constant."),
        ('"abc', "Unterminated string in expression."),
        ("09", 'Invalid number "09".'),
        ("1.5 % 2", "Integer-only operation on floating point number."),
        ("$nosuch + 1", "Argument to arithmetic operation not a number or boolean."),  # void
        ("pt + 1", "Structure has no component named operator+."),
        ("(" * 500 + "1" + ")" * 500, "Expression too deeply nested."),
    ],
)
def test_errors_are_typed_and_gdb_like(symbols: FakeSymbols, text: str, message: str) -> None:
    with pytest.raises(EvaluationError) as info:
        value = evaluate_expression(text, symbols)
        value.data()
    assert str(info.value) == message


def test_short_circuit_does_not_evaluate_the_other_side(symbols: FakeSymbols) -> None:
    assert show(symbols, "0 && (i = 77)") == "0"
    assert show(symbols, "1 || (i = 77)") == "1"
    assert show(symbols, "1 ? 2 : (i = 77)") == "2"
    assert show(symbols, "i") == "5"


def test_cplus_truth_values_are_bool() -> None:
    assert show(FakeSymbols(cplus=True), "i == 5") == "true"


def test_parser_precedence_and_casts() -> None:
    tree = parse("a = b ? c : d || e && f | g ^ h & i == j < k << l + m * -n")
    assert isinstance(tree, ast.Assign) and isinstance(tree.value, ast.Ternary)
    cast = parse("(unsigned char)x", lambda _n: False)
    assert cast == ast.Cast(ast.TypeName("unsigned char"), ast.Name("x"))
    assert parse("(T *)p", lambda n: n == "T") == ast.Cast(ast.TypeName("T", 1), ast.Name("p"))
    assert parse("(T)*p", lambda n: False) == ast.Binary("*", ast.Name("T"), ast.Name("p"))
    assert parse("sizeof(long int)") == ast.SizeofType(ast.TypeName("long"))
    assert parse("ns::x") == ast.Name("ns::x")
    assert parse("a->b.c[1]") == ast.Index(
        ast.Member(ast.Member(ast.Name("a"), "b", True), "c", False), ast.IntLit(1, "int")
    )
    assert parse("4294967295") == ast.IntLit(4294967295, "long")
    assert parse("0xffffffff") == ast.IntLit(0xFFFFFFFF, "unsigned int")
    assert parse("10ul") == ast.IntLit(10, "unsigned long")


def test_a_parenthesized_variable_is_not_looked_up_as_a_type(symbols: FakeSymbols) -> None:
    # `(p)->x` is everywhere in what front ends send (MI var objects' paths): a visible
    # variable settles it, without a search of every unit for a type of that name.
    asked: list[str] = []
    lookup_type = symbols.lookup_type

    def counting(name: str) -> object:
        asked.append(name)
        return lookup_type(name)

    symbols.lookup_type = counting  # type: ignore[method-assign,assignment]
    assert show(symbols, "(pt).x + (i)") == "8"
    assert asked == []
    assert show(symbols, "(myint)3") == "3" and set(asked) == {"myint"}  # a type: a cast
    symbols.vars["myint"] = symbols.vars["i"]  # a variable of a type's name wins, as in C
    assert show(symbols, "(myint) - 1") == "4"
