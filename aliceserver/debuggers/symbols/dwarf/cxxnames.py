"""C++ type names as gdb shows them: g++'s DW_AT_name put through the canonical form gdb's
C++ name parser gives it (cp_canonicalize_string, printed in libiberty's demangler style).

`pair<const int, int>` is shown `pair<int const, int>`, `vector<const char*>` as
`vector<char const*>`, `Box<long unsigned int, 1>` as `Box<unsigned long, 1>`,
`Ptr<(& g)>` as `Ptr<&g>`, `function<int(int)>` stays, `int (*)(long int)` becomes
`int (*)(long)`. A name this parser does not understand (a lambda's `<lambda(int)>`,
`decltype(...)`) is kept as written, as gdb keeps one its parser refuses.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from aliceserver.regexes import compiled_later

_TOKEN = compiled_later(r"\s*(\(anonymous namespace\)|[A-Za-z_$][\w$]*|-?\d[\w.]*|'(?:\\.|[^'\\])+'|::|&&|\.\.\.|\S)")
_INTEGER_WORDS = frozenset(("signed", "unsigned", "short", "long", "int", "char", "__int128", "double"))
_CV = ("const", "volatile")


class _Refused(Exception):
    """The name is outside what the parser knows: keep it as written."""


@functools.lru_cache(maxsize=8192)
def canonical_type_name(name: str) -> str:
    """gdb's canonical spelling of a C++ type's name (the name itself when unchanged)."""
    if name.isidentifier() or "(lambda" in name or "<lambda" in name:
        return name
    try:
        parser = _Parser(name)
        node = parser.type_id()
        if parser.peek() is not None:
            raise _Refused(name)
        return _render(node, "")
    except (_Refused, IndexError, RecursionError):
        return name


def canonical_function_name(name: str) -> str | None:
    """gdb's cp_canonicalize_string of a function's computed name (`main(void)` ->
    `main()`, `f(const char *)` -> `f(char const*)`), or None where gdb's parser refuses
    it (a lambda's `<lambda(int)>`): then gdb keeps the name as it wrote it."""
    split = split_parameters(name)
    if split is None or "<lambda" in name or "{lambda" in name or has_function_type_argument(split[0]):
        return None
    head, params, after = split
    try:
        parts = [_component(part) for part in _head_parts(head)]
        parser = _Parser(f"void({params}){after}")
        parser.take("void")
        fn = parser.function(_Named(text="void"))
        if parser.peek() is not None or not isinstance(fn, _Function):
            return None
    except (_Refused, IndexError, RecursionError):
        return None
    return "::".join(parts) + _render(fn, "")[len("void"):]


def has_function_type_argument(name: str) -> bool:
    """Whether a template argument in `name` is a function type (`function<int (int)>`,
    not `P<int (*)(int)>`), which gdb's name parser refuses: a name holding one stays as
    written, its parameters too (a frame's `std::function<int (int)>::operator()(int) const`).
    A value argument cast to its enum (`__shared_ptr_access<T, (__gnu_cxx::_Lock_policy)2,
    false, false>`) is none."""
    opened: list[str] = []
    previous = ""
    for i, c in enumerate(name):
        # `R (int)` after a type; not `(Enum)2`, a value argument, or `operator<(`
        if c == "(" and opened and opened[-1] == "<" and previous not in (")", "<", ","):
            after = name[i + 1 :].lstrip()
            if not after.startswith(("*", "&", "anonymous namespace)")):
                return True
        if c in "<({[":
            opened.append(c)
        elif c in ">)}]" and opened:
            opened.pop()
        if not c.isspace():
            previous = c
    return False


def split_parameters(name: str) -> tuple[str, str, str] | None:
    """`ns::f(int, char) const` -> (`ns::f`, `int, char`, ` const`): the last balanced
    parenthesis group at the end, before trailing qualifiers."""
    stripped = name.rstrip()
    for word in (" const", " volatile", " &&", " &"):
        while stripped.endswith(word):
            stripped = stripped[: -len(word)].rstrip()
    after_at = len(stripped)
    if not stripped.endswith(")"):
        return None
    depth = 0
    for i in range(len(stripped) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(stripped[i], 0)
        if depth == 0:
            return stripped[:i], stripped[i + 1 : -1], name[after_at:]
    return None


def _head_parts(head: str) -> list[str]:
    """The `::` components of a function's name (an operator's own `::`-free spelling)."""
    parts: list[str] = []
    depth, start, i = 0, 0, 0
    while i < len(head):
        if head.startswith("operator", i) and (i == 0 or not head[i - 1].isalnum() and head[i - 1] != "_"):
            parts.append(head[start:])
            return parts
        c = head[i]
        depth += 1 if c in "<(" else -1 if c in ">)" else 0
        if depth == 0 and head.startswith("::", i):
            parts.append(head[start:i])
            i += 2
            start = i
            continue
        i += 1
    parts.append(head[start:])
    return parts


_OPERATOR_CHARS = frozenset("+-*/%^&|~!=<>,[]")


def _component(part: str) -> str:
    """One component in libiberty's spelling: `Box<int>`, `~K`, `operator()`, a
    conversion `operator int (*)(int)`."""
    text = part.strip()
    if text == "(anonymous namespace)" or text.isidentifier():
        return text
    if text.startswith("~") and text[1:].isidentifier():
        return text
    if text.startswith("operator"):
        rest = text[len("operator"):].strip()
        if rest in ("()", "[]") or (rest and set(rest) <= _OPERATOR_CHARS):
            return "operator" + rest
        if rest in ("new", "delete", "new[]", "delete[]", "new []", "delete []"):
            return "operator " + rest.replace(" ", "")
        if rest and not rest[0].isalpha():
            raise _Refused(text)
        parser = _Parser(rest)
        node = parser.type_id()
        if parser.peek() is not None:
            raise _Refused(text)
        return "operator " + _render(node, "")
    parser = _Parser(text)
    word = parser.take()
    if not _starts_name(word) or parser.peek() != "<":
        raise _Refused(text)
    word += parser.template_args()
    if parser.peek() is not None:
        raise _Refused(text)
    return word


# --- the tree --------------------------------------------------------------------------
@dataclass
class _Node:
    cv: list[str] = field(default_factory=list)  # const, volatile on this node


@dataclass
class _Named(_Node):
    text: str = ""  # `std::pair<int const, int>`, `unsigned long`: already rendered


@dataclass
class _Pointer(_Node):
    target: _Node = field(default_factory=_Node)
    mark: str = "*"  # * & &&
    scope: str = ""  # a pointer to member: `geo::Plain::`


@dataclass
class _Array(_Node):
    element: _Node = field(default_factory=_Node)
    dim: str = ""


@dataclass
class _Function(_Node):
    result: _Node = field(default_factory=_Node)
    params: list[_Node] = field(default_factory=list)
    varargs: bool = False
    suffix: list[str] = field(default_factory=list)  # const, volatile, &, && after `)`


# --- parsing ---------------------------------------------------------------------------
class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.pos = 0

    def peek(self, ahead: int = 0) -> str | None:
        i = self.pos + ahead
        return self.tokens[i] if i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if token is None or (expected is not None and token != expected):
            raise _Refused(f"expected {expected!r}, got {token!r}")
        self.pos += 1
        return token

    def type_id(self) -> _Node:
        """A type: specifiers, then an abstract declarator."""
        base = self.specifiers()
        return self.declarator(base)

    def specifiers(self) -> _Node:
        cv: list[str] = []
        words: list[str] = []
        name: str | None = None
        while True:
            token = self.peek()
            if token in _CV:
                cv.append(self.take())
            elif token in _INTEGER_WORDS and name is None:
                words.append(self.take())
            elif token is not None and name is None and not words and _starts_name(token):
                name = self.qualified_name()
            else:
                break
        if words:
            if name is not None:
                raise _Refused("a name and integer words")
            name = _integer_name(words)
        if name is None:
            raise _Refused("no type")
        return _Named(sorted(set(cv), key=_CV.index), name)

    def qualified_name(self) -> str:
        parts = []
        if self.peek() == "::":
            self.take()
            parts.append("")
        while True:
            token = self.take()
            if not _starts_name(token) or token in ("operator", "decltype", "typename"):
                raise _Refused(token)
            if self.peek() == "<":
                token += self.template_args()
            parts.append(token)
            if self.peek() == "::" and self.peek(1) not in (None, "*"):
                self.take()
                continue
            return "::".join(parts)

    def template_args(self) -> str:
        self.take("<")
        args: list[str] = []
        while self.peek() != ">":
            args.append(self.template_arg())
            if self.peek() == ",":
                self.take()
            elif self.peek() != ">":
                raise _Refused("template argument")
        self.take(">")
        inner = ", ".join(args)
        return f"<{inner} >" if inner.endswith(">") else f"<{inner}>"

    def template_arg(self) -> str:
        token = self.peek()
        assert token is not None
        if token[0].isdigit() or token[0] == "-":
            return self.take()
        if token[0] == "'":
            return f"(char){self.take()}"
        if token in ("true", "false", "nullptr"):
            return self.take()
        if token == "&":
            self.take()
            return "&" + self.qualified_name()
        if token == "(":
            return self.parenthesised_arg()
        return _render(self.type_id(), "")

    def parenthesised_arg(self) -> str:
        """`(& g)` (an address) or `(geo::Kind)1` (a cast constant)."""
        self.take("(")
        if self.peek() == "&":
            self.take()
            name = self.qualified_name()
            self.take(")")
            return "&" + name
        cast = _render(self.type_id(), "")
        self.take(")")
        value = self.take()
        if not (value[0].isdigit() or value[0] == "-"):
            raise _Refused(value)
        return f"({cast}){value}"

    def declarator(self, base: _Node) -> _Node:
        """Pointers, references, member pointers, then a parenthesised inner declarator
        or an array/function suffix: built as the tree of the type read inside out."""
        node = base
        while True:
            token = self.peek()
            if token in ("*", "&", "&&"):
                node = _Pointer(target=node, mark=self.take())
            elif token in _CV and isinstance(node, _Pointer):
                node.cv.append(self.take())
            elif token is not None and _starts_name(token) and self._member_pointer_ahead():
                scope = self.member_scope()
                node = _Pointer(target=node, scope=scope)
            else:
                break
        if self.peek() == "(" and self._inner_declarator_ahead():
            self.take("(")
            hole = _Named(text="\0")
            inner = self.declarator(hole)
            self.take(")")
            outer = self.suffixes(node)
            return _fill(inner, hole, outer)
        return self.suffixes(node)

    def _member_pointer_ahead(self) -> bool:
        depth = 0
        i = self.pos
        while i < len(self.tokens):
            token = self.tokens[i]
            if token == "<":
                depth += 1
            elif token == ">":
                depth -= 1
            elif depth == 0 and token == "::" and i + 1 < len(self.tokens) and self.tokens[i + 1] == "*":
                return True
            elif depth == 0 and not (_starts_name(token) or token == "::"):
                return False
            i += 1
        return False

    def member_scope(self) -> str:
        parts = []
        while True:
            token = self.take()
            if self.peek() == "<":
                token += self.template_args()
            parts.append(token)
            self.take("::")
            if self.peek() == "*":
                self.take()
                return "::".join(parts) + "::"

    def _inner_declarator_ahead(self) -> bool:
        nxt = self.peek(1)
        if nxt in ("*", "&", "&&"):
            return True
        return nxt is not None and _starts_name(nxt) and self._member_pointer_at(self.pos + 1)

    def _member_pointer_at(self, pos: int) -> bool:
        saved, self.pos = self.pos, pos
        try:
            return self._member_pointer_ahead()
        finally:
            self.pos = saved

    def suffixes(self, node: _Node) -> _Node:
        dims: list[str] = []
        while self.peek() == "[":
            self.take()
            dims.append(self.take() if self.peek() != "]" else "")
            self.take("]")
        for dim in reversed(dims):
            node = _Array(element=node, dim=dim)
        if self.peek() == "(":
            node = self.function(node)
        return node

    def function(self, result: _Node) -> _Node:
        self.take("(")
        fn = _Function(result=result)
        while self.peek() != ")":
            if self.peek() == "...":
                self.take()
                fn.varargs = True
            else:
                fn.params.append(self.type_id())
            if self.peek() == ",":
                self.take()
            elif self.peek() != ")":
                raise _Refused("parameter")
        self.take(")")
        if len(fn.params) == 1 and isinstance(fn.params[0], _Named) and fn.params[0].text == "void" \
                and not fn.params[0].cv:  # fmt: skip
            fn.params = []
        while self.peek() in ("const", "volatile", "&", "&&") and not self._declarator_follows():
            fn.suffix.append(self.take())
        return fn

    def _declarator_follows(self) -> bool:
        return self.peek() in ("&", "&&") and self.peek(1) not in (None, ",", ">", ")")


def _fill(inner: _Node, hole: _Node, outer: _Node) -> _Node:
    """`inner` with its innermost `hole` replaced by `outer`: `(*)(int)` around `int`."""
    if inner is hole:
        return outer
    if isinstance(inner, _Pointer):
        inner.target = _fill(inner.target, hole, outer)
    elif isinstance(inner, _Array):
        inner.element = _fill(inner.element, hole, outer)
    elif isinstance(inner, _Function):
        inner.result = _fill(inner.result, hole, outer)
    return inner


# --- printing, in libiberty's style ------------------------------------------------------
def _render(node: _Node, suffix: str) -> str:
    if isinstance(node, _Named):
        text = " ".join([node.text, *node.cv])
        if not suffix:
            return text
        return text + suffix if suffix[0] in "*&" else f"{text} {suffix}"
    if isinstance(node, _Pointer):
        quals = "".join(f" {q}" for q in node.cv)
        inner = f"{node.scope}{node.mark}{quals}{suffix}"
        if isinstance(node.target, (_Function, _Array)):
            inner = f"({inner})"
        return _render(node.target, inner)
    if isinstance(node, _Array):
        return _render(node.element, f"{suffix} [{node.dim}]" if suffix else f"[{node.dim}]")
    if isinstance(node, _Function):
        params = ", ".join(_render(p, "") for p in node.params)
        if node.varargs:
            params = f"{params}, ..." if params else "..."
        after = "".join(f" {q}" for q in node.suffix)
        return _render(node.result, f"{suffix}({params}){after}") if suffix else \
            _render(node.result, "") + f"({params}){after}"  # fmt: skip
    raise _Refused("node")


# --- tokens and words ------------------------------------------------------------------
def _tokens(text: str) -> list[str]:
    tokens: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        found = _TOKEN().match(text, pos)
        if found is None:
            raise _Refused(text[pos:])
        tokens.append(found.group(1))
        pos = found.end()
    return tokens


def _starts_name(token: str) -> bool:
    return token[0].isalpha() or token[0] in "_$" or token == "(anonymous namespace)"


def _integer_name(words: list[str]) -> str:
    """gdb's spelling of a run of builtin type words: `long unsigned int` is
    `unsigned long`, `short int` `short`, `unsigned` `unsigned int`."""
    if "double" in words:
        return "long double" if "long" in words else "double"
    unsigned = "unsigned" in words
    if "char" in words:
        return "unsigned char" if unsigned else "signed char" if "signed" in words else "char"
    if "__int128" in words:
        return "unsigned __int128" if unsigned else "__int128"
    size = "short" if "short" in words else " ".join(["long"] * words.count("long")) or "int"
    if unsigned:
        return f"unsigned {size}"
    return size
