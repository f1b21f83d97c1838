"""FakeDebugger: the scripted backend adapter tests run against."""

from __future__ import annotations

import errno
import queue
import signal

import pytest

from aliceserver.debuggers import events as ev
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import LaunchConfig, SignalPolicy, ThreadState, WatchKind
from aliceserver.errors import TargetError
from tests.support.fake_debugger import FakeDebugger
from tests.support.fake_program import CODE_BASE, NOP4, FakeInstruction, FakeProgram

I = FakeInstruction  # noqa: E741
MAIN = CODE_BASE
HELPER = CODE_BASE + 4 * 7  # in FakeProgram.default()
COUNTER = 0x404000
PID = 4242


class Recorded(FakeDebugger):
    """A fake whose every event, from its making on, `drain` reads."""

    def __init__(self, program: FakeProgram | None = None) -> None:
        super().__init__(program)
        self.seen = self.subscribe()


def drain(fake: Recorded) -> list[ev.Event]:
    events = []
    while True:
        try:
            events.append(fake.seen.get_nowait())
        except queue.Empty:
            return events


def launched(program: FakeProgram | None = None, *, stop_on_entry: bool = False) -> Recorded:
    fake = Recorded(program)
    fake.launch(LaunchConfig(program="/bin/prog", stop_on_entry=stop_on_entry))
    drain(fake)
    return fake


def stops(events: list[ev.Event]) -> list[ev.Stopped]:
    return [event for event in events if isinstance(event, ev.Stopped)]


def test_satisfies_the_protocol() -> None:
    fake = Recorded()
    assert isinstance(fake, IDebugger)
    public = [name for name in dir(IDebugger) if not name.startswith("_")]
    assert public and all(hasattr(fake, name) for name in public)


def test_launch_holds_the_program_at_entry() -> None:
    fake = Recorded()
    info = fake.launch(LaunchConfig(program="/bin/prog"))
    assert (info.pid, info.program, info.attached) == (PID, "/bin/prog", False)
    assert fake.process == info
    events = drain(fake)
    assert events[0] == ev.ProcessStarted(PID, "/bin/prog", False)
    assert isinstance(events[1], ev.ModuleLoaded) and events[1].module.is_main
    assert events[2:] == [ev.ThreadStarted(PID)]
    assert not fake.is_running()
    assert fake.read_registers(PID)["rip"] == MAIN
    assert fake.modules()[0].low == CODE_BASE


def test_default_program_runs_waits_and_exits() -> None:
    fake = launched()
    fake.resume()
    assert drain(fake) == [ev.Continued(None), ev.Output("stdout", "hello\n")]
    assert fake.is_running()  # waiting at the blocking instruction
    assert fake.threads()[0].state is ThreadState.RUNNING
    assert fake.threads()[0].pc is None
    fake.interrupt()
    assert drain(fake) == [ev.Stopped(ev.StopReason.PAUSE, PID, address=MAIN + 16)]
    fake.interrupt()  # already stopped: nothing happens
    assert drain(fake) == []
    fake.resume()
    assert drain(fake) == [ev.Continued(None), ev.ThreadExited(PID), ev.Exited(PID, 3)]
    assert fake.process is None
    with pytest.raises(TargetError):
        fake.read_memory(COUNTER, 4)


def test_stop_on_entry() -> None:
    fake = launched(stop_on_entry=True)
    fake.resume()
    assert drain(fake) == [ev.Continued(None), ev.Stopped(ev.StopReason.ENTRY, PID, address=MAIN)]


def test_breakpoint_stop_backtrace_and_hit_count() -> None:
    fake = launched()
    bp = fake.insert_breakpoint(fake.lookup_symbol("helper"))
    assert (bp.address, bp.hit_count, bp.enabled, bp.temporary) == (HELPER, 0, True, False)
    fake.resume()
    assert stops(drain(fake)) == [
        ev.Stopped(ev.StopReason.BREAKPOINT, PID, breakpoint_ids=(bp.id,), address=HELPER)
    ]
    assert fake.breakpoints()[0].hit_count == 1
    frames = fake.backtrace(PID)
    assert [(f.level, f.symbol.name, f.symbol.offset) for f in frames] == [
        (0, "helper", 0),
        (1, "main", 12),  # the return address, after `call helper`
    ]
    assert frames[0].sp < frames[1].sp
    assert fake.read_memory(frames[0].sp + 8, 8) == (MAIN + 12).to_bytes(8, "little")
    assert fake.backtrace(PID, limit=1) == frames[:1]


