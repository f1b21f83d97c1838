"""Command registries (one per session: name -> handler) and what a handler gets and returns."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.output import Value
from aliceserver.errors import ProtocolError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.parser import MiCommand
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.adapters.mi.ui import Ui


class MiError(ProtocolError):
    """An error reply; `code` becomes gdb's `code="..."` field."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class Running:
    """A handler's reply when it set the program running: `^running` follows its start."""


class Exit:
    """A handler's reply when the session ends (`^exit`)."""


@dataclass(frozen=True)
class Connected:
    """A handler's reply when it selected a target (`^connected`, -target-select)."""

    pairs: Sequence[tuple[str, Value]]


RUNNING = Running()
EXIT = Exit()
Pairs = Sequence[tuple[str, Value]]
Reply = Pairs | Running | Exit | Connected | None


@dataclass
class Context:
    """One command being executed: where it came from and how to answer."""

    session: MiSession
    ui: Ui
    token: str = ""
    command: MiCommand | None = None
    cli: bool = False  # a console command (typed, echoed on MI, or -interpreter-exec)
    thread: int | None = None  # --thread N (gdb's number)
    frame: int | None = None  # --frame N
    extra: dict[str, str] = field(default_factory=dict)
    # gdb's from_tty: typed by the user (not read from a command file or given with -batch);
    # the chatter a command adds for a person ("Starting program:", "Continuing.") needs it.
    from_tty: bool = True

    def console(self, text: str, *, line_start: bool = False) -> None:
        self.ui.console(text, line_start=line_start)

    def log(self, text: str, *, aside: bool = False) -> None:
        self.ui.log(text, aside=aside)


MiHandler = Callable[[Context, list[str]], Reply]
CliHandler = Callable[[Context, str], Reply]


class MiRegistry:
    def __init__(self) -> None:
        self._handlers: dict[str, MiHandler] = {}

    def add(self, name: str, handler: MiHandler) -> None:
        self._handlers[name] = handler

    def get(self, name: str) -> MiHandler | None:
        return self._handlers.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self._handlers

    def names(self) -> list[str]:
        return sorted(self._handlers)


class CliRegistry:
    """gdb's command lookup: exact names and aliases first, then a unique prefix."""

    def __init__(self) -> None:
        self._handlers: dict[str, CliHandler] = {}
        self._aliases: dict[str, str] = {}

    def add(self, name: str, handler: CliHandler, *aliases: str) -> None:
        self._handlers[name] = handler
        for alias in aliases:
            self._aliases[alias] = name

    def lookup(self, word: str) -> tuple[str, CliHandler] | None:
        if word in self._handlers:
            return word, self._handlers[word]
        if word in self._aliases:
            name = self._aliases[word]
            return name, self._handlers[name]
        matches = [name for name in self._handlers if name.startswith(word)]
        if len(matches) == 1:
            return matches[0], self._handlers[matches[0]]
        if len(matches) > 1:
            raise MiError(f'Ambiguous command "{word}": {ambiguous_names(sorted(matches))}.')
        return None

    def names(self) -> list[str]:
        return sorted([*self._handlers, *self._aliases])

    def is_alias(self, word: str) -> bool:
        """Whether `word` is a built-in alias (`bt`, `where`)."""
        return word in self._aliases

    def items(self) -> list[tuple[str, CliHandler]]:
        """The commands by name, in the order they were added."""
        return list(self._handlers.items())

    def completable(self, listed_aliases: frozenset[str]) -> list[str]:
        """The names completion offers: the commands and those of their aliases gdb lists."""
        return sorted([*self._handlers, *(alias for alias in self._aliases if alias in listed_aliases)])


def ambiguous_names(names: Iterable[str]) -> str:
    """The commands an abbreviation matches as gdb lists them (lookup_cmd's 100-byte
    buffer): a name that would not fit ends the list with `..`."""
    text = ""
    for name in names:
        if len(text) + len(name) + 6 >= 100:
            return text + ".."
        text += (", " if text else "") + name
    return text
