"""The environment gdb gives the programs it starts.

gdb's readline exports its screen size into gdb's own environment at start (LINES and
COLUMNS), and each inferior's environment is a copy of that: a program run under gdb
sees both, and its stack starts lower by their size. The size is that of the first of
stdin, stdout and stderr that is a terminal; else the values already in the environment
(as atoi reads them, when positive); else 24 lines of 80 columns. The DAP front end does
not do this (lldb-vscode does not)."""

from __future__ import annotations

import fcntl
import re
import struct
import termios
from collections.abc import Mapping

DEFAULT_SIZE = (24, 80)  # readline's, with no terminal and no usable LINES/COLUMNS


def terminal_size() -> tuple[int, int]:
    """(rows, columns) of the first of fds 0, 1, 2 that is a terminal; (0, 0) if none is."""
    for fd in (0, 1, 2):
        try:
            packed = fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
        except OSError:
            continue
        rows, columns = struct.unpack("HHHH", packed)[:2]
        return rows, columns
    return 0, 0


def _atoi(text: str | None) -> int:
    """C's atoi, as readline reads LINES and COLUMNS ("50x" is 50, "abc" 0)."""
    match = re.match(r"\s*([+-]?\d+)", text or "")
    return int(match.group(1)) if match else 0


def host_environment(environ: Mapping[str, str], size: tuple[int, int] | None = None) -> dict[str, str]:
    """`environ` as gdb holds it once readline set LINES and COLUMNS: in place when
    present, else appended (LINES first)."""
    rows, columns = terminal_size() if size is None else size
    env = dict(environ)
    for name, tty_value, default in (("LINES", rows, DEFAULT_SIZE[0]), ("COLUMNS", columns, DEFAULT_SIZE[1])):
        value = tty_value if tty_value > 0 else _atoi(env.get(name))
        env[name] = str(value if value > 0 else default)
    return env


def inferior_environment(host: Mapping[str, str], changes: Mapping[str, str | None]) -> dict[str, str]:
    """The host environment with `set/unset environment`'s changes (None: unset), in
    gdb's order: a variable set goes to the end (changes keep the order of their last
    set; see set_variable)."""
    env = dict(host)
    for name, value in changes.items():
        env.pop(name, None)
        if value is not None:
            env[name] = value
    return env


def set_variable(changes: dict[str, str | None], name: str, value: str | None) -> None:
    """Record `set environment` (value) or `unset environment` (None): last in order."""
    changes.pop(name, None)
    changes[name] = value