def test_condition_false_counts_the_hit_without_stopping() -> None:
    program = FakeProgram(
        (I(function="main"), I(call="f"), I(call="f"), I(ret=True), I(function="f"), I(ret=True))
    )
    fake = launched(program)
    seen: list[int] = []

    def second_time(tid: int) -> bool:
        seen.append(tid)
        return len(seen) == 2

    bp = fake.insert_breakpoint(fake.lookup_symbol("f"), condition=second_time)
    fake.resume()
    assert [s.reason for s in stops(drain(fake))] == [ev.StopReason.BREAKPOINT]
    assert seen == [PID, PID]
    assert fake.breakpoints() == [bp.__class__(bp.id, bp.address, True, False, 2, True)]


def test_failing_condition_stops() -> None:
    fake = launched()

    def broken(tid: int) -> bool:
        raise ZeroDivisionError

    fake.insert_breakpoint(HELPER, condition=broken)
    fake.resume()
    assert stops(drain(fake))[0].reason is ev.StopReason.BREAKPOINT


def test_temporary_disabled_and_shared_breakpoints() -> None:
    fake = launched()
    temporary = fake.insert_breakpoint(HELPER, temporary=True)
    plain = fake.insert_breakpoint(HELPER)
    disabled = fake.insert_breakpoint(HELPER, enabled=False)
    fake.resume()
    events = drain(fake)
    assert stops(events)[0].breakpoint_ids == (temporary.id, plain.id)
    removed = [e for e in events if isinstance(e, ev.BreakpointChanged)]
    assert [(e.breakpoint.id, e.removed) for e in removed] == [(temporary.id, True)]
    assert {bp.id for bp in fake.breakpoints()} == {plain.id, disabled.id}
    assert fake.enable_breakpoint(disabled.id, True).enabled
    fake.remove_breakpoint(plain.id)
    with pytest.raises(TargetError):
        fake.remove_breakpoint(plain.id)
    with pytest.raises(TargetError):
        fake.enable_breakpoint(999, True)


def test_step_instruction_into_and_out_of_a_call() -> None:
    fake = launched()
    addresses = []
    for _ in range(4):
        fake.step_instruction(PID)
        events = drain(fake)
        assert events[0] == ev.Continued(PID, all_threads=False)
        assert stops(events)[-1].reason is ev.StopReason.STEP
        addresses.append(fake.read_registers(PID)["rip"])
    assert addresses == [MAIN + 4, MAIN + 8, HELPER, HELPER + 4]
    fake.step_instruction(PID)  # the store to counter
    fake.step_instruction(PID)  # ret
    drain(fake)
    assert fake.read_registers(PID)["rip"] == MAIN + 12
    assert len(fake.backtrace(PID)) == 1
    assert fake.read_memory(COUNTER, 4) == b"\x01\x00\x00\x00"


def test_step_off_the_end_exits() -> None:
    fake = launched(FakeProgram((I(function="main"),), exit_code=7))
    fake.step_instruction(PID)
    assert drain(fake)[-1] == ev.Exited(PID, 7)


def test_watchpoint_reports_old_and_new_value() -> None:
    fake = launched()
    wp = fake.insert_watchpoint(COUNTER, 4, WatchKind.WRITE)
    assert wp.value == bytes(4)
    fake.resume()
    (stop,) = stops(drain(fake))
    assert stop.reason is ev.StopReason.WATCHPOINT
    assert stop.breakpoint_ids == (wp.id,)
    assert (stop.watch_old, stop.watch_new) == (bytes(4), b"\x01\x00\x00\x00")
    assert stop.address == HELPER + 8  # after the storing instruction
    assert fake.watchpoints()[0].hit_count == 1
    fake.remove_watchpoint(wp.id)
    with pytest.raises(TargetError):
        fake.remove_watchpoint(wp.id)


def test_watchpoint_limits() -> None:
    fake = launched()
    with pytest.raises(TargetError):
        fake.insert_watchpoint(COUNTER + 1, 4, WatchKind.WRITE)  # misaligned
    with pytest.raises(TargetError):
        fake.insert_watchpoint(COUNTER, 3, WatchKind.WRITE)
    for n in range(4):
        fake.insert_watchpoint(COUNTER + 4 * n, 4, WatchKind.READ_WRITE)
    with pytest.raises(TargetError) as error:
        fake.insert_watchpoint(COUNTER, 1, WatchKind.WRITE)
    assert error.value.errno == errno.ENOSPC


