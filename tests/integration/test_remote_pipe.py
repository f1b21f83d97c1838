"""The remote backend over a pipe to `gdbserver - PROGRAM` (gdb's `target remote | ...`):
the same protocol on a command's stdin and stdout, and a typed error when it dies."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.remote.connection import PipeChannel
from aliceserver.debuggers.remote.errors import RemoteConnectionError
from aliceserver.debuggers.remote.process import RemoteProcess
from aliceserver.debuggers.symbols.auxv import AT_ENTRY
from tests.support.build import Builder
from tests.support.elf import entry_point, symbol_value
from tests.support.gdbserver import assert_gone, gdbserver_path


def _pipe(program: Path, *args: str) -> RemoteProcess:
    # gdbserver's own messages to /dev/null: the test output stays readable.
    words = " ".join([gdbserver_path(), "-", str(program), *args])
    return RemoteProcess.connect(f"| exec {words} 2>/dev/null", timeout=10)


def _channel(process: RemoteProcess) -> PipeChannel:
    channel = process.client.connection.channel
    assert isinstance(channel, PipeChannel)
    return channel


def test_over_a_pipe_break_continue_and_exit(builder: Builder) -> None:
    program = builder.build("remote_target")
    process = _pipe(program)
    pid = process.pid
    try:
        first = process.last_stop()
        assert first is not None and first.reason is StopReason.ENTRY
        assert process.thread_ids() == [pid]
        bias = process.auxv()[AT_ENTRY] - entry_point(program)
        touch = bias + symbol_value(program, "remote_touch")
        process.insert_breakpoint(touch)
        process.resume()
        stop = process.wait(timeout=10)
        assert isinstance(stop, Stopped)
        assert (stop.reason, stop.thread_id, stop.address) == (StopReason.BREAKPOINT, pid, touch)
        process.remove_breakpoint(touch)
        process.resume()
        assert process.wait(timeout=10) == Exited(pid, 12)
    finally:
        process.close()
    assert _channel(process).process.returncode is not None  # gdbserver ended, reaped
    assert_gone(pid)


def test_a_killed_pipe_command_is_a_typed_error(builder: Builder) -> None:
    program = builder.build("remote_target")
    process = _pipe(program, "spin")
    pid = process.pid
    try:
        process.resume()
        os.killpg(_channel(process).process.pid, signal.SIGKILL)
        started = time.monotonic()
        with pytest.raises(RemoteConnectionError):
            process.wait(timeout=10)
        assert time.monotonic() - started < 5
    finally:
        process.close()
        try:
            os.kill(pid, signal.SIGKILL)  # gdbserver's program, orphaned when it died
        except ProcessLookupError:
            pass
    assert_gone(pid)
