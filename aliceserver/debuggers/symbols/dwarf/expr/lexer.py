"""Tokens of C expressions: numbers with suffixes, chars and strings with escapes, operators."""

from __future__ import annotations

import re
from dataclasses import dataclass

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

# Longest operators first so that `<<=` is not read as `<<` `=`.
_OPERATORS = sorted(
    """<<= >>= -> ++ -- << >> <= >= == != && || += -= *= /= %= &= ^= |= ::
    + - * / % < > = ! ~ & | ^ ? : ( ) [ ] { } . , @""".split(),
    key=len,
    reverse=True,
)
_INT = re.compile(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[dDtT][0-9]+|[0-9]+)([uUlL]*)")
_FLOAT = re.compile(
    r"([0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+)"
    r"(df|dd|dl|[fFlL]?)"  # gdb's decimal float suffixes: lower case only
)
_HEX_FLOAT = re.compile(r"0[xX]([0-9a-fA-F]*\.?[0-9a-fA-F]*)([pP][+-]?[0-9]*)?([fFlL]?)")
_DECIMAL_SUFFIXES = {"df": "_Decimal32", "dd": "_Decimal64", "dl": "_Decimal128"}
_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")
# gdb's `$` words: `$`, `$$`, `$3`, `$$2` (history), `$pc` (a register), `$i` (convenience).
_DOLLAR = re.compile(r"\$[A-Za-z0-9_$]*")
_HISTORY = re.compile(r"\$(\$?)([0-9]*)")
_SIMPLE_ESCAPES = {
    "n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11, "e": 27,
    "\\": 92, "'": 39, '"': 34, "?": 63,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # int float decfloat char string ident reg history op entry end
    text: str
    pos: int
    value: object = None  # int / float / bytes / (int, type name); history: its number


def tokenize(text: str, radix: int = 10) -> list[Token]:
    """`radix`: gdb's input-radix, for numbers with no 0x, 0 or 0b prefix."""
    tokens: list[Token] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
            continue
        # ASCII only: str.isdigit/isalpha also accept "²" or "À", which no C token starts with.
        if ch in "0123456789" or (ch == "." and i + 1 < n and text[i + 1] in "0123456789"):
            radix_end = _radix_number(text, i, tokens, radix) if radix != 10 and ch != "0" else -1
            i = _number(text, i, tokens) if radix_end < 0 else radix_end
            continue
        if (ch.isascii() and ch.isalpha()) or ch == "_":
            m = _IDENT.match(text, i)
            assert m is not None
            if m.group(0) in _WIDE_PREFIXES and text[m.end() : m.end() + 1] in ("'", '"'):
                i = _wide_quoted(text, m.end(), _WIDE_PREFIXES[m.group(0)], tokens)
                continue
            tokens.append(Token("ident", m.group(0), i))
            i = m.end()
            continue
        if ch == "$":
            m = _DOLLAR.match(text, i)
            assert m is not None
            tokens.append(_dollar(m.group(0), i))
            i = m.end()
            continue
        if ch in "'\"":
            i = _quoted(text, i, tokens)
            continue
        if ch == "@":
            end = _entry_end(text, i)
            if end is not None:  # gdb's ENTRY token, `@entry` (spaces allowed after the @)
                tokens.append(Token("entry", text[i:end], i))
                i = end
                continue
        for op in _OPERATORS:
            if text.startswith(op, i):
                tokens.append(Token("op", op, i))
                i += len(op)
                break
        else:
            raise EvaluationError(f"Invalid character '{ch}' in expression.")
    tokens.append(Token("end", "", n))
    return tokens


def _entry_end(text: str, at: int) -> int | None:
    """The end of `@entry` starting at `at`, None when the `@` is another operator."""
    start = at + 1
    while start < len(text) and text[start].isspace():
        start += 1
    end = start + len("entry")
    if text.startswith("entry", start) and (end == len(text) or not (text[end].isalnum() or text[end] == "_")):
        return end
    return None


def _dollar(word: str, i: int) -> Token:
    """gdb's write_dollar_variable: `$` is $0 and `$$` $$1, history numbers relative to
    the last value when zero or negative; any other word names a register or variable."""
    m = _HISTORY.fullmatch(word)
    if m is None:
        return Token("reg", word, i)
    relative, digits = m.group(1), m.group(2)
    number = int(digits) if digits else (1 if relative else 0)
    return Token("history", word, i, -number if relative else number)


def _radix_number(text: str, i: int, tokens: list[Token], radix: int) -> int:
    """A number in gdb's input radix (c-exp.y's parse_number): all its letters and digits
    (`1f` is 31 in radix 16), then u and l suffixes; -1 for a float, read as in radix 10."""
    m = _WORD_NUMBER.match(text, i)
    assert m is not None
    word = m.group(0)
    if text[m.end() : m.end() + 1] == "." or (radix <= 10 and re.match(r"[0-9]*[eE]", word)):
        return -1  # a float: its digits are decimal in every radix
    digits = word.rstrip("uUlL") if radix <= 21 else word  # u and l are digits past radix 21
    suffix = word[len(digits) :].lower()
    try:
        value = int(digits, radix)
    except ValueError:
        raise EvaluationError(f'Invalid number "{word}".') from None
    if suffix not in ("", "u", "l", "ul", "lu", "ll", "ull", "llu"):
        raise EvaluationError(f'Invalid number "{word}".')
    tokens.append(Token("int", word, i, (value, _int_type(value, suffix, False))))
    return m.end()


_WORD_NUMBER = re.compile(r"[0-9][0-9A-Za-z]*")


def _number(text: str, i: int, tokens: list[Token]) -> int:
    hm = _HEX_FLOAT.match(text, i)
    if hm is not None and ("." in hm.group(1) or hm.group(2)):  # C99's 0x1.8p3, and gdb's 0x1.1
        mantissa, exponent, suffix = hm.group(1), (hm.group(2) or "p")[1:].lstrip("+"), hm.group(3).lower()
        if not hm.group(2) and not suffix and mantissa[-1] in "fF":  # gdb: 0x1.1f is a float's 1.0625
            mantissa, suffix = mantissa[:-1], "f"
        if exponent in ("", "-"):
            exponent = "0"
        value = float.fromhex(f"0x{mantissa.rstrip('.') or '0'}p{exponent}" if mantissa != "." else "0x0")
        tname = {"f": "float", "l": "long double"}.get(suffix, "double")
        tokens.append(Token("float", hm.group(0), i, (value, tname)))
        return _check_end(text, i, hm.end())
    fm = _FLOAT.match(text, i)
    im = _INT.match(text, i)
    if (
        fm is not None
        and (im is None or fm.end() > im.end() or fm.group(2))
        and ("." in fm.group(1) or "e" in fm.group(1).lower())
        and not fm.group(1).lower().startswith("0x")
    ):
        if fm.group(2) in _DECIMAL_SUFFIXES:  # its digits, as written: no binary rounding
            tokens.append(Token("decfloat", fm.group(0), i, (fm.group(1), _DECIMAL_SUFFIXES[fm.group(2)])))
            return _check_end(text, i, fm.end())
        suffix = fm.group(2).lower()
        tname = {"f": "float", "l": "long double"}.get(suffix, "double")
        tokens.append(Token("float", fm.group(0), i, (float(fm.group(1)), tname)))
        return _check_end(text, i, fm.end())
    if im is None:
        raise EvaluationError("Invalid number.")
    digits, suffix = im.group(1), im.group(2).lower()
    if digits.lower().startswith("0x"):
        value, decimal = _accumulated(digits[2:], 16), False
    elif digits.lower().startswith(("0d", "0t")):  # gdb's decimal prefixes, for any input radix
        value, decimal = _accumulated(digits[2:], 10), True
    elif digits.lower().startswith("0b"):
        value, decimal = _accumulated(digits[2:], 2), False
    elif digits.startswith("0") and len(digits) > 1:
        if any(c in "89" for c in digits):
            raise EvaluationError('Invalid number "%s".' % digits)
        value, decimal = _accumulated(digits, 8), False
    else:
        value, decimal = _accumulated(digits, 10), True
    if suffix not in ("", "u", "l", "ul", "lu", "ll", "ull", "llu"):
        raise EvaluationError(f'Invalid number "{im.group(0)}".')
    tokens.append(Token("int", im.group(0), i, (value, _int_type(value, suffix, decimal))))
    return _check_end(text, i, im.end())


def _accumulated(digits: str, base: int) -> int:
    """gdb's parse_number: digit by digit in 64 bits, 'too large' where a digit does not
    make it grow (an octal number that wraps past 64 bits can escape that, as in gdb)."""
    n = 0
    for c in digits:
        prev, n = n, (n * base + int(c, base)) & ((1 << 64) - 1)
        if prev >= n and not (prev == 0 and n == 0):
            raise EvaluationError("Numeric constant too large.")
    return n


def _check_end(text: str, start: int, end: int) -> int:
    """A number's end; gdb's error naming the whole word when letters run into it (`10df`)."""
    if end < len(text) and (text[end].isalnum() or text[end] == "_"):
        word = _NUMBER_WORD.match(text, start)
        assert word is not None
        raise EvaluationError(f'Invalid number "{word.group(0)}".')
    return end


_NUMBER_WORD = re.compile(r"[0-9A-Za-z_.]+")


def _int_type(value: int, suffix: str, decimal: bool) -> str:
    """C's type of an integer literal (int, unsigned int, long, unsigned long)."""
    unsigned = "u" in suffix
    longs = suffix.count("l")
    candidates: list[tuple[str, int, bool]] = []
    if longs == 0:
        candidates.append(("int", 32, False))
        if not decimal or unsigned:
            candidates.append(("unsigned int", 32, True))
    if longs <= 1:
        candidates.append(("long", 64, False))
        if not decimal or unsigned:
            candidates.append(("unsigned long", 64, True))
    candidates.append(("long long" if longs == 2 else "long", 64, False))
    candidates.append(("unsigned long long" if longs == 2 else "unsigned long", 64, True))
    for name, bits, is_unsigned in candidates:
        if unsigned and not is_unsigned:
            continue
        limit = 1 << bits if is_unsigned else 1 << (bits - 1)
        if value < limit:
            return name
    raise EvaluationError("Numeric constant too large.")


def _scan_quoted(text: str, i: int, wide: bool) -> tuple[int, list[int]]:
    """The units between the quote at `i` and its match, escapes decoded, and the index
    after it: UTF-8 bytes of a narrow literal, code points of a wide one."""
    quote = text[i]
    j = i + 1
    units: list[int] = []
    while True:
        if j >= len(text):
            raise EvaluationError(
                "Unmatched single quote." if quote == "'" else "Unterminated string in expression."
            )
        ch = text[j]
        if ch == quote:
            return j + 1, units
        if ch == "\\":
            j, unit = _escape(text, j + 1)
            units.append(unit)
            continue
        units.extend((ord(ch),) if wide else ch.encode("utf-8"))
        j += 1


def _quoted(text: str, i: int, tokens: list[Token]) -> int:
    quote = text[i]
    j, units = _scan_quoted(text, i, wide=False)
    out = bytes(units)
    if quote == "'":
        if len(out) > 2:  # gdb's quoted name: 'solib_step@plt', 'file.c'::var
            tokens.append(Token("ident", text[i + 1 : j - 1], i))
            return j
        if not out:
            raise EvaluationError("A character constant must contain at least one character.")
        if len(out) != 1:
            raise EvaluationError("Invalid character constant.")
        tokens.append(Token("char", text[i:j], i, out[0]))
    else:
        tokens.append(Token("string", text[i:j], i, bytes(out)))
    return j


_WIDE_PREFIXES = {"L": "wchar_t", "u": "char16_t", "U": "char32_t"}


def _wide_quoted(text: str, i: int, char_type: str, tokens: list[Token]) -> int:
    """`L"ab"`, `u'a'`...: a character or string of `char_type`, as code points."""
    quote = text[i]
    j, codes = _scan_quoted(text, i, wide=True)
    start = i - (1 if char_type != "char" else 0)
    if quote == '"':
        tokens.append(Token("string", text[start:j], start, (tuple(codes), char_type)))
    elif not codes:
        raise EvaluationError("A character constant must contain at least one character.")
    elif len(codes) != 1:
        raise EvaluationError("Invalid character constant.")
    else:
        tokens.append(Token("char", text[start:j], start, (codes[0], char_type)))
    return j


def _escape(text: str, j: int) -> tuple[int, int]:
    if j >= len(text):
        raise EvaluationError("Unterminated escape sequence.")
    ch = text[j]
    if ch in _SIMPLE_ESCAPES:
        return j + 1, _SIMPLE_ESCAPES[ch]
    if ch in "01234567":
        k = j
        while k < len(text) and k < j + 3 and text[k] in "01234567":
            k += 1
        return k, int(text[j:k], 8) & 0xFF
    if ch == "x":
        k = j + 1
        while k < len(text) and text[k] in "0123456789abcdefABCDEF":
            k += 1
        if k == j + 1:
            raise EvaluationError("\\x escape without a following hex digit")
        return k, int(text[j + 1 : k], 16) & 0xFF
    return j + 1, ord(ch) & 0xFF
