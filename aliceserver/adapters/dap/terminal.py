"""console: integratedTerminal / externalTerminal through the client's runInTerminal.

The engine must start the program itself (it is seized before its first instruction), so
the program does not run *in* the client's terminal process. Instead the adapter owns a
pseudo-terminal: the program is launched with the pty's slave as its controlling terminal
and stdio, and runInTerminal starts a tiny relay (terminal_relay.py, standard library
only) in the client's terminal. The relay connects to a private Unix socket, receives the
pty's master descriptor, and copies keystrokes and output between the two terminals
(window size included). If the client cannot start the relay, the program's terminal
output is shown in the debug console instead.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.adapters.dap.messages import JsonObject
from aliceserver.debuggers.model import LaunchConfig

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

log = logging.getLogger(__name__)

RELAY_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "terminal_relay.py")


@dataclass
class TerminalRelay:
    master: int
    tty: str
    directory: str
    listener: socket.socket
    closed: bool = False
    handed_over: threading.Event = field(default_factory=threading.Event)

    @property
    def socket_path(self) -> str:
        return os.path.join(self.directory, "relay.sock")

    @staticmethod
    def create() -> TerminalRelay:
        master, slave = os.openpty()
        tty = os.ttyname(slave)
        os.close(slave)  # the program opens it by name; its exit then hangs the master up
        directory = tempfile.mkdtemp(prefix="aliceserver-tty-")  # mode 0700: ours only
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        relay = TerminalRelay(master, tty, directory, listener)
        listener.bind(relay.socket_path)
        listener.listen(1)
        return relay

    def serve(self) -> None:
        """Hand the master to the first relay that connects (in a thread of its own)."""
        try:
            conn, _ = self.listener.accept()
        except OSError:
            return  # closed before any relay came
        with conn:
            socket.send_fds(conn, [b"pty"], [self.master])
        self.handed_over.set()
        self._close_master()

    def _close_master(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self.master)
        self.master = -1

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(OSError):
            self.listener.close()
        if self.master >= 0 and not self.handed_over.is_set():
            self._close_master()
        shutil.rmtree(self.directory, ignore_errors=True)


def start(session: DapSession, relay: TerminalRelay, kind: str, config: LaunchConfig) -> None:
    """Ask the client to run the relay in its terminal."""
    threading.Thread(target=relay.serve, name="dap-terminal-relay", daemon=True).start()
    arguments: JsonObject = {
        "kind": kind,
        "title": f"aliceserver: {os.path.basename(config.program)}",
        "cwd": config.cwd or os.getcwd(),
        "args": [sys.executable, "-I", "-S", RELAY_SCRIPT, relay.socket_path],
        "env": {},
    }

    def answered(response: JsonObject) -> None:
        if response.get("success"):
            return
        text = response.get("message") or "the client could not start a terminal"
        session.send_event("output", {
            "category": "important",
            "output": f"runInTerminal failed ({text}); the program's terminal output follows here.\n",
        })  # fmt: skip
        relay.listener.close()  # no relay will come: show the output ourselves
        threading.Thread(
            target=_pump_to_console, args=(session, relay), name="dap-pty-output", daemon=True
        ).start()

    session.send_request("runInTerminal", arguments, answered)


def _pump_to_console(session: DapSession, relay: TerminalRelay) -> None:
    while not relay.closed and relay.master >= 0:
        try:
            data = os.read(relay.master, 65536)
        except OSError:  # EIO: every slave descriptor closed (the program ended)
            break
        if not data:
            break
        session.send_event(
            "output", {"category": "stdout", "output": data.decode(errors="replace")}
        )
