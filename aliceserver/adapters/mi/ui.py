"""One user interface of a session: an MI channel or a gdb-like console (CLI).

gdb's notion: the main UI on stdin/stdout plus any `new-ui` channel. Records and events are
written to each UI in its own language; a write to a UI whose client went away is dropped.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence

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
        self._lock = threading.Lock()
        self.pending_prompt = False  # a console waits for its command's stop to prompt again

    def _write(self, data: str, errors: bool = False) -> None:
        if self.closed:
            return
        target = self._errors if errors and self._errors is not None else self.transport
        try:
            with self._lock:
                target.write_message(data.encode("utf-8", "surrogateescape"))
        except TransportClosed:
            logger.info("UI %s went away", self.name)
            self.closed = True

    def line(self, text: str) -> None:
        """One raw MI line (a record)."""
        if self.is_mi:
            self._write(text + "\n")

    def result(self, token: str, cls: str, pairs: Sequence[tuple[str, Value]] = ()) -> None:
        if self.is_mi:
            self._write(record("^", cls, pairs, token) + "\n")

    def console(self, text: str) -> None:
        if not text:
            return
        if self.is_mi:
            # One record per line, as gdb writes them.
            lines = text.splitlines(keepends=True)
            self._write("".join(stream("~", line) + "\n" for line in lines))
        else:
            self._write(text)

    def log(self, text: str) -> None:
        if self.is_mi:
            self._write(stream("&", text) + "\n")
        else:
            self._write(text, errors=True)

    def raw(self, text: str) -> None:
        """Program output: as it is, between records."""
        self._write(text)

    def prompt(self) -> None:
        self._write(PROMPT + "\n" if self.is_mi else PROMPT)

    def close(self) -> None:
        self.closed = True
        self.transport.close()
