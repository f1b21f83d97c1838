"""Rust expression parser (the subset gdb's rust-parse.c reads that needs no inferior
calls): paths `a::b::C`, `crate::`/`self::`/`super::`, tuple fields `t.0`, `as` casts
to Rust types (`u8`, `*const T`, `&mut T`, `[T; N]`), `sizeof`, Rust's precedence.
The tree is expr/ast.py's; literals carry Rust type names (`i32`, `u8`, `char`, `bool`)."""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.lexer import Token
from aliceserver.debuggers.symbols.dwarf.expr.parser import TokenCursor
from aliceserver.debuggers.symbols.dwarf.expr.rust_lexer import tokenize
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

# Rust's binary precedence, loosest first (comparisons do not chain, as in Rust).
_PRECEDENCE = {
    "||": 1, "&&": 2, "==": 3, "!=": 3, "<": 3, ">": 3, "<=": 3, ">=": 3,
    "|": 4, "^": 5, "&": 6, "<<": 7, ">>": 7, "+": 8, "-": 8, "*": 9, "/": 9, "%": 9,
}  # fmt: skip
_AS_PRECEDENCE = 10
_ASSIGN_OPS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="))
PRIMITIVES = frozenset(
    "bool char i8 u8 i16 u16 i32 u32 i64 u64 i128 u128 isize usize f32 f64".split()
)
_KEYWORDS = frozenset(("as", "mut", "const", "true", "false", "sizeof", "fn", "let", "if"))


def parse_rust(text: str, scope: str = "") -> ast.Expr:
    """One Rust expression. `scope` is the frame function's module path (`r::shapes`):
    `self::x` and `super::x` are taken from it, `crate::x` from its first segment."""
    return _Parser(tokenize(text), scope).parse_all()


