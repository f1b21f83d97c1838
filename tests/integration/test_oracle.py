"""python-ptrace as an independent oracle: signal names, and registers and memory at a stop."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.model import SignalPolicy
from tests.support.build import Builder
from tests.support.elf import load_base, symbol_value
from tests.support.events import EventLog
from tests.support.oracle import GENERAL_REGISTERS, run_to_breakpoint
from tests.support.session import continue_to_stop, launch

signames = pytest.importorskip(
    "ptrace.signames", reason="python-ptrace (the oracle) is not installed"
)

pytestmark = [pytest.mark.timeout(60), pytest.mark.both_backends]

# Signals whose default action ends the process (so both a stop and an exit name them).
FATAL = [1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13, 14, 15, 16, 24, 25, 26, 27, 29, 30, 31]
# Linux gives some numbers two names; python-ptrace picks one, the engine may pick the other.
ALIASES = {"SIGPOLL": "SIGIO", "SIGCLD": "SIGCHLD", "SIGIOT": "SIGABRT"}


def canonical(name: str | None) -> str | None:
    return ALIASES.get(name, name) if name is not None else None


@pytest.mark.live_only(reason="its assertions are on the stop and exit events, which the live engine reports")
@pytest.mark.parametrize("signum", FATAL, ids=[signal.Signals(n).name for n in FATAL])
def test_signal_names_agree_with_python_ptrace(
    debugger: IDebugger, events: EventLog, builder: Builder, signum: int
) -> None:
    info = launch(debugger, builder.build("raise_sig"), [str(signum)])
    debugger.set_signal_policy(signum, SignalPolicy(stop=True, pass_to_program=True))
    stop = continue_to_stop(debugger, events)
    assert stop.reason in (StopReason.SIGNAL, StopReason.CRASH)
    assert stop.signal == signum and stop.thread_id == info.pid
    expected = canonical(signames.signalName(signum))
    assert canonical(stop.signal_name) == expected
    debugger.resume()
    exited = events.wait_for(Exited)
    assert (exited.code, exited.signal) == (None, signum)
    assert canonical(exited.signal_name) == expected
    assert len(events.of_type(Stopped)) == 1


@pytest.mark.live_only(reason="its assertions are on the exit event: no stop to read")
def test_kill_signal_name_agrees(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("selfkill"))
    debugger.resume()
    exited = events.wait_for(Exited)
    assert exited.signal == 9 and exited.signal_name == signames.signalName(9)


def test_registers_and_memory_agree_with_python_ptrace(
    debugger: IDebugger, events: EventLog, builder: Builder, tmp_path: Path
) -> None:
    prog = builder.build("calls")
    # Identical argv, environment, cwd and program path, ASLR off in both: same stack layout.
    env = {"PATH": "/usr/bin:/bin", "LANG": "C", "ALICE_ORACLE": "1"}
    args = ["3"]
    cwd = str(tmp_path)
    link_probe = symbol_value(prog, "oracle_probe")
    globals_ = [(symbol_value(prog, "global_buf"), 64), (symbol_value(prog, "global_value"), 8)]

    # The engine (disable_aslr defaults to True).
    info = launch(debugger, prog, args, cwd=cwd, env=env)
    base = load_base(info.pid, prog)
    probe = base + link_probe
    debugger.insert_breakpoint(probe)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.address == probe
    ours = debugger.read_registers(info.pid)
    # From the return address to main's saved rbp and return address. Not further up: there
    # __libc_start_call_main keeps a setjmp buffer whose pointers are mangled with a guard
    # derived from AT_RANDOM, which differs between any two runs.
    stack = (ours["rsp"], ours["rbp"] + 16 - ours["rsp"])
    our_memory = {
        addr: debugger.read_memory(addr, size)
        for addr, size in [stack, *((base + a, s) for a, s in globals_)]
    }
    debugger.kill()
    events.wait_for(Exited)

    # python-ptrace, on its own: its own address lookup, breakpoint and reads.
    reading = run_to_breakpoint(
        prog,
        args,
        env,
        cwd,
        address_of=lambda pid: load_base(pid, prog) + link_probe,
        memory=lambda regs: [
            (regs["rsp"], regs["rbp"] + 16 - regs["rsp"]),
            *((base + a, s) for a, s in globals_),
        ],
    )
    assert base == 0 or reading.registers["rip"] - link_probe == base, "ASLR was not off in both"
    mismatched = {
        name: (hex(ours[name]), hex(reading.registers[name]))
        for name in GENERAL_REGISTERS
        if ours[name] != reading.registers[name]
    }
    assert not mismatched, f"engine vs python-ptrace: {mismatched}"
    assert reading.registers["rdi"] == 0x1234 and reading.registers["rip"] == probe
    assert our_memory == reading.memory
    assert os.path.exists(prog)
