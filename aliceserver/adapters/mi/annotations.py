"""gdb's annotations of level 1 (`set annotate 1`, what `gdb -fullname` starts with, the
one Emacs's gud-gdb reads): a source line shown for a frame (a stop, frame, up, down) is
replaced by `\\032\\032FULLNAME:LINE:CHAR:beg|middle:PC`, CHAR the byte offset of the
line in the file, `middle` when a stop shows a line alone with its pc not at the line's
start; `info line` of one place adds the same line for its start (annotate.c's
annotate_source_line). A file not found here keeps gdb's usual text. Level 2 (prompts,
frames, values, breakpoints written in annotations) is refused by settings_policy.py.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

# The line starts of files annotated, by path, with the (mtime, size) they were read at.
_STARTS: dict[str, tuple[tuple[int, int], list[int]]] = {}


def source_annotation(session: MiSession, path: str, line: int, pc: int, *, mid: bool = False) -> str | None:
    """The annotation standing for line `line` of `path` (None: annotations off, or the
    file or the line is not there: gdb prints the line its usual way then)."""
    if session.settings.get("annotate") == "0":
        return None
    located = session.debugger.source_paths.locate(path)
    if not located.found:
        return None
    starts = _line_starts(located.fullname)
    if starts is None or not 1 <= line <= len(starts):
        return None
    return f"\032\032{located.fullname}:{line}:{starts[line - 1]}:{'middle' if mid else 'beg'}:{pc:#x}\n"


def _line_starts(path: str) -> list[int] | None:
    """gdb's get_line_charpos: the byte offset where each line starts (lines end at '\\n')."""
    try:
        status = os.stat(path)
        key = (status.st_mtime_ns, status.st_size)
        cached = _STARTS.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    starts = [0] if data else []
    at = data.find(b"\n")
    while at >= 0 and at + 1 < len(data):
        starts.append(at + 1)
        at = data.find(b"\n", at + 1)
    _STARTS[path] = (key, starts)
    return starts
