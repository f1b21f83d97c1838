"""Engine events -> DAP events (posted on a FakeDebugger's queue as the engine would)."""

from __future__ import annotations

import aliceserver.debuggers.events as ev
from aliceserver.debuggers.model import Module
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments
from tests.support.fake_debugger import FakeDebugger

PROGRAM = "/bin/fake-program"


def _progress(fake: FakeDebugger) -> None:
    for percent, done in ((0.0, False), (50.0, False), (100.0, True)):
        fake.post(ev.Progress("symbols:x", "Loading debug info of x", "step", percent, done))
    fake.post(ev.Progress("symbols:y", "never started", "", 100.0, True))
    fake.post(ev.Output("console", "marker\n"))


def test_progress_only_when_the_client_supports_it(dap: DapClient, fake: FakeDebugger) -> None:
    dap.call("initialize", {"adapterID": "alice", "supportsProgressReporting": True})
    _progress(fake)
    dap.wait_event("output", lambda e: e["body"]["output"] == "marker\n")
    names = [e["event"] for e in dap.events if e["event"].startswith("progress")]
    assert names == ["progressStart", "progressUpdate", "progressEnd"]
    start = next(e for e in dap.events if e["event"] == "progressStart")
    assert (
        start["body"]["title"] == "Loading debug info of x" and start["body"]["percentage"] == 0.0
    )


def test_no_progress_without_support(dap: DapClient, fake: FakeDebugger) -> None:
    dap.call("initialize", {"adapterID": "alice"})
    _progress(fake)
    dap.wait_event("output", lambda e: e["body"]["output"] == "marker\n")
    assert not any(e["event"].startswith("progress") for e in dap.events)


def test_process_module_thread_and_continued_events(dap: DapClient, fake: FakeDebugger) -> None:
    dap.call("initialize", {"adapterID": "alice"})
    dap.call("launch", launch_arguments(PROGRAM))
    process = dap.wait_event("process")["body"]
    assert process["systemProcessId"] == 4242 and process["startMethod"] == "launch"
    module = dap.wait_event("module")["body"]
    assert module["reason"] == "new" and module["module"]["path"] == PROGRAM
    assert dap.wait_event("thread")["body"] == {"reason": "started", "threadId": 4242}
    fake.post(ev.ModuleUnloaded(Module("/lib/libx.so", 0, 0x1000, 0x2000)))
    removed = dap.wait_event("module", lambda e: e["body"]["reason"] == "removed")
    assert removed["body"]["module"]["name"] == "libx.so"
    fake.post(ev.Continued(None))  # a resume no request of ours implied: reported
    continued = dap.wait_event("continued")["body"]
    assert continued == {"threadId": 4242, "allThreadsContinued": True}
    fake.post(ev.Stopped(ev.StopReason.SIGNAL, 4242, signal=10, signal_name="SIGUSR1"))
    stop = dap.wait_event("stopped")["body"]
    assert stop["reason"] == "exception" and stop["text"] == "SIGUSR1"
    info = dap.call("exceptionInfo", {"threadId": 4242})
    assert info["exceptionId"] == "SIGUSR1"