class _Parser(TokenCursor):
    def __init__(self, tokens: list[Token], scope: str) -> None:
        super().__init__(tokens)
        self.scope = [part for part in scope.split("::") if part]

    def at_word(self, word: str) -> bool:
        return self.tok.kind == "ident" and self.tok.text == word

    def error(self) -> EvaluationError:
        return EvaluationError("unexpected token" if self.tok.kind != "end" else "unexpected end of input")

    # --- grammar ------------------------------------------------------------------------
    def parse_all(self) -> ast.Expr:
        if self.tok.kind == "end":
            raise EvaluationError("Empty expression.")
        expr = self.assignment()
        if self.tok.kind != "end":
            raise self.error()
        return expr

    def assignment(self) -> ast.Expr:
        self.enter()
        try:
            if self.at_op("..", "..="):  # `..b`, `..`
                return self.range(None)
            left = self.binary(1)
            if self.at_op("..", "..="):
                return self.range(left)
            if self.at_op("..."):
                raise self.error()
            if self.tok.kind == "op" and self.tok.text in _ASSIGN_OPS:
                op = self.next().text
                return ast.Assign(op, left, self.assignment())
            return left
        finally:
            self.depth -= 1

    def binary(self, min_prec: int) -> ast.Expr:
        left = self.unary()
        while True:
            if self.at_word("as") and _AS_PRECEDENCE >= min_prec:
                self.next()
                left = ast.Cast(self.type_name(), left)
                continue
            if self.tok.kind != "op":
                return left
            prec = _PRECEDENCE.get(self.tok.text)
            if prec is None or prec < min_prec:
                return left
            op = self.next().text
            self.enter()
            try:
                right = self.binary(prec + 1)
            finally:
                self.depth -= 1
            left = ast.Binary(op, left, right)

    def unary(self) -> ast.Expr:
        self.enter()
        try:
            tok = self.tok
            if tok.kind == "op" and tok.text in ("-", "!", "*", "&", "&&"):
                self.next()
                if tok.text in ("&", "&&"):
                    if self.at_word("mut"):
                        self.next()
                    operand = ast.Unary("&", self.unary())
                    return ast.Unary("&", operand) if tok.text == "&&" else operand
                return ast.Unary(tok.text, self.unary())
            if tok.kind == "ident" and tok.text == "sizeof":
                self.next()
                self.expect("(")
                primitive = self.tok.kind == "ident" and self.tok.text in PRIMITIVES
                if primitive and self.peek().text == ")":
                    tname = ast.TypeName(self.next().text)  # sizeof(i32): a type, not a name
                    self.expect(")")
                    return ast.SizeofType(tname)
                inner = self.assignment()
                self.expect(")")
                return ast.Unary("sizeof", inner)
            return self.postfix(self.primary())
        finally:
            self.depth -= 1

    def postfix(self, expr: ast.Expr) -> ast.Expr:
        while True:
            if self.at_op("["):
                self.next()
                index = self.assignment()
                self.expect("]")
                expr = ast.Index(expr, index)
            elif self.at_op("."):
                self.next()
                tok = self.next()
                if tok.kind == "field":
                    assert isinstance(tok.value, int)
                    expr = ast.TupleField(expr, tok.value)
                elif tok.kind == "ident" and tok.text not in _KEYWORDS:
                    expr = ast.Member(expr, tok.text, False)
                else:
                    raise EvaluationError("field name expected")
            elif self.at_op("("):
                self.next()
                args: list[ast.Expr] = []
                while not self.at_op(")"):
                    args.append(self.assignment())
                    if not self.at_op(")"):
                        self.expect(",")
                self.next()
                expr = ast.Call(expr, tuple(args))
            else:
                return expr

    def primary(self) -> ast.Expr:
        tok = self.tok
        if tok.kind == "int":
            self.next()
            assert isinstance(tok.value, tuple)
            value, suffix = tok.value
            if suffix is None:  # gdb: i32 when it fits, else i64
                suffix = "i32" if value < 1 << 31 else "i64"
            return ast.IntLit(int(value), str(suffix))
        if tok.kind == "float":
            self.next()
            assert isinstance(tok.value, tuple)
            return ast.FloatLit(float(tok.value[0]), str(tok.value[1]))
        if tok.kind == "char":
            self.next()
            assert isinstance(tok.value, tuple)
            return ast.IntLit(int(tok.value[0]), str(tok.value[1]))
        if tok.kind == "string":
            self.next()
            assert isinstance(tok.value, tuple)
            return ast.StringLit(bytes(tok.value[0]), "u8" if tok.value[1] else "str")  # b"..": bytes
        if tok.kind == "reg":
            self.next()
            return ast.Register(tok.text[1:])
        if tok.kind == "ident" and tok.text in ("true", "false"):
            self.next()
            return ast.IntLit(int(tok.text == "true"), "bool")
        if tok.kind == "ident" and tok.text not in _KEYWORDS or self.at_op("::"):
            path = self.path()
            return self.struct_literal(path) if self.at_op("{") else ast.Name(path)
        if self.at_op("["):
            return self.array_literal()
        if self.at_op("("):
            self.next()
            if self.at_op(")"):
                self.next()
                return ast.IntLit(0, "()")
            inner = self.assignment()
            if self.at_op(","):
                raise EvaluationError("Tuple expressions not supported yet")
            self.expect(")")
            return inner
        raise self.error()

    def range(self, low: ast.Expr | None) -> ast.Range:
        inclusive = self.next().text == "..="
        ends = self.tok.kind == "end" or (self.tok.kind == "op" and self.tok.text in (")", "]", ",", "}"))
        if ends and inclusive:
            raise self.error()  # `a..=` needs its end
        return ast.Range(low, None if ends else self.binary(1), inclusive)

    def array_literal(self) -> ast.Expr:
        """`[a, b, c]` or `[value; count]`."""
        self.expect("[")
        first = self.assignment()
        if self.at_op(";"):
            self.next()
            tok = self.next()
            if tok.kind != "int":
                raise self.error()
            assert isinstance(tok.value, tuple)
            self.expect("]")
            return ast.ArrayRepeat(first, int(tok.value[0]))
        elements = [first]
        while self.at_op(","):
            self.next()
            if self.at_op("]"):
                break
            elements.append(self.assignment())
        self.expect("]")
        return ast.ArrayLit(tuple(elements))

    def struct_literal(self, path: str) -> ast.StructLit:
        """`Path { field: value, ... }`, optionally ending `..base`."""
        self.expect("{")
        fields: list[tuple[str, ast.Expr]] = []
        base: ast.Expr | None = None
        while not self.at_op("}"):
            if self.at_op(".."):
                self.next()
                base = self.assignment()
                break
            name = self.next()
            if name.kind != "ident" or name.text in _KEYWORDS:
                raise self.error()
            self.expect(":")
            fields.append((name.text, self.assignment()))
            if not self.at_op("}"):
                self.expect(",")
        self.expect("}")
        return ast.StructLit(path, tuple(fields), base)

    def path(self) -> str:
        """`a::b::c`, with `crate`, `self` and `super` resolved against the frame's scope."""
        parts: list[str] = []
        if self.at_op("::"):
            self.next()
        while True:
            tok = self.next()
            if tok.kind != "ident" or tok.text in _KEYWORDS:
                raise self.error()
            parts.append(tok.text)
            if self.at_op("::") and self.peek().text == "<":
                parts[-1] += self.generics()
            if self.at_op("::") and self.peek().kind == "ident":
                self.next()
                continue
            break
        return "::".join(self.resolve(parts))

    def generics(self) -> str:
        """`::<A, B>` after a path segment, kept as text (`Option<i32>`)."""
        self.next()
        depth, out = 0, []
        while True:
            tok = self.next()
            if tok.kind == "end":
                raise self.error()
            out.append(tok.text + (" " if tok.text == "," else ""))
            depth += {"<": 1, ">": -1, ">>": -2}.get(tok.text, 0)
            if depth <= 0:
                return "".join(out)

    def resolve(self, parts: list[str]) -> list[str]:
        head = parts[0]
        if head == "crate":
            return self.scope[:1] + parts[1:]
        if head in ("self", "super"):
            scope = list(self.scope)
            while parts and parts[0] in ("self", "super"):
                if parts.pop(0) == "super":
                    if not scope:
                        raise EvaluationError("Too many super:: uses from ''")
                    scope.pop()
            return scope + parts
        return parts

    def type_name(self) -> ast.TypeName:
        """A Rust type after `as`: pointers and references count as pointers."""
        pointers = 0
        while True:
            if self.at_op("*"):
                self.next()
                if not (self.at_word("const") or self.at_word("mut")):
                    raise self.error()
                self.next()
                pointers += 1
            elif self.at_op("&", "&&"):
                pointers += 2 if self.next().text == "&&" else 1
                if self.at_word("mut"):
                    self.next()
            else:
                break
        if self.at_op("["):
            self.next()
            inner = self.type_name()
            self.expect(";")
            tok = self.next()
            if tok.kind != "int":
                raise self.error()
            assert isinstance(tok.value, tuple)
            self.expect("]")
            if pointers:
                raise EvaluationError("Pointers to arrays are not supported in casts.")
            return ast.TypeName(inner.base, inner.pointers + pointers, (int(tok.value[0]), *inner.array))  # fmt: skip
        if self.at_op("("):
            self.next()
            self.expect(")")
            return ast.TypeName("()", pointers)
        if self.tok.kind != "ident" and not self.at_op("::"):
            raise self.error()
        return ast.TypeName(self.path(), pointers)
