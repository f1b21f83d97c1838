"""Launching, stdio, exit statuses and bad input."""

from __future__ import annotations

import importlib
import os
import re
import struct
import time
from pathlib import Path

import pytest

from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Exited, ProcessStarted, StopReason
from aliceserver.debuggers.model import LaunchConfig, ThreadState
from aliceserver.errors import ProtocolError, TargetError
from tests.support.build import Builder
from tests.support.elf import entry_point, load_base, symbol_value
from tests.support.events import EventLog
from tests.support.procs import proc_state
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(60)

AT_BASE = 7


def interpreter_entry(pid: int) -> int:
    """Runtime address of the dynamic loader's entry point (AT_BASE + its e_entry)."""
    auxv = Path(f"/proc/{pid}/auxv").read_bytes()
    pairs = dict(struct.iter_unpack("<QQ", auxv))
    base = int(pairs[AT_BASE])
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and int(parts[0].split("-")[0], 16) == base:
            return base + entry_point(Path(parts[5]))
    raise LookupError(f"no mapping at AT_BASE {base:#x} in process {pid}")


def test_launch_holds_program_before_first_instruction(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    prog = builder.build("calls")
    info = launch(debugger, prog, ["3"])
    assert info.pid > 0 and not info.attached
    started = events.wait_for(ProcessStarted)
    assert started.pid == info.pid and not started.attached
    assert Path(started.program).name == prog.name
    assert debugger.process is not None and debugger.process.pid == info.pid
    # Held in a ptrace stop, at the dynamic loader's first instruction, nothing run yet.
    assert proc_state(info.pid) == "t"
    assert not debugger.is_running()
    assert os.path.realpath(f"/proc/{info.pid}/exe") == str(prog.resolve())
    rip = debugger.read_registers(info.pid)["rip"]
    assert rip == interpreter_entry(info.pid), f"pc {rip:#x} is not the loader's entry point"
    [thread] = debugger.threads()
    assert thread.tid == info.pid and thread.state == ThreadState.STOPPED and thread.pc == rip
    events.settle(0.3)
    assert events.output() == "" and not events.of_type(Exited)
    exited = continue_to_exit(debugger, events)
    assert exited.pid == info.pid and exited.code == 0 and exited.signal is None
    assert "sum=3\n" in events.output()


def test_stop_on_entry_stops_at_elf_entry(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    prog = builder.build("calls")
    info = launch(debugger, prog, stop_on_entry=True)
    stop = continue_to_stop(debugger, events, StopReason.ENTRY)
    entry = load_base(info.pid, prog) + entry_point(prog)
    assert stop.thread_id == info.pid
    assert stop.address == entry
    assert debugger.read_registers(info.pid)["rip"] == entry
    assert debugger.lookup_symbol("_start") == entry
    assert continue_to_exit(debugger, events).code == 0
    assert "sum=10\n" in events.output()


def test_args_cwd_env_and_stderr(
    debugger: IDebugger, events: EventLog, builder: Builder, tmp_path: Path
) -> None:
    prog = builder.build("showenv")
    env = {"ALICE_TEST_VAR": "hello world", "PATH": "/usr/bin:/bin"}
    launch(debugger, prog, ["a", "b c", ""], cwd=str(tmp_path), env=env)
    assert continue_to_exit(debugger, events).code == 0
    out = events.output("stdout")
    assert "arg[1]=a\narg[2]=b c\narg[3]=\n" in out
    assert f"cwd={tmp_path.resolve()}\n" in out
    assert "env=hello world\n" in out
    assert "home=unset\n" in out  # the environment is replaced, not merged
    assert events.output("stderr") == "to stderr\n"


def test_what_no_process_can_take_is_refused_by_name(
    debugger: IDebugger, events: EventLog, builder: Builder
) -> None:
    # Every front end launches through the engine: MCP and DAP clients can send a NUL or a
    # lone surrogate in JSON, which execve cannot take.
    prog = builder.build("showenv")
    bad = [({"args": ("ok", "\ud800")}, "'args[1]'"), ({"env": {"A": "a\0b"}}, "'env.A'"),
           ({"env": {"A=B": "x"}}, "'A=B'"), ({"cwd": "\udfff"}, "'cwd'")]  # fmt: skip
    for change, named in bad:
        with pytest.raises(ProtocolError, match=re.escape(named)):
            debugger.launch(LaunchConfig(str(prog), **change))  # type: ignore[arg-type]
    with pytest.raises(ProtocolError, match="'program'"):
        debugger.launch(LaunchConfig(str(prog) + "\0"))
    launch(debugger, prog, ["a"])  # nothing was started, and the engine still launches
    assert continue_to_exit(debugger, events).code == 0


@pytest.mark.parametrize("code", [0, 3, 255])
def test_exit_codes(debugger: IDebugger, events: EventLog, builder: Builder, code: int) -> None:
    info = launch(debugger, builder.build("exitcode"), [str(code)])
    exited = continue_to_exit(debugger, events)
    assert (exited.pid, exited.code, exited.signal) == (info.pid, code, None)
    assert f"exiting with {code}\n" in events.output()
    assert not debugger.is_running()


def test_program_killing_itself(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("selfkill"))
    exited = continue_to_exit(debugger, events)
    assert (exited.pid, exited.code, exited.signal, exited.signal_name) == (
        info.pid,
        None,
        9,
        "SIGKILL",
    )
    out = events.output()
    assert "about to die" in out and "still alive" not in out


def test_kill_stopped_program(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    prog = builder.build("calls")
    info = launch(debugger, prog)
    debugger.insert_breakpoint(debugger.lookup_symbol("add"))
    continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    debugger.kill()
    exited = events.wait_for(Exited)
    assert (exited.pid, exited.code, exited.signal, exited.signal_name) == (
        info.pid,
        None,
        9,
        "SIGKILL",
    )
    assert "sum=" not in events.output()


def test_kill_running_program(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("spin"))
    debugger.resume()
    events.settle(0.2)
    assert debugger.is_running()
    debugger.kill()
    exited = events.wait_for(Exited)
    assert (exited.pid, exited.signal, exited.signal_name) == (info.pid, 9, "SIGKILL")
    assert "spins=" not in events.output()


def test_close_kills_launched_program(builder: Builder) -> None:
    engine = importlib.import_module("aliceserver.debuggers.ptrace.engine")
    dbg = engine.PtraceDebugger()
    log = EventLog(dbg)
    try:
        info = launch(dbg, builder.build("spin"))
        dbg.resume()
        log.settle(0.2)
        assert proc_state(info.pid) in ("R", "S")
    finally:
        dbg.close()
    deadline = time.monotonic() + 5
    while proc_state(info.pid) not in ("", "Z") and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc_state(info.pid) == "", "the program survived close() or was not reaped"


def _assert_still_usable(debugger: IDebugger, events: EventLog, builder: Builder) -> None:
    info = launch(debugger, builder.build("exitcode"), ["3"])
    exited = continue_to_exit(debugger, events)
    assert (exited.pid, exited.code) == (info.pid, 3)


def test_missing_program(
    debugger: IDebugger, events: EventLog, builder: Builder, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-program"
    with pytest.raises(TargetError) as caught:
        launch(debugger, missing)
    message = str(caught.value)
    assert "no-such-program" in message and "no such file" in message.lower()
    assert debugger.process is None
    _assert_still_usable(debugger, events, builder)


def test_non_executable_file(
    debugger: IDebugger, events: EventLog, builder: Builder, tmp_path: Path
) -> None:
    plain = tmp_path / "plain-file"
    plain.write_text("#!/bin/sh\nexit 0\n")
    plain.chmod(0o644)
    with pytest.raises(TargetError) as caught:
        launch(debugger, plain)
    message = str(caught.value).lower()
    assert "plain-file" in message and ("permission" in message or "executable" in message)
    _assert_still_usable(debugger, events, builder)


def test_directory_as_program(
    debugger: IDebugger, events: EventLog, builder: Builder, tmp_path: Path
) -> None:
    with pytest.raises(TargetError) as caught:
        launch(debugger, tmp_path)
    assert "directory" in str(caught.value).lower()
    _assert_still_usable(debugger, events, builder)


def test_missing_working_directory(
    debugger: IDebugger, events: EventLog, builder: Builder, tmp_path: Path
) -> None:
    with pytest.raises(TargetError):
        launch(debugger, builder.build("exitcode"), cwd=str(tmp_path / "nowhere"))
    _assert_still_usable(debugger, events, builder)


def test_lookup_symbol_matches_elf(debugger: IDebugger, builder: Builder) -> None:
    prog = builder.build("calls")
    info = launch(debugger, prog)
    base = load_base(info.pid, prog)
    for name in ("main", "add", "leaf", "global_buf", "global_value"):
        assert debugger.lookup_symbol(name) == base + symbol_value(prog, name), name
    with pytest.raises(TargetError):
        debugger.lookup_symbol("no_such_symbol_anywhere")
    location = debugger.lookup_address(base + symbol_value(prog, "add") + 3)
    assert (location.name, location.offset) == ("add", 3)
    assert location.module is not None and Path(location.module).name == prog.name
    [main_module] = [m for m in debugger.modules() if m.is_main]
    assert Path(main_module.path).name == prog.name
    assert main_module.base == base
