"""`aliceserver --adapter dap --port N` as a test fixture: start, connect, audit, stop."""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.adapter_process import AdapterProcess, alice_argv, free_port
from tests.support.dap_client import DapClient
from tests.support.dap_schema import shared_schema
from tests.support.proc_audit import fd_count, rss_kib, wait_clean


@dataclass
class DapServerProcess:
    adapter: AdapterProcess
    port: int
    log: Path
    clients: list[DapClient] = field(default_factory=list)

    @classmethod
    def start(cls, log: Path, *extra: str) -> DapServerProcess:
        port = free_port()
        adapter = AdapterProcess.start(
            alice_argv("--port", str(port), "--log-level", "INFO", *extra), stdio=False, stderr=log
        )
        server = cls(adapter, port, log)
        server.connect().close()  # wait until it accepts
        return server

    @property
    def pid(self) -> int:
        return self.adapter.pid

    def connect(self, name: str = "client") -> DapClient:
        client = DapClient.connect(
            "127.0.0.1", self.port, validate=shared_schema() is not None, name=name
        )
        self.clients.append(client)
        return client

    def fds(self) -> int:
        return fd_count(self.pid)

    def rss_kib(self) -> int:
        return rss_kib(self.pid)

    def assert_clean(self, fd_baseline: int | None) -> None:
        """No zombie, no tracee, no child, no more descriptors than `fd_baseline`."""
        assert self.adapter.popen.poll() is None, f"the server died:\n{self.adapter.stderr_text()}"
        problems = wait_clean(self.pid, fd_baseline)
        assert not problems, "\n".join(problems)

    def signal(self, signo: int = signal.SIGTERM, patience: float = 15.0) -> int | None:
        """Send `signo`; the exit code once it has exited (None: still running)."""
        self.adapter.popen.send_signal(signo)
        deadline = time.monotonic() + patience
        while time.monotonic() < deadline:
            code = self.adapter.popen.poll()
            if code is not None:
                return code
            time.sleep(0.05)
        return None

    def stop(self) -> None:
        for client in self.clients:
            client.close(disconnect=False)
        self.adapter.kill()
