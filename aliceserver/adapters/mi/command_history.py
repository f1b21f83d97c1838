"""gdb's command history: the lines typed at an interactive console (`show commands`),
read from `history filename` when the session starts and, with `history save on`,
written back to it when the session ends (gdb's top.c over readline's history).

Only a console on a terminal keeps a history, as in gdb (input_interactive_p): not
-batch, MI, a script or a pipe. The history is read after the command line's -ex and -x
commands (gdb's init_history), GDBHISTSIZE setting its size then. Its numbers go on from
the first line kept (readline's history_base): a `history size` limit drops the oldest.
At the end gdb appends this session's lines to the file (in a copy renamed aside, so two
gdbs ending together do not mix their lines) and cuts it to the size; a file not there
yet gets the whole history.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

from aliceserver.adapters.mi.history_expand import ExpansionError, ExpansionState, history_expand
from aliceserver.adapters.mi.registry import MiError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.registry import Context
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.adapters.mi.settings import Settings

_SHOWN = 10  # gdb's Hist_print: the lines one `show commands` prints


class CommandHistory:
    def __init__(self) -> None:
        self.interactive = False  # set when the session starts on a terminal (start)
        self._lines: list[str] = []
        self._base = 1  # the number of the first line kept
        self._added = 0  # lines typed in this session (gdb's command_count)
        self._next_shown = 0  # where `show commands +` goes on (an index into _lines)
        self._limit: int | None = None  # the size the history was last cut to (None: unlimited)
        self._expansion = ExpansionState()  # readline's last search and substitution

    def start(self, session: MiSession) -> None:
        """gdb's init_history, for a console on a terminal: GDBHISTSIZE, then the file."""
        self.interactive = True
        settings = session.settings
        size = _environment_size(os.environ.get("GDBHISTSIZE"))
        if size is not None:
            settings.set("history size", size)
        path = settings.get("history filename")
        try:
            with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as file:
                text = file.read()
        except OSError:
            return  # readline's read_history: no file, no history
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        for line in lines:
            self._append(line, settings)
        self._added = 0

    def typed(self, line: str, settings: Settings, console: Callable[[str], None]) -> str:
        """A line typed at the console: history-expanded under `set history expansion on`
        (the expansion printed, as gdb's handle_line_of_input; an expansion's error printed
        and the line run as typed, kept out of the history), then added. The line to run."""
        if self.interactive and settings.get("history expansion") == "on":
            self._trim(settings)
            try:
                expanded, text = history_expand(line, self._lines, self._base, self._expansion)
            except ExpansionError as error:
                console(f"{error}\n")
                return line
            if expanded:
                console(text + "\n")
                line = text
        self.add(line, settings)
        return line

    def add(self, line: str, settings: Settings) -> None:
        """A line typed at the console (gdb's gdb_add_history): none when it is empty or
        starts with `server `."""
        if not self.interactive or not line.strip() or line.startswith("server "):
            return
        self._added += 1
        self._remove_duplicate(line, settings.get("history remove-duplicates"))
        self._append(line, settings)

    def _remove_duplicate(self, line: str, lookback: str) -> None:
        """gdb's gdb_add_history under `history remove-duplicates N`: the same line among
        the last N (unlimited: all), but never one from before this session, goes."""
        if lookback == "0":
            return
        limit = self._added if lookback == "unlimited" else min(int(lookback), self._added)
        for back in range(1, min(limit, len(self._lines)) + 1):
            if self._lines[-back] == line:
                del self._lines[-back]
                self._added -= 1
                return

    def _append(self, line: str, settings: Settings) -> None:
        """readline's add_history: a full stifled history drops its oldest line first."""
        self._trim(settings)
        if self._limit is not None and len(self._lines) >= self._limit:
            if not self._lines:
                return  # a size of 0 keeps nothing
            del self._lines[0]
            self._base += 1
            self._next_shown = max(0, self._next_shown - 1)
        self._lines.append(line)

    def _trim(self, settings: Settings) -> None:
        """readline's stifle_history when `history size` changed since: the oldest lines
        past it go, and (readline's own arithmetic) the first kept is numbered by how many
        went, not after the last one gone."""
        size = settings.get("history size")
        limit = None if size == "unlimited" else int(size)
        if limit == self._limit:
            return
        self._limit = limit
        over = len(self._lines) - limit if limit is not None else 0
        if over > 0:
            del self._lines[:over]
            self._base = over
            self._next_shown = max(0, self._next_shown - over)

    def show(self, ctx: Context, text: str) -> None:
        """gdb's `show commands [N | +]`: ten lines, the last ones, those around N, or
        the ten after the last shown."""
        self._trim(ctx.session.settings)
        text = text.strip()
        if text and text != "+":
            start = _number(ctx, text) - self._base - _SHOWN // 2
        elif text == "+":
            start = self._next_shown
        else:
            start = len(self._lines) - _SHOWN
        start = max(0, min(start, len(self._lines) - _SHOWN))
        for offset in range(start, min(start + _SHOWN, len(self._lines))):
            ctx.console(f"{self._base + offset:5d}  {self._lines[offset]}\n")
        self._next_shown = start + _SHOWN

    def save(self, settings: Settings, warn: Callable[[str], None]) -> None:
        """gdb's gdb_safe_append_history when the session ends with `history save on`."""
        path = settings.get("history filename")
        if not self.interactive or settings.get("history save") != "on" or not path:
            return
        self._trim(settings)
        aside = f"{path}-gdb{os.getpid()}~"
        try:
            os.rename(path, aside)
            existed = True
        except FileNotFoundError:
            existed = False
        except OSError as error:
            warn(f"warning: Could not rename {path} to {aside}: {error.strerror}\n")
            return
        try:
            if existed:
                _write(aside, self._lines[len(self._lines) - min(self._added, len(self._lines)) :], append=True)
                size = settings.get("history size")
                if size != "unlimited":
                    _truncate(aside, int(size))
            else:
                _write(aside, self._lines, append=False)
        except OSError:
            pass  # readline's own failures go unreported by gdb
        try:
            os.rename(aside, path)
        except OSError as error:
            warn(f"warning: Could not rename {aside} to {path}: {error.strerror}\n")


def _write(path: str, lines: list[str], *, append: bool) -> None:
    """readline's history_do_write: a line each, the file made for its owner alone."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as file:
        file.write("".join(line + "\n" for line in lines))


def _truncate(path: str, keep: int) -> None:
    """readline's history_truncate_file: the last `keep` lines of the file."""
    with open(path, encoding="utf-8", errors="surrogateescape", newline="\n") as file:
        lines = file.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > keep:
        _write(path, lines[len(lines) - keep :], append=False)


def _environment_size(text: str | None) -> str | None:
    """GDBHISTSIZE as gdb's init_history reads it: a number; unlimited when empty, negative
    or past INT_MAX; ignored (None) when it is not a number."""
    if text is None:
        return None
    text = text.strip()
    if not text:
        return "unlimited"
    try:
        number = int(text, 10)
    except ValueError:
        return None
    return "unlimited" if number < 0 or number >= 2**31 - 1 else str(number)


def _number(ctx: Context, text: str) -> int:
    """`show commands N`: N is an expression (gdb's parse_and_eval_long)."""
    try:
        return int(text, 0)
    except ValueError:
        pass
    value = ctx.session.debugger.evaluate(text).value
    try:
        return int(value.split()[0], 0)
    except (ValueError, IndexError):
        raise MiError(f'Invalid number "{text}".') from None
