"""Many whole sessions on one TCP DAP server (`--port`): one after another and 8 at once,
each launch, break, inspect, step, run to the end with the right answers; afterwards the
server holds no more descriptors than after warming up and its memory has not grown
beyond 5%. (The full 500-session run: `python -m bench --only dap_load`.)

Also a program writing 20 MB to stdout at full speed: the session stays responsive while
it runs and the server's memory stays bounded.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.build import Builder
from tests.support.dap_client import launch_arguments, start_session
from tests.support.dap_server import DapServerProcess
from tests.support.load import Scenario, run_load


@pytest.fixture
def server(tmp_path: Path) -> Iterator[DapServerProcess]:
    process = DapServerProcess.start(tmp_path / "server.log")
    try:
        yield process
    finally:
        process.stop()


def test_sixty_sessions_then_eight_at_once(server: DapServerProcess, builder: Builder) -> None:
    scenario = Scenario(builder.build("src_basic"), builder.source("src_basic"))
    report = run_load(server, scenario, sequential=60, concurrent=8, concurrent_rounds=2)
    assert not report.failures, "\n".join(report.failures[:5])
    assert report.sessions == 10 + 60 + 16
    server.assert_clean(report.warm_fds)
    assert report.end_rss_kib <= report.warm_rss_kib * 1.05, (
        f"RSS grew from {report.warm_rss_kib} to {report.end_rss_kib} KiB"
    )


def test_full_speed_output_does_not_stall_the_session(
    server: DapServerProcess, builder: Builder
) -> None:
    program = builder.build("faults")
    client = server.connect()
    megabytes = 20
    start_session(client, program, launch=launch_arguments(program, args=["output", str(megabytes)]),
                  wait_stop=False)  # fmt: skip
    pid = int(client.wait_event("process")["body"]["systemProcessId"])
    answered = 0
    rss = [server.rss_kib()]
    while not any(e["event"] == "exited" for e in client.events):
        # The session answers while the output streams (no deadline on how fast).
        assert any(t["id"] == pid for t in client.threads()) or any(
            e["event"] == "exited" for e in client.events
        )
        answered += 1
        rss.append(server.rss_kib())
        time.sleep(0.05)
    exited = client.wait_event("exited")
    assert exited["body"]["exitCode"] == 0
    client.wait_event("terminated")
    received = sum(len(e["body"]["output"]) for e in client.events
                   if e["event"] == "output" and e["body"].get("category") == "stdout")  # fmt: skip
    assert received == megabytes * 1024 * 1024
    assert answered >= 1
    # Bounded: the server never held the whole output (20 MB) at once.
    assert max(rss) - rss[0] < megabytes * 1024, f"RSS {rss[0]} -> peak {max(rss)} KiB"
    client.disconnect()
    client.close()
    server.assert_clean(None)
