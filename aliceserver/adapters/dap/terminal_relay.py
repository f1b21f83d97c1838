"""Relay between the client's terminal and the pty of a program aliceserver launched.

Run by the client (runInTerminal) as `python terminal_relay.py SOCKET`: standard library
only, no aliceserver imports, so it works from any directory and interpreter setup. It
receives the pty's master descriptor over the Unix socket, puts its own terminal in raw
mode (the program's pty does the line editing), copies bytes both ways and forwards
window-size changes, until the program's side of the pty closes.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import selectors
import signal
import socket
import sys
import termios
import tty


def _copy_size(source: int, target: int) -> None:
    with contextlib.suppress(OSError):
        size = fcntl.ioctl(source, termios.TIOCGWINSZ, b"\0" * 8)
        fcntl.ioctl(target, termios.TIOCSWINSZ, size)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: terminal_relay.py SOCKET", file=sys.stderr)
        return 2
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(argv[0])
        _, fds, _, _ = socket.recv_fds(conn, 16, 1)
    if not fds:
        print("aliceserver: no terminal received", file=sys.stderr)
        return 1
    master = fds[0]
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    saved = None
    if os.isatty(stdin):
        saved = termios.tcgetattr(stdin)
        tty.setraw(stdin)
        _copy_size(stdin, master)
        signal.signal(signal.SIGWINCH, lambda *_: _copy_size(stdin, master))
    try:
        # poll, not epoll: stdin may be a file or /dev/null, which epoll refuses.
        with selectors.PollSelector() as selector:
            selector.register(master, selectors.EVENT_READ)
            selector.register(stdin, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select():
                    try:
                        data = os.read(key.fd, 65536)
                    except OSError:  # EIO on the master: the program closed its terminal
                        data = b""
                    if key.fd == master:
                        if not data:
                            return 0
                        os.write(stdout, data)
                    elif data:
                        os.write(master, data)
                    else:
                        selector.unregister(stdin)  # our input ended; output goes on
    finally:
        if saved is not None:
            termios.tcsetattr(stdin, termios.TCSADRAIN, saved)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
