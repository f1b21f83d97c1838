"""Signals and their policies, and synchronous crashes."""

from __future__ import annotations

import re
import signal

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.model import SignalPolicy
from tests.support.build import Builder
from tests.support.elf import load_base, symbol_size, symbol_value
from tests.support.events import EventLog
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = [pytest.mark.timeout(60), pytest.mark.both_backends]

SIGUSR1 = int(signal.SIGUSR1)


@pytest.mark.live_only(reason="signal policies: its assertions are on the live engine's events")
def test_signal_stops_then_reaches_handler(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    info = launch(debugger, builder.build("signals"))
    stop = continue_to_stop(debugger, events, StopReason.SIGNAL)
    assert (stop.thread_id, stop.signal, stop.signal_name) == (info.pid, SIGUSR1, "SIGUSR1")
    assert stop.all_threads
    assert continue_to_exit(debugger, events).code == 0
    assert "handled=10\n" in events.output()


@pytest.mark.live_only(reason="signal policies: its assertions are on the live engine's events")
def test_policy_nostop_pass(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("signals"))
    policy = SignalPolicy(stop=False, pass_to_program=True)
    debugger.set_signal_policy(SIGUSR1, policy)
    assert debugger.signal_policy(SIGUSR1) == policy
    assert continue_to_exit(debugger, events).code == 0
    assert "handled=10\n" in events.output()


@pytest.mark.live_only(reason="signal policies: its assertions are on the live engine's events")
def test_policy_nostop_nopass(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("signals"))
    debugger.set_signal_policy(SIGUSR1, SignalPolicy(stop=False, pass_to_program=False))
    assert continue_to_exit(debugger, events).code == 0
    assert "handled=0\n" in events.output()


@pytest.mark.live_only(reason="signal policies: its assertions are on the live engine's events")
def test_policy_stop_nopass(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("signals"))
    debugger.set_signal_policy(SIGUSR1, SignalPolicy(stop=True, pass_to_program=False))
    stop = continue_to_stop(debugger, events, StopReason.SIGNAL)
    assert stop.signal == SIGUSR1
    assert continue_to_exit(debugger, events).code == 0
    assert "handled=0\n" in events.output()


CRASHES = [
    ("segv", signal.SIGSEGV),
    ("fpe", signal.SIGFPE),
    ("ill", signal.SIGILL),
    ("bus", signal.SIGBUS),
    ("abort", signal.SIGABRT),
]


@pytest.mark.parametrize(("mode", "signum"), CRASHES, ids=[mode for mode, _ in CRASHES])
def test_crash_stops_with_fault_then_kills(
    debugger: IDebugger, events: EventLog, builder: Builder, mode: str, signum: signal.Signals
) -> None:
    prog = builder.build("crash")
    info = launch(debugger, prog, [mode])
    stop = continue_to_stop(debugger, events, StopReason.CRASH)
    assert (stop.thread_id, stop.signal, stop.signal_name) == (info.pid, int(signum), signum.name)
    rip = debugger.read_registers(info.pid)["rip"]
    assert stop.address == rip
    if mode != "abort":
        # The faulting instruction is in the crash function.
        start = load_base(info.pid, prog) + symbol_value(prog, f"crash_{mode}")
        assert start <= rip < start + symbol_size(prog, f"crash_{mode}")
        assert stop.fault is not None
    if mode == "segv":
        assert stop.fault is not None and stop.fault.address == 0x10
    elif mode in ("fpe", "ill"):
        assert stop.fault is not None and stop.fault.address == rip
    elif mode == "bus":
        match = re.search(r"map=(0x[0-9a-f]+)\n", events.wait_output("\n", "stderr"))
        assert match and stop.fault is not None and stop.fault.address == int(match.group(1), 16)
    mark = events.mark()
    debugger.resume()
    exited = events.wait_for(Exited)
    assert (exited.pid, exited.code, exited.signal, exited.signal_name) == (
        info.pid,
        None,
        int(signum),
        signum.name,
    )
    assert not events.since(mark, Stopped)
    assert "no crash" not in events.output("stderr")
