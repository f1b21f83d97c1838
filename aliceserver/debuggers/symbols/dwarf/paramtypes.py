"""A `break` parameter list spelled as the demangler spells the function's, as gdb reads it
(cp_canonicalize_string_no_typedefs): a typedef replaced by the type it names
(`TimeStamp` -> `long`, `std::string` -> `std::__cxx11::basic_string<char,
std::char_traits<char>, std::allocator<char> >`), a built-in type by its one name (`long
int` -> `long`, `unsigned` -> `unsigned int`), `const` after what it qualifies (`const
Node*` -> `Node const*`). A parameter this does not read (a function pointer, an array)
is kept as typed."""

from __future__ import annotations

import re
from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.names import split_top_level

# A typedef's name -> the text of the type it names, one level (None: no typedef so named).
TypedefTarget = Callable[[str], "str | None"]

_BUILTIN_WORDS = frozenset({"signed", "unsigned", "short", "long", "int", "char", "double"})
_CV = ("const", "volatile")
_TOKEN = re.compile(r"\s*(&&|[*&]|::|[A-Za-z_]\w*|<)")
_MAX_EXPANSIONS = 16  # a typedef naming itself through others stops here


def canonical_parameters(params: str, typedef_target: TypedefTarget) -> str:
    """`(TimeStamp, const std::string&)` -> `(long, std::__cxx11::basic_string<...> const&)`."""
    inner = params.strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        return params
    items = split_top_level(inner[1:-1])
    if items == [""]:
        return "()"
    return "(" + ", ".join(canonical_type(item, typedef_target) for item in items) + ")"


def canonical_type(text: str, typedef_target: TypedefTarget, depth: int = 0) -> str:
    """One type as the demangler writes it, or `text` unchanged when it is not read here."""
    parsed = _parse(text)
    if parsed is None:
        return text.strip()
    base, base_cv, declarators = parsed
    if base[0] in _BUILTIN_WORDS:
        shown = _builtin(base)
    else:
        shown = " ".join(base)
        target = typedef_target(shown) if depth < _MAX_EXPANSIONS else None
        if target is not None:
            shown = canonical_type(target, typedef_target, depth + 1)
    for word in _CV:
        if word in base_cv:
            shown += f" {word}"
    for op, cv in declarators:
        shown += op + "".join(f" {word}" for word in _CV if word in cv)
    return shown


def _parse(text: str) -> tuple[list[str], set[str], list[tuple[str, set[str]]]] | None:
    """(the base type's words or qualified name, its cv words, each `*` / `&` / `&&` with
    the cv words after it); None for what is not that simple form."""
    tokens = _tokens(text)
    if tokens is None:
        return None
    base: list[str] = []
    base_cv: set[str] = set()
    declarators: list[tuple[str, set[str]]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _CV:
            (declarators[-1][1] if declarators else base_cv).add(token)
        elif token in ("*", "&", "&&"):
            if not base:
                return None
            declarators.append((token, set()))
        elif declarators:
            return None  # a name after a declarator: not a simple type
        elif token in _BUILTIN_WORDS and (not base or base[0] in _BUILTIN_WORDS):
            base.append(token)
        elif not base:
            base.append(token)  # a (qualified) name
        else:
            return None
        i += 1
    return (base, base_cv, declarators) if base else None


def _tokens(text: str) -> list[str] | None:
    """Words, declarators and whole qualified names (`std::vector<int>::iterator`)."""
    tokens: list[str] = []
    i, end = 0, len(text.rstrip())
    while i < end:
        found = _TOKEN.match(text, i)
        if found is None:
            return None  # `(`, `[`, `...`: a form not read here
        token, i = found.group(1), found.end()
        if token == "<":
            close = _matching_angle(text, found.start(1))
            if close < 0 or not tokens:
                return None
            tokens[-1] += text[found.start(1) : close + 1]
            i = close + 1
        elif token == "::" or (tokens and tokens[-1].endswith("::")):
            if token != "::" and not token[0].isalpha() and token[0] != "_":
                return None
            tokens[-1:] = [(tokens[-1] if tokens else "") + token]
        else:
            tokens.append(token)
    return tokens


def _matching_angle(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "<":
            depth += 1
        elif text[i] == ">":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _builtin(words: list[str]) -> str:
    """gdb's (the demangler's) name of a built-in integer or floating type."""
    unsigned = "unsigned" in words
    if "char" in words:
        return "unsigned char" if unsigned else "signed char" if "signed" in words else "char"
    if "double" in words:
        return "long double" if "long" in words else "double"
    prefix = "unsigned " if unsigned else ""
    if "short" in words:
        return prefix + "short"
    longs = words.count("long")
    if longs:
        return prefix + ("long long" if longs > 1 else "long")
    return prefix + "int"