def test_crash_and_stack_overflow() -> None:
    fake = launched(FakeProgram((I(function="main"), I(fault=True))))
    fake.resume()
    (stop,) = stops(drain(fake))
    assert stop.reason is ev.StopReason.CRASH
    assert (stop.signal, stop.address) == (signal.SIGSEGV, MAIN + 4)
    assert stop.fault is not None and stop.fault.address == 0
    fake.resume()  # the fault repeats, like a real one
    assert stops(drain(fake))[0].reason is ev.StopReason.CRASH

    recursive = launched(FakeProgram((I(function="f"), I(call="f"))))
    recursive.resume()
    (stop,) = stops(drain(recursive))
    assert stop.reason is ev.StopReason.CRASH
    assert len(recursive.backtrace(PID, limit=10_000)) > 1000
    assert len(recursive.backtrace(PID)) == 256


def test_memory() -> None:
    fake = launched()
    assert fake.read_memory(MAIN, 8) == NOP4 * 2
    fake.write_memory(COUNTER + 8, b"\xaa\xbb")
    assert fake.read_memory(COUNTER + 7, 4) == b"\x00\xaa\xbb\x00"
    for address, size in [(0, 1), (CODE_BASE - 1, 2), (COUNTER + 15, 2)]:
        with pytest.raises(TargetError) as error:
            fake.read_memory(address, size)
        assert error.value.errno == errno.EIO and error.value.pid == PID
    with pytest.raises(TargetError):
        fake.write_memory(0x10, b"x")
    with pytest.raises(TargetError):
        fake.insert_breakpoint(0x10)


def test_operations_without_a_process() -> None:
    fake = Recorded()
    assert fake.process is None and fake.threads() == [] and fake.modules() == []
    for call in (
        lambda: fake.resume(),
        lambda: fake.step_instruction(PID),
        lambda: fake.interrupt(),
        lambda: fake.kill(),
        lambda: fake.detach(),
        lambda: fake.read_registers(PID),
        lambda: fake.insert_breakpoint(MAIN),
        lambda: fake.insert_watchpoint(COUNTER, 4, WatchKind.WRITE),
        lambda: fake.backtrace(PID),
        lambda: fake.disassemble(MAIN, 1),
    ):
        with pytest.raises(TargetError):
            call()
    fake.close()  # nothing to close: fine


def test_operations_while_running() -> None:
    fake = launched()
    fake.resume()
    assert fake.is_running()
    for call in (
        lambda: fake.resume(),
        lambda: fake.step_instruction(PID),
        lambda: fake.read_registers(PID),
        lambda: fake.write_register(PID, "rax", 1),
        lambda: fake.backtrace(PID),
    ):
        with pytest.raises(TargetError):
            call()
    fake.insert_breakpoint(MAIN + 20)  # breakpoints may change while it runs
    fake.interrupt()
    fake.resume()
    assert stops(drain(fake))[-1].address == MAIN + 20


def test_threads_and_resuming_one_thread() -> None:
    default = FakeProgram.default()
    fake = Recorded(FakeProgram(default.instructions, threads=3, data=default.data))
    fake.launch(LaunchConfig(program="/usr/bin/some-very-long-program-name"))
    events = drain(fake)
    assert [e for e in events if isinstance(e, ev.ThreadStarted)] == [
        ev.ThreadStarted(PID + n) for n in range(3)
    ]
    threads = fake.threads()
    assert [t.tid for t in threads] == [PID, PID + 1, PID + 2]
    assert threads[0].name == "some-very-long-"  # 15 characters, like the kernel's comm
    assert {t.state for t in threads} == {ThreadState.STOPPED}
    fake.step_instruction(PID + 1)
    assert fake.read_registers(PID + 1)["rip"] == MAIN + 4
    assert fake.read_registers(PID)["rip"] == MAIN
    drain(fake)
    fake.resume(PID + 2)
    assert drain(fake)[0] == ev.Continued(PID + 2, all_threads=False)
    with pytest.raises(TargetError):
        fake.read_registers(PID + 7)
    fake.kill()
    events = drain(fake)
    assert events[-1] == ev.Exited(PID, None, signal.SIGKILL, "SIGKILL")
    assert events[:-1] == [ev.ThreadExited(PID + n) for n in range(3)]


def test_kill_then_launch_again_starts_fresh() -> None:
    fake = launched()
    fake.insert_breakpoint(HELPER)
    fake.write_memory(COUNTER, b"\x09")
    fake.kill()
    fake.launch(LaunchConfig(program="/bin/prog"))
    assert fake.breakpoints() == []
    assert fake.read_memory(COUNTER, 1) == b"\x00"
    with pytest.raises(TargetError):
        fake.launch(LaunchConfig(program="/bin/prog"))  # one process at a time


