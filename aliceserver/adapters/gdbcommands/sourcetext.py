"""A source file's lines as gdb 13 numbers and prints them (source.c).

gdb numbers lines at '\\n' only (find_source_lines): a form feed, a vertical tab or a lone
'\\r' inside a line does not start one, as str.splitlines would have it. Printing a line
(print_source_lines_base) shows a control character other than a tab as `^X` and DEL as
`^?`, and drops the '\\r' of a '\\r\\n'.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x01-\x08\x0a-\x1f\x7f]")


def source_lines(text: str) -> list[str]:
    """TEXT's lines as gdb numbers them: a final newline ends the last line, no empty one after."""
    if not text:
        return []
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def shown_line(line: str) -> str:
    """A line as gdb prints it: control characters but the tab as `^X`, DEL as `^?`."""
    if not _CONTROL.search(line):
        return line
    return _CONTROL.sub(
        lambda m: "^?" if m.group() == "\x7f" else "^" + chr(ord(m.group()) + 0o100), line
    )
