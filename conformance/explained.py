"""Differences a conformance tool explains: meant to stay (DELIBERATE) or known bugs
(KNOWN_BUGS), each with its reason, matched by regexes on the difference."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar


class Explainable(Protocol):
    """What an entry matches on; each tool's difference offers these."""

    @property
    def kind(self) -> str: ...  # what groups differences (the check, the field...)
    @property
    def gdb(self) -> str: ...
    @property
    def ours(self) -> str: ...
    @property
    def opt(self) -> str: ...  # the build's optimization level, "" where there is none
    @property
    def subject(self) -> str: ...  # the checked variable's kind
    @property
    def path(self) -> str: ...  # the field


@dataclass(frozen=True)
class Explained:
    """A difference meant to stay (or a known bug), as regexes on the difference; with
    `rewrite`, our text rewritten so must equal gdb's (the difference is only that)."""

    reason: str
    kind: str  # on Difference.kind
    gdb: str = ""  # on the gdb text
    ours: str = ""  # on our text
    opt: str = ""  # on the optimization level
    subject: str = ""  # on the checked variable's kind (Check.subject: `struct(flexible)`)
    path: str = ""  # on the field (`variables[a1@entry]`)
    rewrite: Callable[[str], str] | None = None
    gdb_drops: str = ""  # with rewrite: removed from gdb's text before comparing

    def explains(self, difference: Explainable) -> bool:
        if not (re.search(self.kind, difference.kind) and re.search(self.gdb, difference.gdb)
                and re.search(self.ours, difference.ours) and re.search(self.opt, difference.opt)
                and re.search(self.subject, difference.subject)
                and re.search(self.path, difference.path)):
            return False
        if self.rewrite is None:
            return True
        gdb = re.sub(self.gdb_drops, "", difference.gdb) if self.gdb_drops else difference.gdb
        return self.rewrite(difference.ours) == gdb


D = TypeVar("D", bound=Explainable)


def unexplained(differences: Sequence[D], *tables: Sequence[Explained]) -> list[D]:
    return [d for d in differences if not any(e.explains(d) for t in tables for e in t)]


def explained_by(differences: Sequence[D], table: Sequence[Explained]) -> list[D]:
    return [d for d in differences if any(e.explains(d) for e in table)]


def stale(differences: Sequence[Explainable], *tables: Sequence[Explained]) -> list[Explained]:
    """Entries that explain nothing in this run: fixed, or no longer true."""
    return [e for t in tables for e in t if not any(e.explains(d) for d in differences)]


# source_diff.py's known bugs (subject: the scenario's name, path: `stop N`, kind: the aspect).
SOURCE_KNOWN_BUGS: tuple[Explained, ...] = ()
