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
from tests.support.dap_server import DapServerProcess
from tests.support.dap_session import start_session


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
    # The highest RSS while warming up (its sessions at once): what the workload needs.
    # The settled figure after it varies by a third with what the allocator gave back.
    warm_peak_rss_kib: int = 0
    warm_fds: int = 0
    end_fds: int = 0
    seconds: float = 0.0
    sequential_rss: list[int] = field(default_factory=list)  # every `sample_every` sessions
    round_rss: list[int] = field(default_factory=list)  # after each concurrent round

    @property
    def rss_growth(self) -> float:
        return (self.end_rss_kib - self.warm_rss_kib) / self.warm_rss_kib if self.warm_rss_kib else 0.0

    @staticmethod
    def trend(samples: list[int], k: int = 3) -> float:
        """Mean of the last `k` samples over the mean of the first `k`, minus 1: growth
        that outlasts the allocator's noise (single readings vary by 10-20%)."""
        if len(samples) < 2:
            return 0.0
        k = min(k, len(samples) // 2)
        first, last = sum(samples[:k]) / k, sum(samples[-k:]) / k
        return last / first - 1 if first else 0.0


def run_load(
    server: DapServerProcess,
    scenario: Scenario,
    *,
    sequential: int,
    concurrent: int,
    concurrent_rounds: int,
    warm_up: int = 10,
    sample_every: int = 50,
    progress: Callable[[str], None] | None = None,
) -> LoadReport:
    """`warm_up` sessions and one round of `concurrent` at once, then the baseline;
    `sequential` sessions one after another,
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

    with ThreadPoolExecutor(max_workers=concurrent) as pool:
        for index in range(warm_up):
            one(f"warm-{index}")
        # Part of the warm-up: the first time `concurrent` sessions run at once, the heap
        # grows to hold them all (a high-water mark, not a leak).
        list(pool.map(one, [f"warm-conc-{i}" for i in range(concurrent)]))
    report.warm_peak_rss_kib = report.peak_rss_kib
    _settle(server)
    report.warm_rss_kib, report.warm_fds = server.rss_kib(), server.fds()
    started = time.monotonic()
    for index in range(sequential):
        one(f"seq-{index}")
        if (index + 1) % sample_every == 0:
            report.sequential_rss.append(server.rss_kib())
            if progress is not None:
                progress(f"{index + 1} sequential sessions, RSS {server.rss_kib()} KiB, fds {server.fds()}")
    with ThreadPoolExecutor(max_workers=concurrent) as pool:
        for round_index in range(concurrent_rounds):
            list(pool.map(one, [f"conc-{round_index}-{i}" for i in range(concurrent)]))
            report.round_rss.append(server.rss_kib())
            if progress is not None:
                progress(f"round {round_index + 1} of {concurrent} at once, RSS {server.rss_kib()} KiB")
    report.seconds = time.monotonic() - started
    _settle(server, report.warm_fds)  # a session's socket closes a moment after its end
    report.end_rss_kib, report.end_fds = server.rss_kib(), server.fds()
    return report


def _settle(server: DapServerProcess, fds: int | None = None, patience: float = 10.0) -> None:
    """Wait until the server has no children left (sessions end asynchronously) and, given
    `fds`, holds no more descriptors than that."""
    from tests.support.proc_audit import wait_clean

    wait_clean(server.pid, fds, patience)


@dataclass
class OutputReport:
    megabytes: int
    received: int = 0
    seconds: float = 0.0
    requests_answered: int = 0
    peak_growth_kib: int = 0  # server RSS above its level before the program started


def run_output(server: DapServerProcess, program: Path, megabytes: int) -> OutputReport:
    """tests/programs/faults.c `output MB` under a client that reads everything and asks
    `threads` meanwhile: how long, how much arrived, how far the server's memory rose."""
    from tests.support.dap_session import launch_arguments

    report = OutputReport(megabytes)
    client = server.connect("output")
    try:
        base = server.rss_kib()
        started = time.monotonic()
        start_session(client, program, wait_stop=False,
                      launch=launch_arguments(program, args=["output", str(megabytes)]))  # fmt: skip
        while not any(e["event"] == "exited" for e in client.events):
            client.threads()
            report.requests_answered += 1
            report.peak_growth_kib = max(report.peak_growth_kib, server.rss_kib() - base)
            time.sleep(0.01)
        client.wait_event("terminated")
        report.seconds = time.monotonic() - started
        report.received = sum(len(str(e["body"]["output"])) for e in client.events
                              if e["event"] == "output" and e["body"].get("category") == "stdout")  # fmt: skip
        client.disconnect()
    finally:
        client.close()
        server.clients.remove(client)
    return report
