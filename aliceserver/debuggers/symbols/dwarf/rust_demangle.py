"""Rust symbol demangling: v0 (`_R...`, RFC 2603) and legacy (`_ZN...17h<hash>E`).

Output follows `rustfilt`'s short form: crate disambiguators and hashes are dropped,
`<T as Trait>::method`, `path::<T>` for generic arguments in value paths.
"""

from __future__ import annotations

import re

from aliceserver.errors import TargetError
from aliceserver.regexes import compiled_later

_BASIC = {
    "a": "i8", "b": "bool", "c": "char", "d": "f64", "e": "str", "f": "f32", "h": "u8",
    "i": "isize", "j": "usize", "l": "i32", "m": "u32", "n": "i128", "o": "u128", "s": "i16",
    "t": "u16", "u": "()", "v": "...", "x": "i64", "y": "u64", "z": "!", "p": "_",
}  # fmt: skip
_MAX_DEPTH = 200
_BASE62 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_LEGACY_HASH = compiled_later(r"17h[0-9a-f]{16}E(?:\.[^$]*)?$")
_LEGACY_ESCAPES = {
    "$SP$": "@", "$BP$": "*", "$RF$": "&", "$LT$": "<", "$GT$": ">", "$LP$": "(",
    "$RP$": ")", "$C$": ",",
}  # fmt: skip


class _Error(Exception):
    pass


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.pos = 0
        self.depth = 0

    # --- lexing -----------------------------------------------------------------------
    def peek(self) -> str:
        return self.s[self.pos] if self.pos < len(self.s) else ""

    def next(self) -> str:
        if self.pos >= len(self.s):
            raise _Error("unexpected end")
        c = self.s[self.pos]
        self.pos += 1
        return c

    def eat(self, c: str) -> bool:
        if self.peek() == c:
            self.pos += 1
            return True
        return False

    def base62(self) -> int:
        if self.eat("_"):
            return 0
        value = 0
        while True:
            c = self.next()
            if c == "_":
                return value + 1
            digit = _BASE62.find(c)
            if digit < 0:
                raise _Error(f"bad base-62 digit {c!r}")
            value = value * 62 + digit

    def opt_base62(self, tag: str) -> int:
        return self.base62() + 1 if self.eat(tag) else 0

    def decimal(self) -> int:
        start = self.pos
        while self.peek().isdigit():
            self.pos += 1
        if start == self.pos:
            raise _Error("expected a number")
        return int(self.s[start : self.pos])

    def ident(self) -> tuple[str, int]:
        disambiguator = self.opt_base62("s")
        return self.undisambiguated(), disambiguator

    def undisambiguated(self) -> str:
        punycode = self.eat("u")
        length = self.decimal()
        self.eat("_")
        if self.pos + length > len(self.s):
            raise _Error("identifier past the end")
        text = self.s[self.pos : self.pos + length]
        self.pos += length
        if punycode:
            basic, _, encoded = text.rpartition("_")
            try:
                text = (basic + "-" + encoded).encode("ascii").decode("punycode")
            except (UnicodeError, ValueError) as exc:
                raise _Error("bad punycode") from exc
        return text

    def backref(self) -> _Parser:
        start = self.pos - 1
        target = self.base62() + 2  # offsets count from after "_R"
        if target >= start:
            raise _Error("forward back reference")
        sub = _Parser(self.s)
        sub.pos = target
        sub.depth = self.depth
        return sub

    def enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Error("too deeply nested")

    # --- grammar ----------------------------------------------------------------------
    def path(self, in_value: bool) -> str:
        self.enter()
        try:
            return self._path(in_value)
        finally:
            self.depth -= 1

    def _path(self, in_value: bool) -> str:
        tag = self.next()
        if tag == "C":
            return self.ident()[0]
        if tag == "M":  # inherent impl: <T>
            self.opt_base62("s")
            self.path(False)  # the impl's own path: not shown
            return "<" + self.type() + ">"
        if tag == "X":  # trait impl: <T as Trait>
            self.opt_base62("s")
            self.path(False)
            self_type = self.type()
            return f"<{self_type} as {self.path(False)}>"
        if tag == "Y":  # <T as Trait> in a trait definition
            self_type = self.type()
            return f"<{self_type} as {self.path(False)}>"
        if tag == "N":
            namespace = self.next()
            parent = self.path(in_value)
            name, disambiguator = self.ident()
            if namespace.isupper():
                kind = {"C": "closure", "S": "shim"}.get(namespace, namespace)
                label = f"{kind}:{name}" if name else kind
                return f"{parent}::{{{label}#{disambiguator}}}"
            return f"{parent}::{name}" if name else parent
        if tag == "I":
            base = self.path(in_value)
            args = []
            while not self.eat("E"):
                args.append(self.generic_arg())
            args = [a for a in args if a]
            if not args:
                return base
            return f"{base}{'::' if in_value else ''}<{', '.join(args)}>"
        if tag == "B":
            return self.backref().path(in_value)
        raise _Error(f"bad path tag {tag!r}")

    def generic_arg(self) -> str:
        if self.eat("L"):
            self.base62()
            return ""  # lifetimes are not shown
        if self.eat("K"):
            return self.const()
        return self.type()

    def type(self) -> str:
        self.enter()
        try:
            return self._type()
        finally:
            self.depth -= 1

    def _type(self) -> str:  # noqa: C901 - one branch per grammar rule
        tag = self.next()
        basic = _BASIC.get(tag)
        if basic is not None:
            return basic
        if tag == "A":
            element = self.type()
            return f"[{element}; {self.const()}]"
        if tag == "S":
            return f"[{self.type()}]"
        if tag in "RQ":
            if self.eat("L"):
                self.base62()
            return ("&" if tag == "R" else "&mut ") + self.type()
        if tag in "PO":
            return ("*const " if tag == "P" else "*mut ") + self.type()
        if tag == "F":
            self.opt_base62("G")
            prefix = "unsafe " if self.eat("U") else ""
            if self.eat("K"):
                abi = "C" if self.eat("C") else self.undisambiguated().replace("_", "-")
                prefix += f'extern "{abi}" '
            params = []
            while not self.eat("E"):
                params.append(self.type())
            ret = self.type()
            return f"{prefix}fn({', '.join(params)})" + ("" if ret == "()" else f" -> {ret}")
        if tag == "D":
            self.opt_base62("G")
            traits = []
            while not self.eat("E"):
                trait = self.path(False)
                while self.eat("p"):
                    name = self.undisambiguated()
                    trait += f"<{name} = {self.type()}>"
                traits.append(trait)
            if self.eat("L"):
                self.base62()
            return "dyn " + " + ".join(traits)
        if tag == "T":
            items = []
            while not self.eat("E"):
                items.append(self.type())
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        if tag == "B":
            return self.backref().type()
        self.pos -= 1
        return self.path(False)

    def const(self) -> str:
        if self.eat("p"):
            return "_"
        if self.eat("B"):
            sub = self.backref()
            return sub.const()
        ty = self.next()
        negative = self.eat("n")
        start = self.pos
        while self.peek() != "_":
            self.next()
        digits = self.s[start : self.pos]
        self.pos += 1
        value = int(digits, 16) if digits else 0
        if ty == "b":
            return "true" if value else "false"
        if ty == "c":
            return repr(chr(value)) if value < 0x110000 else str(value)
        return str(-value if negative else value)


