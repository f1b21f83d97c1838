"""Where a program's source files are on this machine when it was built elsewhere.

One `SourcePaths` per debugging session, shared by every front end: gdb's source path
(`directory`, `-environment-directory`) and substitution rules (`set substitute-path`),
which DAP's `sourceMap`/`sourceFileMap` and the agent's `source_map` fill too. Positions
keep the path the debug info names; front ends show `locate(path).fullname` and read the
file there, and the engine matches a breakpoint's file against the fullnames as well
(gdb's iterate_over_some_symtabs compares both names).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

DEFAULT_DIRECTORIES = ("$cdir", "$cwd")


@dataclass(frozen=True, slots=True)
class SubstituteRule:
    """`set substitute-path FROM TO`: FROM is a path prefix ending at a directory boundary."""

    source: str
    target: str

    def matches(self, path: str) -> bool:
        if not path.startswith(self.source):
            return False
        rest = path[len(self.source) :]
        return not rest or rest.startswith("/") or self.source.endswith("/")

    def apply(self, path: str) -> str:
        return self.target + path[len(self.source) :]


@dataclass(frozen=True, slots=True)
class LocatedSource:
    """A source file of the debug info and where it is here (gdb's symtab_to_fullname):
    the file found, else the path gdb says it looked at (the rewritten one, if a rule
    applies)."""

    path: str  # as the debug info names it
    fullname: str
    found: bool
    rewritten: bool  # a substitution rule applied to `path`


class SourcePaths:
    def __init__(self) -> None:
        self.rules: list[SubstituteRule] = []
        self.directories: list[str] = list(DEFAULT_DIRECTORIES)
        self._located: dict[str, LocatedSource] = {}

    # --- substitution rules (gdb's source.c) -----------------------------------------
    def add_rule(self, source: str, target: str) -> None:
        """A rule for FROM replaces any earlier one and goes last (rules apply in order)."""
        if len(source) > 1 and source.endswith("/"):
            source = source[:-1]  # as gdb: `/build/` and `/build` are the same rule
        self.rules = [rule for rule in self.rules if rule.source != source]
        self.rules.append(SubstituteRule(source, target))
        self._located.clear()

    def remove_rules(self, source: str | None) -> int:
        """Delete the rules for FROM (all without one); how many went."""
        kept = [rule for rule in self.rules if source is not None and rule.source != source]
        removed = len(self.rules) - len(kept)
        self.rules = kept
        self._located.clear()
        return removed

    def rules_matching(self, path: str | None) -> list[SubstituteRule]:
        return [rule for rule in self.rules if path is None or rule.matches(path)]

    def rewrite(self, path: str) -> str | None:
        """`path` through the first rule that matches it; None: no rule does."""
        for rule in self.rules:
            if rule.matches(path):
                return rule.apply(path)
        return None

    # --- source directories (gdb's `directory`) ---------------------------------------
    def add_directories(self, names: Iterable[str], cwd: str | None = None) -> list[str]:
        """Put directories first in the search path, in the order given (one already there
        moves); returns those that do not exist, which gdb warns about but keeps."""
        missing: list[str] = []
        here = cwd or os.getcwd()
        added: list[str] = []
        for name in names:
            if name not in DEFAULT_DIRECTORIES:
                name = os.path.normpath(os.path.join(here, os.path.expanduser(name)))
                if not os.path.isdir(name):
                    missing.append(name)
            if name not in added:
                added.append(name)
        self.directories = added + [d for d in self.directories if d not in added]
        self._located.clear()
        return missing

    def reset_directories(self) -> None:
        self.directories = list(DEFAULT_DIRECTORIES)
        self._located.clear()

    def directories_text(self) -> str:
        return ":".join(self.directories)

    def script_search_path(self) -> list[str]:
        """Where a script an image's .debug_gdb_scripts names is looked for, as gdb's
        `source` looks: the working directory first, then the source directories."""
        here = os.getcwd()
        return [here, *(d for d in self.directories if not d.startswith("$"))]

    # --- locating files ---------------------------------------------------------------
    def locate(self, path: str) -> LocatedSource:
        """gdb's find_and_open_source: the (rewritten) path itself, a relative one under
        each source directory (a unit without a compilation directory names `sub/p.c`),
        then its base name in each; `$cdir` is the file's own directory, already tried.
        Found nowhere, a relative path stays relative, as gdb's fullname."""
        known = self._located.get(path)
        if known is not None:
            return known
        rewritten = self.rewrite(path)
        first = rewritten if rewritten is not None else path
        candidates = [first]
        names = [os.path.normpath(first)] if not os.path.isabs(first) else []
        for name in [*names, os.path.basename(path)]:
            for directory in self.directories:
                if directory == "$cwd":
                    candidates.append(os.path.join(os.getcwd(), name))
                elif directory != "$cdir":
                    candidates.append(os.path.join(directory, name))
        found = next((c for c in candidates if os.path.isabs(c) and os.path.isfile(c)), None)
        located = LocatedSource(path, found or first, found is not None, rewritten is not None)
        self._located[path] = located
        return located

    def fullname(self, path: str) -> str:
        return self.locate(path).fullname

    def configured(self) -> bool:
        """Rules or directories beyond gdb's defaults: only then can a fullname differ."""
        return bool(self.rules) or tuple(self.directories) != DEFAULT_DIRECTORIES

    def debug_paths_for(self, local: str, known: Iterable[str]) -> list[str]:
        """Those of the debug info's paths (`known`) located at `local`: where `break
        LOCAL:LINE` binds when LOCAL is the mapped file."""
        wanted = os.path.normpath(local)
        base = os.path.basename(wanted)
        return [p for p in known if os.path.basename(p) == base and self.fullname(p) == wanted]
