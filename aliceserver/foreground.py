"""The server's terminal, handed to the program while it runs, as gdb's inflow.c does
(target_terminal::inferior and ::ours).

When the server's stdin is a terminal and the program shares it (no `tty`), the program
starts in a process group of its own (the launcher's posix_spawn setpgroup). While it
runs, that group is the terminal's foreground one: ^C, Ctrl-Z and Ctrl-\\ signal the
program alone (gdb reports the signal), its reads of the terminal are its own and it gets
the terminal's SIGWINCH. At each stop, exit, kill or detach the server's group takes the
terminal back, so a ^C at the prompt is the server's alone (gdb's Quit). The terminal's
modes go with it: the program's are kept at a stop and set again when it runs on.

The server's own reads wait while the program holds the terminal (`GatedReader`): a
read(2) started before the handover would take the program's input, since the kernel
checks the reader's process group only when a read begins.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import termios
import threading
from collections.abc import Callable
from typing import Any, BinaryIO

_Modes = list[Any]  # termios.tcgetattr's list


class Foreground:
    """Who holds the terminal on `fd`: the server's process group, or the program's."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._ours = os.getpgrp()
        self._cond = threading.Condition()
        self._given: int | None = None  # the group holding the terminal while the program runs
        self._program = 0  # the program's own group (its leader's pid)
        self._their_group = 0  # the foreground group found at the program's last stop
        self._their_modes: _Modes | None = None
        self._our_modes: _Modes | None = None
        # The server keeps the terminal while the program runs (MI's mi-async: it reads
        # commands meanwhile, and gdb runs the program in the background then)
        self.kept: Callable[[], bool] = lambda: False

    def give(self, program: int) -> bool:
        """The terminal to the group `program` (the program about to run), when it is the
        server's now: a server run in the background leaves the shell's terminal alone.
        True when this call handed it over."""
        with self._cond:
            if self._given is not None or self.kept():
                return False
            if program != self._program:  # a new process: nothing kept of the last one
                self._program, self._their_group, self._their_modes = program, program, None
            try:
                if os.tcgetpgrp(self.fd) != self._ours:
                    return False
                self._our_modes = termios.tcgetattr(self.fd)
            except (OSError, termios.error):
                return False
            # The group that held it at the last stop, else the program's own (that one
            # gone); neither: it exited meanwhile, and the terminal stays ours.
            group = _handed(self.fd, self._their_group) or _handed(self.fd, program)
            if group is None:
                return False
            modes = self._their_modes
            if modes is not None and modes != self._our_modes:
                with contextlib.suppress(OSError, termios.error):
                    _quietly(lambda: termios.tcsetattr(self.fd, termios.TCSANOW, modes))
            self._given = group
            return True

    def take(self) -> None:
        """The terminal back to the server (the program stopped, ended or was left)."""
        with self._cond:
            if self._given is None:
                return
            self._given = None
            try:
                holder = os.tcgetpgrp(self.fd)
                if holder != self._ours:
                    # It may have handed the terminal on (a shell run under us): gdb gives
                    # that group the terminal back when the program runs on.
                    self._their_group = holder if holder > 0 else self._program
                    self._their_modes = termios.tcgetattr(self.fd)
                    _quietly(lambda: os.tcsetpgrp(self.fd, self._ours))
                if self._our_modes is not None and self._their_modes != self._our_modes:
                    termios.tcsetattr(self.fd, termios.TCSANOW, self._our_modes)
            except (OSError, termios.error):
                pass  # the terminal is gone (hung up): nothing to take back
            finally:
                self._cond.notify_all()

    def read_when_ours(self, raw: BinaryIO, size: int) -> bytes | None:
        """`raw.read(size)` when input waits and the terminal is the server's (None: it is
        the program's, or the input went to it: wait again). Under the lock: `give` waits
        for the read, which does not block since input is there."""
        with self._cond:
            while self._given is not None:
                self._cond.wait()
            ready, _, _ = select.select([raw], [], [], 0)
            return raw.read(size) if ready else None


def _handed(fd: int, group: int) -> int | None:
    """`group` once it holds the terminal; None if it cannot (gone)."""
    try:
        _quietly(lambda: os.tcsetpgrp(fd, group))
    except OSError:
        return None
    return group


def _quietly(change: Callable[[], None]) -> None:
    """A change of the terminal from either side: a background group's raises SIGTTOU,
    which would stop the server; blocked in this thread, it is allowed (gdb ignores it)."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTTOU})
    try:
        change()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


class GatedReader:
    """The server's terminal input, read only while the terminal is the server's."""

    def __init__(self, raw: BinaryIO, foreground: Foreground) -> None:
        self._raw = raw
        self._foreground = foreground

    def fileno(self) -> int:
        return self._raw.fileno()

    def read(self, size: int = -1, /) -> bytes:
        while True:
            try:
                select.select([self._raw], [], [])  # input, its end, or a hang-up
            except (OSError, ValueError):  # closed under us
                return b""
            data = self._foreground.read_when_ours(self._raw, size)
            if data is not None:
                return data

    def close(self) -> None:
        self._raw.close()


_installed: Foreground | None = None


def install(fd: int) -> Foreground | None:
    """The handover of the terminal on `fd` (the server's stdin), when it is one."""
    global _installed
    if os.isatty(fd):
        _installed = Foreground(fd)
    return _installed


def installed() -> Foreground | None:
    """The terminal a launched program may share (None: the server's stdin is none)."""
    return _installed
