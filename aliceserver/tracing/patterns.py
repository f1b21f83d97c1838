"""Which functions a trace pattern names.

- `NAME-GLOB`: over qualified names without parameters; `*` stays within one name segment,
  `**` crosses `::`, `?` is one character (`parse_*`, `ns::**`, `**::push*`).
- `@file:GLOB`: functions whose source file matches: a GLOB without `/` is matched against
  the file's base name, else against the path or any trailing part of it (`*` stays within
  a directory, `**` crosses them).
- `@usercode`: functions whose source file is under the project root.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from aliceserver.debuggers.model import FunctionSymbol
from aliceserver.errors import ProtocolError

USERCODE = "@usercode"
_FILE = "@file:"


def glob_regex(glob: str, separator: str) -> re.Pattern[str]:
    """`**` matches anything, `*` anything but `separator`, `?` one character but it."""
    parts = []
    at = 0
    stop = re.escape(separator[0])
    while at < len(glob):
        if glob.startswith("**", at):
            parts.append(".*")
            at += 2
        elif glob[at] == "*":
            parts.append(f"[^{stop}]*")
            at += 1
        elif glob[at] == "?":
            parts.append(f"[^{stop}]")
            at += 1
        else:
            parts.append(re.escape(glob[at]))
            at += 1
    return re.compile("".join(parts) + r"\Z", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Pattern:
    text: str
    kind: str  # "name", "file" or "usercode"
    regex: re.Pattern[str] | None = None

    def matches(self, function: FunctionSymbol, project_root: str) -> bool:
        if self.kind == "name":
            assert self.regex is not None
            return self.regex.match(function.name) is not None
        path = function.source.path if function.source is not None else None
        if path is None:
            return False
        if self.kind == "usercode":
            return _under(path, project_root)
        assert self.regex is not None
        if "/" not in self.text[len(_FILE) :]:
            return self.regex.match(os.path.basename(path)) is not None
        return any(self.regex.match(tail) is not None for tail in _tails(path))


def parse_pattern(text: str) -> Pattern:
    pattern = text.strip()
    if not pattern:
        raise ProtocolError("empty trace pattern")
    if pattern == USERCODE:
        return Pattern(pattern, "usercode")
    if pattern.startswith(_FILE):
        glob = pattern[len(_FILE) :].strip()
        if not glob:
            raise ProtocolError(f"no file glob in {text!r}: use @file:GLOB, e.g. @file:parser.c")
        return Pattern(pattern, "file", glob_regex(glob, "/"))
    if pattern.startswith("@"):
        raise ProtocolError(f"unknown trace pattern {text!r}: use NAME-GLOB, @file:GLOB or @usercode")
    return Pattern(pattern, "name", glob_regex(pattern, ":"))


def matching(patterns: list[Pattern], functions: list[FunctionSymbol], project_root: str) -> list[FunctionSymbol]:
    """The functions any of `patterns` names, once each, in the order given."""
    root = os.path.realpath(project_root)
    found: dict[int, FunctionSymbol] = {}
    for function in functions:
        if function.address not in found and any(p.matches(function, root) for p in patterns):
            found[function.address] = function
    return list(found.values())


def name_filter(patterns: list[Pattern]) -> Callable[[str], bool] | None:
    """A test of names alone that accepts every function `patterns` name, or None where a
    pattern needs the source file (the debugger then makes every function's record)."""
    regexes = [p.regex for p in patterns if p.kind == "name" and p.regex is not None]
    if len(regexes) != len(patterns):
        return None
    return lambda name: any(r.match(name) is not None for r in regexes)


def _tails(path: str) -> list[str]:
    """`/a/b/c.c` -> `/a/b/c.c`, `a/b/c.c`, `b/c.c`, `c.c`."""
    parts = path.split("/")
    return [path] + ["/".join(parts[i:]) for i in range(1, len(parts)) if parts[i]]


@lru_cache(maxsize=4096)
def _under(path: str, root: str) -> bool:
    real = os.path.realpath(path)
    return real == root or real.startswith(root.rstrip("/") + "/")
