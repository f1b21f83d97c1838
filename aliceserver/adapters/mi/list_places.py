"""Names `list` takes that stand for more than one place, or for a variable (gdb 13's
list_command with decode_line_1 in list mode, gdb.base/list-ambiguous.exp).

A function defined in several files (two static `amb`) is listed around each definition,
each after gdb's `file: "F", line number: N, symbol: "NAME"`; as the first or last line of
a range it is `Specified first line 'amb' is ambiguous:` (or last) and those lines, and
nothing is listed. A variable's name stands for the line it is declared on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.adapters.gdbcommands.lines import list_mode_line
from aliceserver.debuggers.model_symbols import SymbolDomain, SymbolSearchQuery
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_NAME = re.compile(r"[A-Za-z_][\w:]*")


@dataclass(frozen=True, slots=True)
class Place:
    path: str
    line: int
    symbol: str
    shown: str  # the file as gdb displays it
    variable: bool = False

    def header(self) -> str:
        """gdb's print_sal_location."""
        return f'file: "{self.shown}", line number: {self.line}, symbol: "{self.symbol}"\n'


def places_of(session: MiSession, text: str) -> list[Place]:
    """The places the name TEXT stands for (its functions' `{` lines, else its variables'
    declarations); [] for anything else (a line, FILE:LINE, *ADDRESS, a missing name)."""
    name = text.strip()
    if not _NAME.fullmatch(name) or "::" in name:
        return []
    debugger = session.debugger
    found: list[Place] = []
    for place in debugger.resolve_location(name):
        line = list_mode_line(debugger, place.address)
        if line is not None:
            item = Place(line[0], line[1], place.function or name, debugger.source_name(line[0]))
            if item not in found:
                found.append(item)
    if found:
        return found
    try:
        result = debugger.search_symbols(
            SymbolSearchQuery(SymbolDomain.VARIABLES, name_regex=f"^{name}$")
        )
    except AliceError:
        return []
    return [
        Place(e.fullname, e.line, e.name, e.file, variable=True) for e in result.debug if e.line > 0
    ]
