"""Demangling (C++ through libstdc++'s `__cxa_demangle`, Rust v0 and legacy) and the keys
under which a function is found by the names users type (`method`, `Class::method`,
`ns::func`, `max` for `max<int>`, `crate::module::func`)."""

from __future__ import annotations

import ctypes
import logging
import re

from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

_CLONE = re.compile(r"\.(?:constprop|isra|part|lto_priv|localalias)(?:\.\d+)*")
_CLONE_TEXT = re.compile(r"( \[clone [^\]]*\])+$")
# a word, not an identifier's end: C's `compiler_add_const` keeps its name
_CV_SUFFIX = re.compile(r"\s*(?:(?<![\w$])(?:const|volatile|noexcept)|&&|&)$")
_PUNCT_SPACE = re.compile(r"\s*([,<>()*&:\[\]])\s*")


# libiberty's DMGL_VERBOSE, as gdb demangles minimal (ELF) symbols: the standard
# substitutions written out
_STD_ABBREVIATIONS = {
    "string": "basic_string<char, std::char_traits<char>, std::allocator<char> >",
    "iostream": "basic_iostream<char, std::char_traits<char> >",
    "istream": "basic_istream<char, std::char_traits<char> >",
    "ostream": "basic_ostream<char, std::char_traits<char> >",
}
_STD_ABBREVIATED = re.compile(r"\bstd::(string|iostream|istream|ostream)\b")


def verbose(name: str) -> str:
    """A demangled name with libiberty's DMGL_VERBOSE standard names (`std::string`
    written out as `std::basic_string<char, ...>`)."""
    return _STD_ABBREVIATED.sub(lambda m: "std::" + _STD_ABBREVIATIONS[m.group(1)], name)


def natural_name(symbol: str, demangler: Demangler) -> str:
    """gdb's name of an ELF (minimal) symbol: a mangled one demangled (verbose), a PLT
    stub's or GOT slot's suffix kept (`_Znwm@plt`: `operator new(unsigned long)@plt`)."""
    if not symbol.startswith(("_Z", "_R")):
        return symbol
    base, at, suffix = symbol.partition("@")
    text = demangler.demangle(base)
    return (verbose(text) if text != base else base) + at + suffix


def canonical(text: str) -> str:
    """Spacing normalized: `Foo<int, char *>` and `Foo<int,char*>` compare equal."""
    return _PUNCT_SPACE.sub(r"\1", text.strip())


class Demangler:
    """Demangles C++ and Rust symbols; C++ needs libstdc++ (raw names are kept without it)."""

    def __init__(self) -> None:
        self._cxa: ctypes._NamedFuncPointer | None = None
        self._free: ctypes._NamedFuncPointer | None = None
        self._loaded = False

    def _load(self) -> None:
        from ctypes.util import find_library  # here: it imports subprocess, tempfile...

        self._loaded = True
        try:
            libstdcxx = ctypes.CDLL(find_library("stdc++") or "libstdc++.so.6")
            libc = ctypes.CDLL(find_library("c") or "libc.so.6")
        except OSError as exc:
            log.info("libstdc++ not found, C++ names stay mangled: %s", exc)
            return
        try:
            cxa = libstdcxx["__cxa_demangle"]  # by item: a class would mangle `__` attributes
        except AttributeError:
            log.info("libstdc++ has no __cxa_demangle, C++ names stay mangled")
            return
        cxa.restype = ctypes.c_void_p
        cxa.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p,
                        ctypes.POINTER(ctypes.c_int)]  # fmt: skip
        free = libc.free
        free.argtypes = [ctypes.c_void_p]
        free.restype = None
        self._cxa, self._free = cxa, free

    def demangle(self, name: str) -> str:
        """The demangled form of `name`, or `name` itself when it is not mangled."""
        if name.startswith("_R"):
            from aliceserver.debuggers.symbols.dwarf import rust_demangle  # (Rust's names alone)

            try:
                return rust_demangle.demangle_v0(name)
            except TargetError:
                return name
        if not name.startswith("_Z"):
            return name
        from aliceserver.debuggers.symbols.dwarf import rust_demangle

        if rust_demangle.is_legacy_rust(name):
            try:
                # Whole: it stops at the hash, so `..` in a path stays and `.llvm.N` is dropped.
                return rust_demangle.demangle_legacy(name)
            except TargetError:
                return name
        return self._cxx(name)

    def _cxx(self, name: str) -> str:
        if not self._loaded:
            self._load()
        cxa, free = self._cxa, self._free
        if cxa is None or free is None:
            return name
        status = ctypes.c_int(0)
        result = cxa(name.encode("utf-8", "surrogateescape"), None, None, ctypes.byref(status))
        if not result or status.value != 0:
            return name
        try:
            text = ctypes.string_at(result)
        finally:
            free(result)
        return text.decode("utf-8", "surrogateescape")


def split_top_level(text: str) -> list[str]:
    """`a, b<c, d>, e` -> its comma-separated items outside any brackets, stripped."""
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i].strip())
            start = i + 1
    items.append(text[start:].strip())
    return items


def split_qualified(name: str) -> list[str]:
    """`ns::Foo<a::b>::bar` -> [`ns`, `Foo<a::b>`, `bar`]: `::` outside brackets only."""
    if name.isidentifier() and "operator" not in name:  # a C name (rbreak: 10,000 of them)
        return [name]
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    n = len(name)
    while i < n:
        c = name[i]
        if name.startswith("operator", i) and (i == 0 or not _is_ident(name[i - 1])):
            i = _skip_operator(name, i)
            continue
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth = max(0, depth - 1)
        elif c == ":" and depth == 0 and name.startswith("::", i):
            parts.append(name[start:i])
            i += 2
            start = i
            continue
        i += 1
    parts.append(name[start:])
    return [p for p in parts if p]


