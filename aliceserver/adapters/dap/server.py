"""Wiring: a DapServer makes one DapSession (with a fresh debugger) per connection."""

from __future__ import annotations

import ctypes
import gc
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import BinaryIO

from aliceserver.adapters.dap.registry import Registry, default_registry
from aliceserver.adapters.dap.session import DapSession, DebuggerFactory
from aliceserver.transports.base import Transport
from aliceserver.transports.framed import FramedTransport
from aliceserver.transports.tcp import TcpListener

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DapServerConfig:
    debugger_factory: DebuggerFactory  # a new IDebugger for each session
    registry_factory: Callable[[], Registry] = field(default=default_registry)


class DapServer:
    def __init__(self, config: DapServerConfig) -> None:
        self.config = config

    def session(self, transport: Transport) -> DapSession:
        """A session over `transport` (not yet running: call `run`)."""
        return DapSession(transport, self.config.debugger_factory(), self.config.registry_factory())

    def serve(self, transport: Transport) -> None:
        """Serve one client until it disconnects or goes away."""
        try:
            self.session(transport).run()
        finally:
            release_memory()

    def serve_stdio(self, stdin: BinaryIO, stdout: BinaryIO) -> None:
        self.serve(FramedTransport(stdin, stdout))

    def listen(self, host: str = "127.0.0.1", port: int = 0) -> TcpListener:
        """A listener (not yet accepting: `start()` or `serve_forever()`); every connection
        is an independent session with its own debuggee."""
        return TcpListener(host, port, on_connection=self.serve, transport_factory=FramedTransport)


def release_memory() -> None:
    """A session's objects are garbage once it ends: collect them and give the freed heap
    back to the system. Without this glibc keeps it in its per-thread arenas, and a server
    that once held 8 sessions at once would keep that high-water mark for good."""
    gc.collect()
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc
        return
    trim(0)


def build_dap_server(config: DapServerConfig) -> DapServer:
    return DapServer(config)
