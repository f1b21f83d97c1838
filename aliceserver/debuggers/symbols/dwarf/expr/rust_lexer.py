"""Tokens of Rust expressions (gdb's rust-parse.c lexer, in its words where it fails):
integers with `_` and type suffixes (`5u8`, `10_000i64`, `0o17`), floats (`1.5f32`, `1.`),
chars (`'a'`, `'\\u{e9}'`, `b'a'`), strings (`"a\\tb"`, `b"xy"`), `::` paths, `as`.

After a `.`, digits are a tuple field, never a float: `x.0.1` is two field accesses."""

from __future__ import annotations

import re

from aliceserver.debuggers.symbols.dwarf.expr.lexer import Token
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

_OPERATORS = sorted(
    """<<= >>= ..= ... :: -> => .. << >> <= >= == != && || += -= *= /= %= &= ^= |=
    + - * / % < > = ! & | ^ ? : ( ) [ ] { } . , ; @""".split(),
    key=len,
    reverse=True,
)
INT_SUFFIXES = frozenset(
    "i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize".split()
)
_NUMBER = re.compile(
    r"(?P<int>0x[0-9a-fA-F_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*)"
    r"(?P<frac>\.(?![.A-Za-z_])[0-9_]*)?(?P<exp>[eE][+-]?[0-9_]+)?"
    r"(?P<suffix>[iuf](?:8|16|32|64|128|size))?"
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
_FIELD = re.compile(r"[0-9]+")
_ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34}


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        after_dot = bool(tokens) and tokens[-1].kind == "op" and tokens[-1].text == "."
        if ch in "0123456789":
            if after_dot:  # `t.0.1`: a field number, not the float 0.1
                m = _FIELD.match(text, i)
                assert m is not None
                tokens.append(Token("field", m.group(0), i, int(m.group(0))))
                i = m.end()
            else:
                i = _number(text, i, tokens)
            continue
        if ch in "bB" and text.startswith(("b'", 'b"'), i):
            i = _quoted(text, i + 1, tokens, byte=True, start=i)
            continue
        if ch.isascii() and (ch.isalpha() or ch == "_"):
            m = _IDENT.match(text, i)
            assert m is not None
            tokens.append(Token("ident", m.group(0), i))
            i = m.end()
            continue
        if ch == "$":
            m = _IDENT.match(text, i + 1)
            if m is None:
                raise EvaluationError("unexpected token")
            tokens.append(Token("reg", "$" + m.group(0), i))
            i = m.end()
            continue
        if ch in "'\"":
            i = _quoted(text, i, tokens, byte=False, start=i)
            continue
        for op in _OPERATORS:
            if text.startswith(op, i):
                tokens.append(Token("op", op, i))
                i += len(op)
                break
        else:
            raise EvaluationError("unexpected token")
    tokens.append(Token("end", "", n))
    return tokens


def _number(text: str, i: int, tokens: list[Token]) -> int:
    m = _NUMBER.match(text, i)
    assert m is not None
    digits = m.group("int").replace("_", "")
    suffix = m.group("suffix")
    frac, exp = m.group("frac"), m.group("exp")
    based = digits[:2].lower() in ("0x", "0o", "0b")
    if (frac is not None or exp is not None or (suffix or "").startswith("f")) and not based:
        if suffix is not None and suffix not in ("f32", "f64"):
            raise EvaluationError("Invalid floating-point suffix")  # never a float in Rust
        number = float(digits + (frac or "").replace("_", "") + (exp or "").replace("_", ""))
        tokens.append(Token("float", m.group(0), i, (number, suffix or "f64")))
    else:
        if suffix is not None and suffix not in INT_SUFFIXES:
            raise EvaluationError("Invalid integer suffix")
        base = {"0x": 16, "0o": 8, "0b": 2}.get(digits[:2].lower(), 10)
        if len(digits) == 2 and based:
            raise EvaluationError("Integer literal is too large")  # `0x` alone
        value = int(digits[2:] if based else digits, base)
        if value >= 1 << 64:
            raise EvaluationError("Integer literal is too large")
        tokens.append(Token("int", m.group(0), i, (value, suffix)))
    end = m.end()
    if end < len(text) and (text[end].isalnum() or text[end] == "_"):
        raise EvaluationError("Invalid integer suffix")
    return end


def _quoted(text: str, i: int, tokens: list[Token], *, byte: bool, start: int) -> int:
    quote = text[i]
    j = i + 1
    codes: list[int] = []
    while True:
        if j >= len(text):
            raise EvaluationError(
                "Unterminated character literal" if quote == "'" else "Unterminated string literal"
            )
        ch = text[j]
        if ch == quote:
            j += 1
            break
        if ch == "\\":
            j, code = _escape(text, j + 1)
        else:
            code, j = ord(ch), j + 1
            if byte and code > 0x7F:  # only escapes reach past ASCII in b'' and b""
                raise EvaluationError("Non-ASCII value in byte literal")
        codes.append(code)
    if quote == "'":
        if len(codes) != 1:
            raise EvaluationError("Character constant too long")
        tokens.append(Token("char", text[start:j], start, (codes[0], "u8" if byte else "char")))
    elif byte:
        tokens.append(Token("string", text[start:j], start, (bytes(codes), True)))
    else:
        data = "".join(chr(c) for c in codes).encode("utf-8")
        tokens.append(Token("string", text[start:j], start, (data, False)))
    return j


def _escape(text: str, j: int) -> tuple[int, int]:
    if j >= len(text):
        raise EvaluationError("Unterminated character literal")
    ch = text[j]
    if ch in _ESCAPES:
        return j + 1, _ESCAPES[ch]
    if ch == "x":
        digits = text[j + 1 : j + 3]
        if len(digits) != 2 or not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise EvaluationError("Not enough hex digits seen")
        return j + 3, int(digits, 16)
    if ch == "u" and text.startswith("{", j + 1):
        end = text.find("}", j + 2)
        digits = text[j + 2 : end] if end > 0 else ""
        if not digits or not all(c in "0123456789abcdefABCDEF_" for c in digits):
            raise EvaluationError("Unicode escape needs hex digits")
        return end + 1, int(digits.replace("_", ""), 16)
    raise EvaluationError("Invalid escape \\%s in literal" % ch)
