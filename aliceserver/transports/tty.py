"""Terminal devices as transports: MI `new-ui` channels and the inferior's terminal.

The device is opened as it is, and its settings are left alone: a client such as Vim
termdebug relies on the kernel's echo and newline translation on that terminal.
"""

from __future__ import annotations

import os

from aliceserver.transports.stdio import LineTransport


def open_tty_transport(path: str) -> LineTransport:
    """A line transport reading and writing the terminal at `path` (not made ours)."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        if not os.isatty(fd):
            raise OSError(f"{path} is not a terminal")
        write_fd = os.dup(fd)
    except BaseException:
        os.close(fd)
        raise
    reader = os.fdopen(fd, "rb", buffering=0)
    writer = os.fdopen(write_fd, "wb", buffering=0)
    return LineTransport(reader, writer)