def _is_ident(c: str) -> bool:
    return c.isalnum() or c == "_"


def _skip_operator(name: str, i: int) -> int:
    """Past `operator<<`, `operator()`, `operator new[]`... (its symbols unbalanced)."""
    j = i + len("operator")
    if j < len(name) and _is_ident(name[j]):
        return j  # an identifier like `operators`
    while j < len(name) and name[j] == " ":
        j += 1
    if name.startswith("()", j) or name.startswith("[]", j):
        return j + 2
    start = j
    while j < len(name) and name[j] in "+-*/%^&|~!=<>,":
        j += 1
    if j > start:
        return j
    return j


def strip_signature(demangled: str) -> tuple[str, str | None]:
    """(qualified name, parameter list or None): `int ns::max<int>(int, int) const` ->
    (`ns::max<int>`, `(int, int)`). Clone suffixes (` [clone .isra.0]`) are removed."""
    text = _CLONE_TEXT.sub("", demangled.strip())
    while True:
        stripped = _CV_SUFFIX.sub("", text)
        if stripped == text:
            break
        text = stripped
    params: str | None = None
    if text.endswith(")"):
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            c = text[i]
            if c == ")":
                depth += 1
            elif c == "(":
                depth -= 1
                if depth == 0:
                    if i == 0 or text[:i].endswith("operator"):
                        break  # `operator()` itself, or no parameter list
                    params = text[i:]
                    text = text[:i]
                    break
    return _drop_return_type(text), params


def _drop_return_type(text: str) -> str:
    depth = 0
    cut = -1
    i = 0
    while i < len(text):
        c = text[i]
        if text.startswith("operator", i) and (i == 0 or not _is_ident(text[i - 1])):
            i = _skip_operator(text, i)
            continue
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth = max(0, depth - 1)
        elif c == " " and depth == 0:
            cut = i
        i += 1
    return text[cut + 1 :] if cut >= 0 else text


def strip_templates(component: str) -> str:
    """`max<int>` -> `max`, `Foo<a<b>>` -> `Foo`; `operator<` untouched."""
    if component.startswith("operator") or not component.endswith(">"):
        return component
    depth = 0
    for i in range(len(component) - 1, -1, -1):
        c = component[i]
        if c == ">":
            depth += 1
        elif c == "<":
            depth -= 1
            if depth == 0:
                base = component[:i]
                return base[:-2] if base.endswith("::") else base
    return component


def _rust_impl(component: str) -> list[str]:
    """`<a::Foo as b::Trait>` -> [`a::Foo`]; `<a::Foo>` -> [`a::Foo`]."""
    if not (component.startswith("<") and component.endswith(">")):
        return []
    inner = component[1:-1]
    depth = 0
    for i, c in enumerate(inner):
        if c in "<([":
            depth += 1
        elif c in ">)]":
            depth -= 1
        elif depth == 0 and inner.startswith(" as ", i):
            return [inner[:i]]
    return [inner]


_CV_WORDS = ("const", "volatile", "noexcept")  # what _CV_SUFFIX takes off an identifier's end


def _plain_c_name(name: str) -> bool:
    """An identifier no rule of lookup_keys changes (rbreak . asks for 10,000 of them)."""
    return name.isidentifier() and "operator" not in name and not name.endswith(_CV_WORDS)


def lookup_keys(linkage_name: str, demangled: str) -> set[str]:
    """Every name under which `break NAME` should find this function."""
    if linkage_name == demangled and _plain_c_name(linkage_name):  # its only key, as below
        return {linkage_name}
    base = _CLONE.sub("", linkage_name.split("@", 1)[0])
    keys = {linkage_name, base}
    qualified, _params = strip_signature(demangled)
    if qualified != linkage_name:
        keys.add(_CLONE.sub("", qualified))
    variants = [split_qualified(_CLONE.sub("", qualified))]
    stripped = [strip_templates(c) for c in variants[0]]
    if stripped != variants[0]:
        variants.append(stripped)
    for comps in list(variants):
        if comps and _rust_impl(comps[0]):  # `<a::Foo>::method` -> also `a::Foo::method`
            variants.append(split_qualified(_rust_impl(comps[0])[0]) + comps[1:])
            variants.append([strip_templates(c) for c in variants[-1]])
    for comps in variants:
        for i in range(len(comps)):
            keys.add("::".join(comps[i:]))
    keys.discard("")
    return {canonical(k) for k in keys}


def normalize_query(text: str) -> tuple[str, str | None]:
    """A user's function name -> (lookup key, parameter list or None), spaces normalized."""
    text = text.strip()
    if text.isidentifier():  # a C name: as it is (no spaces, no signature)
        return text, None
    if text.startswith("::"):
        text = text[2:]
    name, params = strip_signature(text) if "(" in text else (text, None)
    return canonical(name), params


def same_params(a: str, b: str) -> bool:
    """Parameter lists equal up to spacing (`(int,char*)` == `(int, char *)`); C++'s
    `(void)` is `()`."""
    return _no_void(canonical(a)) == _no_void(canonical(b))


def _no_void(params: str) -> str:
    return "()" if params == "(void)" else params


def display_name(demangled: str) -> str:
    """`int ns::max<int>(int, int)` -> `ns::max<int>(int, int)`, as gdb names functions."""
    text = _CLONE_TEXT.sub("", demangled.strip())
    qualified, params = strip_signature(text)
    if params is None:
        return qualified
    at = text.rfind(qualified, 0, len(text) - len(params) + 1)
    return text[at:] if at > 0 else text
