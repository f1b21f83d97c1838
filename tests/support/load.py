"""Load on one TCP DAP server: many whole sessions, one after another and several at once,
with the server's memory and descriptors measured through /proc (tests and bench/)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from tests.support.build import marker_line
from tests.support.dap_client import start_session
from tests.support.dap_server import DapServerProcess


@dataclass(frozen=True)
class Scenario:
    """src_basic: break in `leaf`, inspect, step, check a local, run to the end."""

    program: Path
    source: Path

    @property
    def line(self) -> int:
        return marker_line(self.source, "leaf")

    def run(self, server: DapServerProcess, name: str = "load") -> None:
        client = server.connect(name)
        try:
            source = str(self.source)
            session = start_session(client, self.program, breakpoints={source: [self.line]})
            thread = session.thread_id
            frame = client.stack_trace(thread, 0, 20)[0]
            assert frame["name"] == "leaf" and frame["line"] == self.line, frame
            arguments = client.scope_variables(frame["id"], "Arguments")
            assert arguments == {"x": "3"}, arguments
            value = client.call("evaluate", {"expression": "x * 2", "frameId": frame["id"],
                                             "context": "watch"})  # fmt: skip
            assert value["result"] == "6", value
            stepped = client.resume("next", thread)
            assert stepped["event"] == "stopped" and stepped["body"]["reason"] == "step", stepped
            top = client.stack_trace(thread, 0, 1)[0]
            assert top["line"] == self.line + 1, top
            assert client.scope_variables(top["id"])["doubled"] == "6"
            client.call("setBreakpoints", {"source": {"path": source}, "breakpoints": []})
            end = client.continue_(thread)
            assert end["event"] == "exited" and end["body"]["exitCode"] == 0, end
            client.wait_event("terminated")
            client.disconnect()
            client.assert_valid()
        finally:
            client.close()
            server.clients.remove(client)


@dataclass
class LoadReport:
    sessions: int = 0
    failures: list[str] = field(default_factory=list)
    warm_rss_kib: int = 0
    end_rss_kib: int = 0
    peak_rss_kib: int = 0
    warm_fds: int = 0
    end_fds: int = 0
    seconds: float = 0.0

    @property
    def rss_growth(self) -> float:
        return (self.end_rss_kib - self.warm_rss_kib) / self.warm_rss_kib if self.warm_rss_kib else 0.0


def run_load(
    server: DapServerProcess,
    scenario: Scenario,
    *,
    sequential: int,
    concurrent: int,
    concurrent_rounds: int,
    warm_up: int = 10,
    progress: Callable[[str], None] | None = None,
) -> LoadReport:
    """`warm_up` sessions, then the baseline; `sequential` sessions one after another,
    then `concurrent_rounds` rounds of `concurrent` sessions at once; then the end figures
    (after the server has had a moment to finish its cleanups)."""
    report = LoadReport()
    lock = threading.Lock()

    def one(name: str) -> None:
        try:
            scenario.run(server, name)
        except Exception as error:  # noqa: BLE001 - counted and reported, the run goes on
            with lock:
                report.failures.append(f"{name}: {type(error).__name__}: {error}"[:600])
        with lock:
            report.sessions += 1
            report.peak_rss_kib = max(report.peak_rss_kib, server.rss_kib())

    for index in range(warm_up):
        one(f"warm-{index}")
    _settle(server)
    report.warm_rss_kib, report.warm_fds = server.rss_kib(), server.fds()
    started = time.monotonic()
    for index in range(sequential):
        one(f"seq-{index}")
        if progress is not None and (index + 1) % 50 == 0:
            progress(f"{index + 1} sequential sessions, RSS {server.rss_kib()} KiB, fds {server.fds()}")
    with ThreadPoolExecutor(max_workers=concurrent) as pool:
        for round_index in range(concurrent_rounds):
            list(pool.map(one, [f"conc-{round_index}-{i}" for i in range(concurrent)]))
            if progress is not None:
                progress(f"round {round_index + 1} of {concurrent} at once, RSS {server.rss_kib()} KiB")
    report.seconds = time.monotonic() - started
    _settle(server)
    report.end_rss_kib, report.end_fds = server.rss_kib(), server.fds()
    return report


def _settle(server: DapServerProcess, patience: float = 10.0) -> None:
    """Wait until the server has no children left (sessions end asynchronously)."""
    from tests.support.proc_audit import wait_clean

    wait_clean(server.pid, None, patience)
