"""The key under which a C++ or Rust type name is indexed and looked up (typenames.py).

Printers and users spell one type many ways: `std::vector<int, std::allocator<int> >`
(g++'s DWARF), `std::vector<int,std::allocator<int>>`, `std::pair<const int, long>` and
`std::pair<int const, long int>`. Their keys are equal: spacing dropped except between
words, `long unsigned int` as `unsigned long`, a leading const/volatile of a template
argument moved after the type it qualifies (as in `int const`). Keys are only compared,
never shown.
"""

from __future__ import annotations

from aliceserver.regexes import compiled_later

_TOKEN = compiled_later(r"[A-Za-z_$][\w$]*|\d[\w.']*|::|&&|->|\S")
_INTEGER_WORDS = frozenset(("signed", "unsigned", "short", "long", "int", "char", "__int128"))
_CV = frozenset(("const", "volatile"))
_OPEN = frozenset(("<", "(", "["))
_CLOSE = frozenset((">", ")", "]"))


def type_key(name: str) -> str:
    """The normalised form of a type name: equal for the spellings of one type."""
    if name.isidentifier() and name not in _INTEGER_WORDS:  # a plain word: nothing to do
        return name
    tokens = _integer_words(_TOKEN().findall(name))
    tokens = _east_const(tokens)
    out: list[str] = []
    for token in tokens:
        if out and _wordlike(out[-1]) and _wordlike(token):
            out.append(" ")
        out.append(token)
    return "".join(out)


def _wordlike(token: str) -> bool:
    return token[0].isalnum() or token[0] in "_$"


def _integer_words(tokens: list[str]) -> list[str]:
    """Each run of integer keywords in one order: `long unsigned int` -> `unsigned long`."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if tokens[i] not in _INTEGER_WORDS or (out and out[-1] == "::"):
            out.append(tokens[i])
            i += 1
            continue
        j = i
        while j < len(tokens) and tokens[j] in _INTEGER_WORDS:
            j += 1
        out.extend(_integer_spelling(tokens[i:j]))
        i = j
    return out


def _integer_spelling(words: list[str]) -> list[str]:
    unsigned = "unsigned" in words
    if "char" in words:
        sign = ["unsigned"] if unsigned else ["signed"] if "signed" in words else []
        return [*sign, "char"]
    if "__int128" in words:
        return ["unsigned", "__int128"] if unsigned else ["__int128"]
    size = ["short"] if "short" in words else ["long"] * words.count("long") or ["int"]
    return ["unsigned", *size] if unsigned else size


def _east_const(tokens: list[str]) -> list[str]:
    """A const/volatile that begins a type (the name, or an argument) moved to just before
    that type's first top-level `*`, `&` or `&&` (or its end): `const char *` and
    `char const *` meet."""
    out: list[str] = []
    i = 0
    start = True  # at the beginning of a type: the name's, or after `<`, `,` or `(`
    while i < len(tokens):
        token = tokens[i]
        if start and token in _CV:
            cv: list[str] = []
            while i < len(tokens) and tokens[i] in _CV:
                cv.append(tokens[i])
                i += 1
            end = _declarator_start(tokens, i)
            out.extend(_east_const(tokens[i:end]))
            out.extend(sorted(cv))
            i = end
            start = False
            continue
        out.append(token)
        start = token in ("<", ",", "(")
        i += 1
    return out


def _declarator_start(tokens: list[str], i: int) -> int:
    """Where, from `i`, the type ends at its own level: a `*`, `&`, `&&`, `,` or a closing
    bracket outside any brackets opened after `i`."""
    depth = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _OPEN:
            depth += 1
        elif token in _CLOSE:
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and token in ("*", "&", "&&", ","):
            return i
        i += 1
    return i
