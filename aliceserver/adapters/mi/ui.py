"""One user interface of a session: an MI channel or a gdb-like console (CLI).

gdb's notion: the main UI on stdin/stdout plus any `new-ui` channel. Records and events are
written to each UI in its own language; a write to a UI whose client went away is dropped.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from typing import TextIO

from aliceserver.adapters.mi.output import Value, record, stream
from aliceserver.transports.base import Transport, TransportClosed

logger = logging.getLogger(__name__)

PROMPT = "(gdb) "


class Ui:
    def __init__(
        self, transport: Transport, *, mi: bool, name: str = "main", errors: Transport | None = None
    ) -> None:
        self.transport = transport
        self.is_mi = mi
        self.name = name
        self._errors = errors  # a console's error stream (stderr); None: the same stream
        self.closed = False
        self.last_written = ""  # a message the session would say twice in a row, said once
        self._lock = threading.Lock()
        self.pending_prompt = False  # a console waits for its command's stop to prompt again
        self._holding = 0  # hold() depth: while > 0, writes gather in _held
        self.cli_prompt: Callable[[], str] = lambda: PROMPT  # a console's: `set prompt`
        self.log_copy: TextIO | None = None  # `set logging enabled`: a copy of the output
        self._log_only = False  # `logging redirect`: the copy alone
        self._held: list[str] = []
        self._open_line = ""  # MI: console text not yet ended by a newline (see console)

    def hold(self) -> None:
        """Gather what is written until release(): a command's records and its prompt go
        out in one write, so the client wakes once, not once per line."""
        with self._lock:
            self._holding += 1

    def release(self) -> None:
        with self._lock:
            self._holding = max(0, self._holding - 1)
        if not self._holding:
            self.flush()

    def flush(self) -> None:
        """Write out what is held (before the session waits for anything)."""
        with self._lock:
            data, self._held = "".join(self._held), []
            data += self._closed_line()  # the last written
            if data:
                self._send(data, self.transport)

    def _closed_line(self) -> str:
        """The console line left open, as its record (the lock held)."""
        line, self._open_line = self._open_line, ""
        return stream("~", line) + "\n" if line else ""

    def _write(self, data: str, errors: bool = False, *, keep_open: bool = False) -> None:
        self.last_written = data
        target = self._errors if errors and self._errors is not None else self.transport
        with self._lock:
            if not keep_open:  # another record: the open console line goes out first
                data = self._closed_line() + data
            if self._holding and target is self.transport:
                self._held.append(data)
                return
            if self._held and target is not self.transport:  # (stderr) what was said first
                held, self._held = "".join(self._held), []
                self._send(held, self.transport)
            self._send(data, target)

    def _send(self, data: str, target: Transport) -> None:
        """Write now (the lock held: lines from several threads never interleave)."""
        if self.log_copy is not None:
            self.log_copy.write(data)
            self.log_copy.flush()
            if self._log_only:
                return
        if self.closed:
            return
        try:
            target.write_message(data.encode("utf-8", "surrogateescape"))
        except TransportClosed:
            logger.info("UI %s went away", self.name)
            self.closed = True

    def start_log_copy(self, copy: TextIO, *, only: bool) -> None:
        with self._lock:
            self.log_copy, self._log_only = copy, only

    def stop_log_copy(self) -> None:
        self.flush()  # what was written while logging goes to the log
        with self._lock:
            copy, self.log_copy, self._log_only = self.log_copy, None, False
        if copy is not None:
            copy.close()

    def line(self, text: str) -> None:
        """One raw MI line (a record)."""
        if self.is_mi:
            self._write(text + "\n")

    def result(self, token: str, cls: str, pairs: Sequence[tuple[str, Value]] = ()) -> None:
        if self.is_mi:
            self._write(record("^", cls, pairs, token) + "\n")

    def console(self, text: str, *, line_start: bool = False) -> None:
        """gdb's output stream. MI: one record per line, as gdb writes them (and one for a
        line not ended). `line_start`: the start of a line the next console text ends
        (print's `$1 = `): it waits for it, as gdb's console buffer waits for the newline,
        while a printer's error record (log's `aside`) goes out before it."""
        if not text:
            return
        if self.is_mi:
            with self._lock:
                text, self._open_line = self._open_line + text, ""
                if line_start:
                    self._open_line, text = text, ""
            if text:
                lines = text.splitlines(keepends=True)
                self._write("".join(stream("~", line) + "\n" for line in lines), keep_open=True)
        else:
            self._write(text)

    def log(self, text: str, *, aside: bool = False) -> None:
        """gdb's error stream. `aside`: a printer's error line, which MI writes before the
        console line being printed (gdb's console buffer waits for its newline; an error
        message flushes it first)."""
        if self.is_mi:
            self._write(stream("&", text) + "\n", keep_open=aside)
        else:
            self._write(text, errors=True)

    def reads_terminal(self) -> bool:
        """Whether a person types its input at a terminal (gdb's input_interactive_p)."""
        is_terminal = getattr(self.transport, "is_terminal", None)
        return bool(is_terminal()) if callable(is_terminal) else False

    def raw(self, text: str) -> None:
        """Program output: as it is, between records."""
        self._write(text)

    def prompt(self) -> None:
        self._write(PROMPT + "\n" if self.is_mi else self.cli_prompt())  # MI's never changes

    def close(self) -> None:
        self.closed = True
        self.transport.close()
