"""The environment gdb gives the programs it starts.

gdb's readline exports its screen size into gdb's own environment at start (LINES and
COLUMNS), and each inferior's environment is a copy of that: a program run under gdb
sees both, and its stack starts lower by their size. Each of the two is readline's
_rl_get_screen_size: stdin's terminal size; else the value already in the environment
(as atoi reads it, when positive); else ncurses' (tgetnum): the size of stdout's
terminal, or stderr's when stdout is none; else 24 lines of 80 columns. The DAP front
end does not do this (lldb-vscode does not).
"""

from __future__ import annotations

import fcntl
import os
import re
import struct
import termios
from collections.abc import Mapping

DEFAULT_SIZE = (24, 80)  # readline's, with no terminal and no usable LINES/COLUMNS


def _window_size(fd: int) -> tuple[int, int]:
    """(rows, columns) of the terminal on `fd`; (0, 0) if it is none."""
    try:
        packed = fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
    except OSError:
        return 0, 0
    rows, columns = struct.unpack("HHHH", packed)[:2]
    return rows, columns


def terminal_sizes() -> tuple[tuple[int, int], tuple[int, int]]:
    """readline's (stdin's) and ncurses' (stdout's, else stderr's) terminal sizes."""
    return _window_size(0), _window_size(1 if os.isatty(1) else 2)


def _atoi(text: str | None) -> int:
    """C's atoi, as readline reads LINES and COLUMNS ("50x" is 50, "abc" 0)."""
    match = re.match(r"\s*([+-]?\d+)", text or "")
    return int(match.group(1)) if match else 0


def host_environment(environ: Mapping[str, str],
                     sizes: tuple[tuple[int, int], tuple[int, int]] | None = None) -> dict[str, str]:
    """`environ` as gdb holds it once readline set LINES and COLUMNS: in place when
    present, else appended (LINES first)."""
    readline, ncurses = terminal_sizes() if sizes is None else sizes
    env = dict(environ)
    for axis, name, default in ((0, "LINES", DEFAULT_SIZE[0]), (1, "COLUMNS", DEFAULT_SIZE[1])):
        value = readline[axis] if readline[axis] > 0 else _atoi(env.get(name))
        value = value if value > 0 else ncurses[axis]
        env[name] = str(value if value > axis else default)  # readline: a width of 1 is 80
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
