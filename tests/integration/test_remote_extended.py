"""The remote backend in extended-remote mode (`gdbserver --multi`): run a program
(vRun), attach to one and detach from it (vAttach, D), and monitor commands (qRcmd)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from aliceserver.debuggers.events import StopReason
from aliceserver.debuggers.remote.process import RemoteProcess
from tests.support.build import Builder
from tests.support.elf import load_base, symbol_value
from tests.support.gdbserver import assert_gone, connect, expect_stop, gdbserver


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build("remote_target")


def test_extended_remote_runs_the_program(program: Path) -> None:
    with gdbserver(None, multi=True) as server:
        process = RemoteProcess.connect(server.address, extended=True, timeout=10)
        pid = 0
        try:
            assert not process.live
            first = process.run(str(program))
            pid = process.pid
            assert first.reason is StopReason.ENTRY and first.thread_id == pid
            add = load_base(pid, program) + symbol_value(program, "remote_add")
            process.insert_breakpoint(add)
            process.resume()
            assert expect_stop(process.wait(timeout=10)).address == add
            process.kill()
            assert not process.live
        finally:
            process.close()
            if pid:
                assert_gone(pid)


def test_monitor_output_comes_through_o_packets(program: Path) -> None:
    with gdbserver(program) as server:
        process = connect(server)
        try:
            said = process.client.monitor("help")
            assert "monitor" in said and said.count("\n") > 3
        finally:
            process.kill()
            process.close()


def test_extended_remote_attaches_and_detaches(program: Path) -> None:
    spinning = subprocess.Popen([str(program), "spin"], stdout=subprocess.DEVNULL)
    try:
        with gdbserver(None, multi=True) as server:
            process = RemoteProcess.connect(server.address, extended=True, timeout=10)
            try:
                stop = process.attach(spinning.pid)
                assert stop.reason is StopReason.PAUSE and process.pid == spinning.pid
                assert spinning.pid in process.thread_ids()
                spin = load_base(spinning.pid, program) + symbol_value(program, "remote_spin")
                process.write_memory(spin, bytes(4))
                process.detach()
                assert not process.live
            finally:
                process.close()
        assert spinning.wait(timeout=10) == 12  # released by the write, it ran to its end
    finally:
        if spinning.poll() is None:
            spinning.kill()
            spinning.wait()
