"""C expression parser: precedence climbing over the lexer's tokens."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.lexer import Token, tokenize
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

MAX_DEPTH = 200  # nesting limit: deeper input is refused rather than overflowing the stack


class SyntaxNear(EvaluationError):
    """gdb's syntax error, with the names parsed before it: gdb looks each name up as it
    parses it, so an unknown one among them is the error it gives (entry.py)."""

    def __init__(self, message: str, names: tuple[str, ...]) -> None:
        super().__init__(message)
        self.names = names

# gdb's c-exp.y puts the artificial array's `@` between the shifts and `+`.
_BINARY_PRECEDENCE = {
    "||": 1, "&&": 2, "|": 3, "^": 4, "&": 5, "==": 6, "!=": 6,
    "<": 7, ">": 7, "<=": 7, ">=": 7, "<<": 8, ">>": 8, "@": 9, "+": 10, "-": 10,
    "*": 11, "/": 11, "%": 11,
}  # fmt: skip
_ASSIGN_OPS = frozenset(("=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="))
_TYPE_WORDS = frozenset(
    "int char short long unsigned signed float double void _Bool bool wchar_t char16_t "
    "char32_t _Decimal32 _Decimal64 _Decimal128".split()
)
_QUALIFIERS = frozenset(("const", "volatile", "restrict"))
_TAGS = frozenset(("struct", "union", "enum", "class"))
_KEYWORDS = _TYPE_WORDS | _QUALIFIERS | _TAGS
_NAMED_CASTS = frozenset(("dynamic_cast", "static_cast", "reinterpret_cast", "const_cast"))


def parse(text: str, is_type: Callable[[str], bool] | None = None, radix: int = 10,
          is_name: Callable[[str], bool] | None = None, cplus: bool = False) -> ast.Expr:  # fmt: skip
    """Parse one expression; `is_type` says which identifiers name types (for casts),
    `is_name` which name a function or variable (`twice<int>`: a template's instance, not
    `twice < int > ...`); `radix`: gdb's input-radix; `cplus`: C++'s `true` and `false`."""
    tokens = tokenize(text, radix)
    parser = _Parser(_cplus_tokens(tokens) if cplus else tokens, is_type or _never, text, is_name or _never)
    parser.cplus = cplus
    return parser.parse_all()


# C++'s alternative tokens and keywords as gdb's lexer reads them (c-exp.y's ident_tokens, FLAG_CXX)
_CPLUS_ALTERNATIVES = {"and": "&&", "or": "||", "not": "!", "bitand": "&", "bitor": "|", "xor": "^",
                       "compl": "~", "not_eq": "!=", "and_eq": "&=", "or_eq": "|=", "xor_eq": "^="}  # fmt: skip


def _cplus_tokens(tokens: list[Token]) -> list[Token]:
    out = []
    for tok in tokens:
        if tok.kind == "ident" and tok.text in _CPLUS_ALTERNATIVES:
            tok = Token("op", _CPLUS_ALTERNATIVES[tok.text], tok.pos)
        elif tok.kind == "ident" and tok.text == "alignof":
            tok = Token("ident", "_Alignof", tok.pos)
        out.append(tok)
    return out


def _never(_name: str) -> bool:
    return False


class TokenCursor:
    """A parser's place in its tokens and its nesting depth (the C and Rust parsers')."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def next(self) -> Token:
        tok = self.tokens[self.pos]
        if tok.kind != "end":
            self.pos += 1
        return tok

    def at_op(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.text in ops

    def expect(self, op: str) -> None:
        if not self.at_op(op):
            raise self.error()
        self.next()

    def error(self) -> EvaluationError:
        """The language's syntax error at the current token."""
        raise NotImplementedError

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise EvaluationError("Expression too deeply nested.")


class _Parser(TokenCursor):
    def __init__(self, tokens: list[Token], is_type: Callable[[str], bool], text: str,
                 is_name: Callable[[str], bool]) -> None:  # fmt: skip
        super().__init__(tokens)
        self.is_type = is_type
        self.is_name = is_name
        self.text = text
        self.names: list[str] = []  # the names parsed so far, in order
        self.cplus = False  # C++'s keywords

    def error(self) -> EvaluationError:
        """gdb's words, with the rest of the input from the token it stopped at."""
        tok = self.tok
        near = "" if tok.kind == "end" else self.text[tok.pos:]
        return SyntaxNear(f"A syntax error in expression, near `{near}'.", tuple(self.names))

    # --- grammar ------------------------------------------------------------------------
    def parse_all(self) -> ast.Expr:
        if self.tok.kind == "end":
            raise EvaluationError("Empty expression.")
        whole_type = self.whole_type()
        if whole_type is not None:
            return whole_type
        expr = self.comma()
        self.expect_end()
        return expr

    def expect_end(self) -> None:
        """gdb's lexer ends the expression at a `)` it has no `(` for: what follows is junk."""
        if self.at_op(")"):
            raise SyntaxNear("Junk after end of expression.", tuple(self.names))
        if self.tok.kind != "end":
            raise self.error()

    def whole_type(self) -> ast.TypeExpr | None:
        """The text as one type name (gdb's grammar takes a type as an expression, for
        ptype, whatis and sizeof), else None with nothing consumed."""
        if not self.starts_type(self.tok):
            return None
        start = self.pos
        try:
            tname = self.type_name()
        except EvaluationError:
            tname = None
        if tname is not None and (self.tok.kind == "end" or self.at_op(")")):
            self.expect_end()
            return ast.TypeExpr(tname)
        self.pos = start
        return None

    def comma(self) -> ast.Expr:
        """C's comma operator (gdb's exp1): where a whole expression is, not in arguments."""
        expr = self.assignment()
        while self.at_op(","):
            self.next()
            expr = ast.Comma(expr, self.assignment())
        return expr

    def assignment(self) -> ast.Expr:
        self.enter()
        try:
            left = self.ternary()
            if self.tok.kind == "op" and self.tok.text in _ASSIGN_OPS:
                op = self.next().text
                return ast.Assign(op, left, self.assignment())
            return left
        finally:
            self.depth -= 1

    def ternary(self) -> ast.Expr:
        cond = self.binary(1)
        if self.at_op("?"):
            self.next()
            then = self.assignment()
            self.expect(":")
            self.enter()
            try:
                otherwise = self.ternary()
            finally:
                self.depth -= 1
            return ast.Ternary(cond, then, otherwise)
        return cond

    def binary(self, min_prec: int) -> ast.Expr:
        left = self.unary()
        while self.tok.kind == "op":
            prec = _BINARY_PRECEDENCE.get(self.tok.text)
            if prec is None or prec < min_prec:
                break
            op = self.next().text
            self.enter()
            try:
                right = self.binary(prec + 1)
            finally:
                self.depth -= 1
            left = ast.Repeat(left, right) if op == "@" else ast.Binary(op, left, right)
        return left

    def unary(self) -> ast.Expr:
        self.enter()
        try:
            tok = self.tok
            if tok.kind == "op" and tok.text in ("-", "+", "!", "~", "*", "&", "++", "--"):
                self.next()
                return ast.Unary(tok.text, self.unary())
            if tok.kind == "ident" and tok.text == "sizeof":
                self.next()
                if self.at_op("(") and self.starts_type(self.peek()):
                    self.next()
                    tname = self.type_name()
                    self.expect(")")
                    return ast.SizeofType(tname)
                return ast.Unary("sizeof", self.unary())
            if tok.kind == "ident" and tok.text == "_Alignof":  # gdb's grammar: a type alone
                self.next()
                self.expect("(")
                if not self.starts_type(self.tok):
                    raise self.error()
                tname = self.type_name()
                self.expect(")")
                return ast.AlignofType(tname)
            if self.at_op("(") and self.starts_type(self.peek()):
                self.next()
                tname = self.type_name()
                self.expect(")")
                return ast.Cast(tname, self.unary())
            if self.at_op("{") and self.starts_type(self.peek()):
                self.next()
                tname = self.type_name()
                self.expect("}")
                return ast.MemoryAt(tname, self.unary())
            return self.postfix(self.primary())
        finally:
            self.depth -= 1

    def starts_type(self, tok: Token) -> bool:
        if tok.kind != "ident":
            return False
        text = tok.text
        if text in _TYPE_WORDS or text in _QUALIFIERS or text in _TAGS:
            return True
        # A scoped name `a::b::c` is a type when the whole of it names one.
        index = self.tokens.index(tok, self.pos)
        while (
            self.tokens[index + 1].kind == "op"
            and self.tokens[index + 1].text == "::"
            and self.tokens[index + 2].kind == "ident"
        ):
            text += "::" + self.tokens[index + 2].text
            index += 2
        found = _template_text(self.tokens, index + 1)
        if found is not None and self.is_type(text + found[0]):
            return True
        return self.is_type(text)

    def type_name(self) -> ast.TypeName:
        words: list[str] = []
        const = False
        while self.tok.kind == "ident":
            text = self.tok.text
            if text in _QUALIFIERS:
                const = const or text == "const"
                self.next()
                continue
            if text in _TAGS:
                self.next()
                if self.tok.kind != "ident":
                    raise self.error()
                words.append(f"{text} {self.type_ident()}")
                break
            if text in _TYPE_WORDS:
                words.append(self.next().text)
                continue
            if words:
                break
            if not self.starts_type(self.tok):  # `const x`: gdb's syntax error at the x
                raise self.error()
            words.append(self.type_ident())
            break
        while self.tok.kind == "ident" and self.tok.text in _QUALIFIERS:
            const = const or self.next().text == "const"
        if not words:
            raise self.error()
        pointers = 0
        while self.at_op("*") or (self.tok.kind == "ident" and self.tok.text in _QUALIFIERS):
            if self.next().text == "*":
                pointers += 1
        if self.at_op("(") and self.peek().kind == "op" and self.peek().text == "*":
            return self.function_pointer(ast.TypeName(_canonical(words), pointers, (), const))
        reference = self.next().text if self.at_op("&", "&&") else ""
        return ast.TypeName(_canonical(words), pointers, self.dims(), const, reference)

    def dims(self) -> tuple[int | None, ...]:
        """`[3][]` array declarators (None: an unknown bound)."""
        dims: list[int | None] = []
        while self.at_op("["):
            self.next()
            if self.at_op("]"):
                self.next()
                dims.append(None)
                continue
            if self.tok.kind != "int":  # (gdb's error is at it)
                raise self.error()
            tok = self.next()
            assert isinstance(tok.value, tuple)
            dims.append(int(tok.value[0]))
            self.expect("]")
        return tuple(dims)

    def stars(self) -> int:
        """`(*)`, `(*(*))`: the `*` of a parenthesized abstract declarator."""
        self.expect("(")
        count = 0
        while self.at_op("*"):
            self.next()
            count += 1
        if self.at_op("("):
            count += self.stars()
        self.expect(")")
        return count

    def function_pointer(self, returns: ast.TypeName) -> ast.TypeName:
        """`(*)(float, float)` after the type a function returns: a pointer to it; `(*)[3]`
        after an array's element type: a pointer to the array."""
        count = self.stars()
        if self.at_op("["):
            return replace(returns, array=self.dims(), array_pointers=count)
        if not self.at_op("("):  # `int (*)`: a parenthesized pointer, as gdb reads it
            return replace(returns, pointers=returns.pointers + count)
        self.next()
        params: list[ast.TypeName] = []
        varargs = False
        while not self.at_op(")"):
            if params or varargs:
                self.expect(",")
            if self.at_op(".") and self.peek().text == "." and self.peek(2).text == ".":  # `...`
                self.pos += 3
                varargs = True
                continue
            params.append(self.type_name())
        self.next()
        if len(params) == 1 and params[0] == ast.TypeName("void"):
            params = []  # `(void)`: prototyped, no parameters
        elif not params and not varargs:
            return replace(returns, function_pointers=count)
        return replace(returns, function_pointers=count, params=tuple(params), varargs=varargs)

    def type_ident(self) -> str:
        """A scoped name, with its template arguments when it has some (`geo::Box<int>`)."""
        name = self.scoped_ident()
        found = _template_text(self.tokens, self.pos) if self.at_op("<") else None
        if found is None:
            return name
        text, end, split = found
        if split:  # `static_cast<Box<int>>(x)`: the last `>>` closes the template and the cast
            tok = self.tokens[end]
            self.tokens[end] = Token("op", ">", tok.pos + 1)
            self.pos = end
        else:
            self.pos = end + 1
        return name + text

    def named_cast(self, kind: str) -> ast.Expr:
        """`dynamic_cast<T>(v)` and its kin; static and const casts are C casts, as gdb's."""
        self.expect("<")
        tname = self.type_name()
        self.expect(">")
        self.expect("(")
        operand = self.assignment()
        self.expect(")")
        if kind in ("static_cast", "const_cast"):
            return ast.Cast(tname, operand)
        return ast.NamedCast(kind, tname, operand)

    def scoped_ident(self) -> str:
        parts = [self.member_name()]
        while self.at_op("::") and self.peek().kind == "ident":
            self.next()
            parts.append(self.member_name())
        return "::".join(parts)

    def templated(self, name: str) -> str:
        """`name` with the template arguments that follow it where, so written, it names a
        function or variable (`twice<int>`, as gdb's lexer asks the symbols) or a scope
        (`Counter<int>::count`); else `name` (`a < b`), nothing consumed."""
        found = _template_text(self.tokens, self.pos)
        if found is None or found[2]:
            return name
        text, end, _split = found
        after = self.tokens[end + 1]
        if after.kind == "op" and after.text == "::" and self.tokens[end + 2].kind == "ident":
            self.pos = end + 1
            while self.at_op("::") and self.peek().kind == "ident":
                self.next()
                text += "::" + self.member_name()
            return name + text
        if self.is_name(name + text):
            self.pos = end + 1
            return name + text
        before = self.tokens[self.pos - 1]
        if self.is_name is not _never and self.tok.pos == before.pos + len(before.text) and (
                _gdb_template_end(self.text, self.tok.pos) == self.tokens[end].pos + 1):  # fmt: skip
            # gdb's lexer takes `get<0>` written so, `<` against the name, as one name
            # (find_template_name_end), which names nothing here: told as written
            written = self.text[self.tok.pos : self.tokens[end].pos + 1]
            self.pos = end + 1
            return name + written
        return name

    def member_name(self, qualified: bool = False) -> str:
        """An identifier, or an operator's name (`operator[]`, `operator==`, `operator()`);
        `qualified` (after `.` or `->`): in C++ a base class's member too (`n.Shape::id`:
        gdb's qualified name, its class a type, else gdb's syntax error at the end, as its
        lexer reads the whole name)."""
        name = self.next().text
        while qualified and self.cplus and self.at_op("::") and self.peek().kind == "ident":
            if not self.is_type(name):
                self.pos = len(self.tokens) - 1
                raise self.error()
            self.next()
            name += "::" + self.next().text
        if name != "operator" or self.tok.kind != "op":
            return name
        symbol = self.next().text
        if symbol in ("[", "(") and self.at_op("]" if symbol == "[" else ")"):
            symbol += self.next().text
        elif symbol not in _OPERATOR_NAMES:
            raise self.error()
        return "operator" + symbol

    def primary(self) -> ast.Expr:
        tok = self.tok
        if tok.kind == "int":
            self.next()
            assert isinstance(tok.value, tuple)
            return ast.IntLit(int(tok.value[0]), str(tok.value[1]))
        if tok.kind == "float":
            self.next()
            assert isinstance(tok.value, tuple)
            return ast.FloatLit(float(tok.value[0]), str(tok.value[1]))
        if tok.kind == "decfloat":
            self.next()
            assert isinstance(tok.value, tuple)
            return ast.DecimalFloatLit(str(tok.value[0]), str(tok.value[1]))
        if tok.kind == "op" and tok.text == "{":  # an array literal: `{1, 2, 3}`
            self.next()
            elements: list[ast.Expr] = []
            if not self.at_op("}"):
                elements.append(self.assignment())
                while self.at_op(","):
                    self.next()
                    elements.append(self.assignment())
            self.expect("}")
            return ast.ArrayLit(tuple(elements))
        if tok.kind == "char":
            self.next()
            if isinstance(tok.value, tuple):  # L'a', u'a', U'a'
                return ast.CharLit(int(tok.value[0]), str(tok.value[1]))
            assert isinstance(tok.value, int)
            return ast.CharLit(tok.value)
        if tok.kind == "string":
            parts: list[tuple[tuple[int, ...], str]] = []
            while self.tok.kind == "string":  # "a" "b" concatenation
                value = self.next().value
                if isinstance(value, bytes):
                    parts.append((tuple(value), "char"))
                else:  # L"ab": its code points and type
                    assert isinstance(value, tuple)
                    parts.append((tuple(value[0]), str(value[1])))
            return _string_literal(parts)
        if tok.kind == "reg":
            self.next()
            return ast.Register(tok.text[1:])
        if tok.kind == "history":
            self.next()
            assert isinstance(tok.value, int)
            return ast.History(tok.value)
        if tok.kind == "ident":
            if tok.text == "sizeof":
                raise self.error()
            if self.cplus and tok.text in ("true", "false"):  # gdb's TRUEKEYWORD, FALSEKEYWORD (C++)
                self.next()
                return ast.IntLit(int(tok.text == "true"), "bool")
            if self.cplus and tok.text in ("new", "delete"):
                raise self.error()
            if self.cplus and (tok.text == "template" or (tok.text == "operator" and self.peek().kind == "end")):
                self.next()  # (gdb's grammar wants what comes after them)
                raise self.error()
            if (tok.text in _TYPE_WORDS or (self.cplus and tok.text == "decltype")) and (
                    self.peek().kind == "op" and self.peek().text == "("):  # fmt: skip
                self.next()
                self.next()
                raise self.error()  # `int(3)`: gdb's grammar has no functional cast
            if tok.text in _NAMED_CASTS and self.peek().kind == "op" and self.peek().text == "<":
                self.next()
                return self.named_cast(tok.text)
            name = self.scoped_ident()
            if self.at_op("<"):
                name = self.templated(name)
            if self.tok.kind == "entry" and "::" not in name:  # gdb: name_not_typename ENTRY
                self.next()
                return ast.EntryValue(name)
            if name not in _KEYWORDS:  # (`const m`: gdb's syntax error, no lookup)
                self.names.append(name)
            return ast.Name(name)
        if self.at_op("::") and self.peek().kind == "ident":
            self.next()
            self.names.append("::" + self.scoped_ident())
            return ast.Name(self.names[-1])
        if self.at_op("("):
            self.next()
            inner = self.comma()
            self.expect(")")
            return inner
        raise self.error()

    def postfix(self, expr: ast.Expr) -> ast.Expr:
        while True:
            if self.at_op("["):
                self.next()
                index = self.comma()
                self.expect("]")
                expr = ast.Index(expr, index)
            elif self.at_op(".", "->"):
                arrow = self.next().text == "->"
                if self.tok.kind != "ident":
                    raise self.error()
                expr = ast.Member(expr, self.member_name(qualified=True), arrow)
            elif self.at_op("("):
                self.next()
                args: list[ast.Expr] = []
                if not self.at_op(")"):
                    args.append(self.assignment())
                    while self.at_op(","):
                        self.next()
                        args.append(self.assignment())
                self.expect(")")
                expr = ast.Call(expr, tuple(args))
            elif self.at_op("++", "--"):  # gdb's UNOP_POSTINCREMENT and UNOP_POSTDECREMENT
                expr = ast.Unary("post" + self.next().text, expr)
            else:
                return expr


# C++'s operators a name may follow `operator` with (`[]` and `()` are read apart).
_OPERATOR_NAMES = frozenset(
    "+ - * / % ^ & | ~ ! = < > += -= *= /= %= ^= &= |= << >> <<= >>= == != <= >= && || ++ -- , ->* ->".split()
)
_CHAR_SIZES = {"char": 1, "wchar_t": 4, "char16_t": 2, "char32_t": 4}


def _string_literal(parts: list[tuple[tuple[int, ...], str]]) -> ast.StringLit:
    """Adjacent literals as one, of the wide type among them if any (C's concatenation)."""
    char_type = next((kind for _, kind in parts if kind != "char"), "char")
    size = _CHAR_SIZES[char_type]
    codes = [code for part, _ in parts for code in part]
    if size == 1:
        return ast.StringLit(bytes(code & 0xFF for code in codes))
    return ast.StringLit(b"".join((code % (1 << 8 * size)).to_bytes(size, "little") for code in codes), char_type)


def _canonical(words: list[str]) -> str:
    """`unsigned` -> `unsigned int`, `long int` -> `long`, `signed char` kept."""
    if len(words) == 1 and (" " in words[0] or words[0] not in _TYPE_WORDS):
        return words[0]
    ws = [w for w in words if w != "int"] if len(words) > 1 else list(words)
    unsigned = "unsigned" in ws
    signed = "signed" in ws
    rest = [w for w in ws if w not in ("unsigned", "signed")]
    base = " ".join(rest) if rest else "int"
    if base == "char":
        return "unsigned char" if unsigned else ("signed char" if signed else "char")
    if base in ("short", "long", "long long", "int"):
        return f"unsigned {base}" if unsigned else base
    return base


_TEMPLATE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_,&*()[]")


def _gdb_template_end(text: str, start: int) -> int | None:
    """gdb's find_template_name_end: where the template argument list at text[start]
    (a `<`) ends, past its `>`, if gdb's lexer would read it as part of a name."""
    depth, seen_right, seen_colon, seen_space = 1, False, 0, False  # gdb's just_seen_*
    for i in range(start + 1, len(text)):
        c = text[i]
        if c in "'\"{}":
            return None
        if c == "<":
            depth += 1
            if seen_colon or seen_right or seen_space:
                return None
        elif c == ">":
            if seen_colon or seen_right:
                return None
            seen_right = True
            depth -= 1
            if depth == 0:
                return i + 1
        elif c == ":":
            if seen_space or seen_colon > 1:
                return None
            seen_colon += 1
        elif c != " " and c not in _TEMPLATE_CHARS:
            return None
        if c != " ":
            seen_space = False  # (gdb's never becomes true: a space only passes)
        if c != ":":
            seen_colon = 0
        if c != ">":
            seen_right = False
    return None


def _template_text(tokens: list[Token], index: int) -> tuple[str, int, bool] | None:
    """The template arguments starting at tokens[index] (a `<`) written as gcc names them
    in DWARF (`<int, geo::Shape*>`), the index of the closing token, and whether that is a
    `>>` only the first half of which closes them; None when they are not closed."""
    if not (tokens[index].kind == "op" and tokens[index].text == "<"):
        return None
    text, depth, previous = "<", 1, tokens[index]
    for at in range(index + 1, len(tokens)):
        tok = tokens[at]
        if tok.kind == "end" or (tok.kind == "op" and tok.text in ("(", ")", ";")):
            return None
        closes = {">": 1, ">>": 2}.get(tok.text, 0) if tok.kind == "op" else 0
        if tok.kind == "op" and tok.text == "<":
            depth += 1
        if closes:
            if closes > depth:
                return text + ">", at, True
            depth -= closes
            text += tok.text
            if depth == 0:
                return text, at, False
        elif tok.text == ",":
            text += ", "
        elif tok.kind == "ident" and previous.kind == "ident" and text[-1] != "<":
            text += " " + tok.text
        else:
            text += tok.text
        previous = tok
    return None