def demangle_v0(symbol: str) -> str:
    """The demangled form of a v0 symbol (`_R...`); TargetError when it is not one."""
    if not symbol.startswith("_R"):
        raise TargetError(f"{symbol!r} is not a Rust v0 symbol")
    text = symbol.split(".", 1)[0]  # `.llvm.123` style suffixes
    parser = _Parser(text)
    parser.pos = 2
    try:
        if parser.peek().isdigit():
            parser.decimal()  # encoding version
        result = parser.path(True)
    except (_Error, IndexError, ValueError, RecursionError) as exc:
        raise TargetError(f"cannot demangle {symbol!r}: {exc}") from exc
    return result


def is_legacy_rust(symbol: str) -> bool:
    return symbol.startswith("_ZN") and _LEGACY_HASH().search(symbol) is not None


def demangle_legacy(symbol: str) -> str:
    """A legacy Rust `_ZN...E` symbol demangled, its hash dropped; TargetError if malformed."""
    if not symbol.startswith("_ZN"):
        raise TargetError(f"{symbol!r} is not a legacy Rust symbol")
    pos = 3
    parts = []
    try:
        while symbol[pos] != "E":
            start = pos
            while symbol[pos].isdigit():
                pos += 1
            length = int(symbol[start:pos])
            parts.append(symbol[pos : pos + length])
            pos += length
    except (IndexError, ValueError) as exc:
        raise TargetError(f"cannot demangle {symbol!r}") from exc
    if parts and re.fullmatch(r"h[0-9a-f]{16}", parts[-1]):
        parts.pop()
    return "::".join(_unescape(p) for p in parts)


def _unescape(part: str) -> str:
    if part.startswith("_$"):
        part = part[1:]
    out = part.replace("..", "::")
    for escape, text in _LEGACY_ESCAPES.items():
        out = out.replace(escape, text)
    return re.sub(r"\$u([0-9a-f]{2,6})\$", lambda m: chr(int(m.group(1), 16)), out)