def test_missing_program() -> None:
    fake = Recorded(FakeProgram((I(),), path="/bin/prog"))
    with pytest.raises(TargetError) as error:
        fake.launch(LaunchConfig(program="/bin/other"))
    assert error.value.errno == errno.ENOENT
    assert fake.launch(LaunchConfig(program="/bin/prog")).pid == PID


def test_attach_stops_and_close_detaches() -> None:
    fake = Recorded()
    info = fake.attach(999)
    assert info.attached and info.pid == 999
    events = drain(fake)
    assert events[0] == ev.ProcessStarted(999, "fake", True)
    assert events[-1] == ev.Stopped(ev.StopReason.PAUSE, 999, address=MAIN)
    fake.close()
    assert fake.process is None
    assert drain(fake) == []  # detached, not killed: no exit
    with pytest.raises(TargetError):
        fake.attach(0)


def test_close_kills_a_launched_process() -> None:
    fake = launched()
    fake.close()
    assert isinstance(drain(fake)[-1], ev.Exited)
    fake.close()


def test_registers() -> None:
    fake = launched()
    regs = fake.read_registers(PID)
    assert {"rip", "rsp", "rbp", "rax", "eflags", "fs_base", "orig_rax"} <= set(regs.values)
    fake.write_register(PID, "rax", -1)
    assert fake.read_registers(PID)["rax"] == 2**64 - 1
    fake.write_register(PID, "rip", HELPER + 4)
    fake.step_instruction(PID)
    assert fake.read_memory(COUNTER, 1) == b"\x01"
    for name, value in [("xyz", 0), ("rip", 0x10), ("rip", MAIN + 2)]:
        with pytest.raises(TargetError):
            fake.write_register(PID, name, value)
    with pytest.raises(TargetError):
        fake.read_registers(PID + 1)
    vector = fake.read_vector_registers(PID)
    assert len(vector.xmm) == 16 and vector.control["mxcsr"] == 0x1F80


def test_signal_policies() -> None:
    fake = Recorded()
    assert fake.signal_policy(signal.SIGINT).pass_to_program is False
    assert fake.signal_policy(signal.SIGCHLD).stop is False
    assert fake.signal_policy(signal.SIGSEGV) == SignalPolicy()
    quiet = SignalPolicy(stop=False, pass_to_program=True, print_=False)
    fake.set_signal_policy(signal.SIGUSR1, quiet)
    assert fake.signal_policy(signal.SIGUSR1) == quiet
    with pytest.raises(TargetError):
        fake.signal_policy(0)


def test_symbols_and_disassembly() -> None:
    fake = launched()
    assert fake.lookup_symbol("main") == MAIN
    assert fake.lookup_symbol("counter") == COUNTER
    with pytest.raises(TargetError):
        fake.lookup_symbol("nope")
    where = fake.lookup_address(HELPER + 5)
    assert (where.name, where.offset, where.module) == ("helper", 5, "/bin/prog")
    assert fake.lookup_address(COUNTER).name == "counter"
    assert fake.lookup_address(0x10).name is None
    listing = fake.disassemble(MAIN + 8, 3)
    assert [(i.address, i.mnemonic) for i in listing] == [
        (MAIN + 8, "call"),
        (MAIN + 12, "nop"),
        (MAIN + 16, "nop"),
    ]
    assert listing[0].target is not None and listing[0].target.name == "helper"
    assert listing[0].operands == hex(HELPER) and listing[0].raw == NOP4
    assert fake.disassemble(HELPER + 8, 10)[-1].mnemonic == "ret"
    assert len(fake.disassemble(HELPER + 8, 10)) == 1  # the program ends there
    with pytest.raises(TargetError):
        fake.disassemble(0x10, 1)


def test_posted_events_and_determinism() -> None:
    def session() -> list[ev.Event]:
        fake = launched()
        fake.insert_breakpoint(HELPER)
        fake.resume()
        fake.step_instruction(PID)
        fake.resume()
        fake.interrupt()
        fake.resume()
        fake.post(ev.Output("console", "done"))
        return drain(fake)

    first = session()
    assert first == session()
    assert first[-1] == ev.Output("console", "done")


def test_unknown_call_target_is_rejected() -> None:
    with pytest.raises(ValueError):
        FakeDebugger(FakeProgram((I(call="nowhere"),)))
