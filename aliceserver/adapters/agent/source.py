"""Source windows: the lines around a position, the current one marked `->`."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass

MAX_LINE = 160  # characters of one source line shown


@dataclass(frozen=True, slots=True)
class SourceWindow:
    path: str
    line: int
    text: str  # "   41 | code\n-> 42 | code\n" ...
    first: int
    last: int


class SourceCache:
    """Reads source files once per (path, mtime); unreadable files give no window."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[float, list[str]]] = {}
        self._lock = threading.Lock()

    def lines(self, path: str) -> list[str] | None:
        try:
            mtime = os.stat(path).st_mtime
        except OSError:
            return None
        with self._lock:
            cached = self._files.get(path)
            if cached is not None and cached[0] == mtime:
                return cached[1]
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            return None
        with self._lock:
            self._files[path] = (mtime, lines)
        return lines

    def window(
        self, path: str, line: int, context: int, marks: frozenset[int] = frozenset()
    ) -> SourceWindow | None:
        """Lines `line - context` .. `line + context`; `marks` (breakpoint lines) get `b`."""
        lines = self.lines(path)
        if lines is None or not 1 <= line <= len(lines):
            return None
        first, last = max(1, line - context), min(len(lines), line + context)
        width = len(str(last))
        rows = []
        for number in range(first, last + 1):
            marker = "->" if number == line else (" b" if number in marks else "  ")
            text = lines[number - 1].rstrip()
            if len(text) > MAX_LINE:
                text = text[: MAX_LINE - 1] + "…"
            rows.append(f"{marker} {number:>{width}} | {text}")
        return SourceWindow(path, line, "\n".join(rows), first, last)
