"""Engine behaviours beyond the basic scenarios: terminals, fork modes, blocked programs,
single-thread resume, address-space randomisation, trap placement, AT&T syntax."""

from __future__ import annotations

import os
import signal
import struct
import threading
import time

import pytest

from aliceserver.debuggers.events import Exited, Output, ProcessStarted, Stopped, StopReason
from aliceserver.debuggers.model import CatchKind, ForkFollow, LaunchConfig, StdioMode
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.errors import AliceError, TargetError
from tests.support.build import Builder
from tests.support.events import EventLog
from tests.support.procs import read_until_seen
from tests.support.session import continue_to_exit, continue_to_stop, launch

pytestmark = pytest.mark.timeout(60)


def test_program_on_a_terminal(debugger: PtraceDebugger, events: EventLog, builder: Builder) -> None:
    master, slave = os.openpty()
    try:
        config = LaunchConfig(
            str(builder.build("engine_extras")), ("tty",), stdio=StdioMode.TTY, tty=os.ttyname(slave)
        )
        debugger.launch(config)
        assert continue_to_exit(debugger, events).code == 0
        assert b"isatty 1 1 1" in read_until_seen(master, b"isatty 1 1 1", 30)
        assert not events.of_type(Output) or "isatty" not in events.output()
    finally:
        os.close(master)
        os.close(slave)


def test_follow_fork_child(debugger: PtraceDebugger, events: EventLog, builder: Builder) -> None:
    config = LaunchConfig(str(builder.build("engine_extras")), ("fork",), follow_fork=ForkFollow.CHILD)
    parent = debugger.launch(config).pid
    debugger.insert_breakpoint(debugger.lookup_symbol("in_child"))
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    process = debugger.process
    assert process is not None and process.pid != parent and stop.thread_id == process.pid
    assert debugger.read_registers(stop.thread_id)["rdi"] == 1
    exited = continue_to_exit(debugger, events)
    assert (exited.pid, exited.code) == (process.pid, 42)
    assert [e.pid for e in events.of_type(ProcessStarted)] == [parent, process.pid]
    events.wait_output("child said 42")  # the parent ran on, untraced, and saw its child


def test_vfork_parent_keeps_its_breakpoints(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("engine_extras"), ["vfork"])
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("after_child"))
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.breakpoint_ids == (bp.id,)
    assert continue_to_exit(debugger, events).code == 5
    assert "vfork child 0" in events.output()


def test_interrupt_while_blocked_in_a_system_call(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    master, slave = os.openpty()  # input the test types, as a user at the program's terminal
    try:
        config = LaunchConfig(
            str(builder.build("engine_extras")), ("read",), stdio=StdioMode.TTY, tty=os.ttyname(slave)
        )
        debugger.launch(config)
        debugger.resume()
        time.sleep(0.3)  # it is now asleep in read(2)
        debugger.interrupt()
        stop = events.wait_for(Stopped)
        assert stop.reason is StopReason.PAUSE
        # It is still inside read: the interrupted call restarts when it runs on.
        os.write(master, b"hello\n")
        assert continue_to_exit(debugger, events).code == 0
        assert b"read 6" in read_until_seen(master, b"read 6", 30)
    finally:
        os.close(master)
        os.close(slave)


def test_resume_one_thread_only(debugger: PtraceDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("engine_extras"), ["pair"])
    bp = debugger.insert_breakpoint(debugger.lookup_symbol("tick_a"))
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    debugger.remove_breakpoint(bp.id)
    a_thread = stop.thread_id
    a_count = debugger.lookup_symbol("a_count")
    b_count = debugger.lookup_symbol("b_count")
    a_before = debugger.read_memory(a_count, 8)
    b_before = int.from_bytes(debugger.read_memory(b_count, 8), "little")
    others = [t.tid for t in debugger.threads() if t.tid != a_thread and t.name]
    b_thread = max(others)  # threads are created a then b: b has the larger tid
    debugger.resume(b_thread)
    time.sleep(0.2)
    debugger.interrupt()
    events.wait_for(Stopped, predicate=lambda s: s.reason is StopReason.PAUSE)
    assert debugger.read_memory(a_count, 8) == a_before, "thread a ran"
    assert int.from_bytes(debugger.read_memory(b_count, 8), "little") > b_before, "thread b did not run"
    debugger.kill()
    events.wait_for(Exited)


@pytest.mark.parametrize("disable_aslr", [True, False])
def test_address_space_randomisation_option(builder: Builder, disable_aslr: bool) -> None:
    bases = []
    for _ in range(3):
        debugger = PtraceDebugger()
        try:
            debugger.launch(LaunchConfig(str(builder.build("engine_extras")), disable_aslr=disable_aslr))
            bases.append(debugger.modules()[0].base)
        finally:
            debugger.close()
    if disable_aslr:
        assert len(set(bases)) == 1, bases
    else:
        assert len(set(bases)) > 1, f"three randomised launches loaded at one base {bases[0]:#x}"


def test_breakpoint_inside_an_instruction_is_refused(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("engine_extras"))
    start = debugger.lookup_symbol("main")
    long_one = next(i for i in debugger.disassemble(start, 12) if i.size > 1)
    with pytest.raises(TargetError, match="not the start of an instruction"):
        debugger.insert_breakpoint(long_one.address + 1)
    assert debugger.insert_breakpoint(long_one.address).inserted
    assert debugger.read_memory(long_one.address, long_one.size) == long_one.raw


def test_att_syntax(debugger: PtraceDebugger, builder: Builder) -> None:
    launch(debugger, builder.build("engine_extras"))
    start = debugger.lookup_symbol("main")
    intel = debugger.disassemble(start, 4)
    att = debugger.disassemble(start, 4, syntax="att")
    assert [i.address for i in intel] == [i.address for i in att]
    assert any("%" in i.operands for i in att) and not any("%" in i.operands for i in intel)
    with pytest.raises(AliceError, match="syntax"):
        debugger.disassemble(start, 1, syntax="motorola")


def test_catch_exec_stops_in_the_new_image(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    target = builder.build("exec_target")
    launch(debugger, builder.build("exec"), [str(target), "hello"])
    debugger.set_catchpoint(CatchKind.EXEC, True)
    stop = continue_to_stop(debugger, events, StopReason.EXEC)
    assert stop.description == str(target)
    main = debugger.modules()[0]
    assert main.path == str(target) and main.is_main
    # Symbols are the new image's: its main can be broken on before it runs.
    debugger.insert_breakpoint(debugger.lookup_symbol("main"))
    assert continue_to_stop(debugger, events, StopReason.BREAKPOINT).thread_id == stop.thread_id
    assert continue_to_exit(debugger, events).code == 42  # exec_target's own exit code


def test_catch_fork_stops_after_the_child_is_let_go(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    launch(debugger, builder.build("engine_extras"), ["fork"])
    debugger.set_catchpoint(CatchKind.FORK, True)
    stop = continue_to_stop(debugger, events, StopReason.FORK)
    assert stop.description.startswith("child process ")
    debugger.set_catchpoint(CatchKind.FORK, False)
    assert continue_to_exit(debugger, events).code == 0
    assert "child said 42" in events.output()


def test_write_vector_registers(debugger: PtraceDebugger, events: EventLog, builder: Builder) -> None:
    launch(debugger, builder.build("engine_extras"), ["xmm"])
    debugger.insert_breakpoint(debugger.lookup_symbol("show"))
    tid = continue_to_stop(debugger, events, StopReason.BREAKPOINT).thread_id
    assert struct.unpack("<d", debugger.read_vector_registers(tid).xmm[0][:8])[0] == 1.5
    debugger.evaluate("$xmm0.v2_double[0] = 2.75", tid)
    vectors = debugger.read_vector_registers(tid)
    assert struct.unpack("<d", vectors.xmm[0][:8])[0] == 2.75
    if vectors.ymm:  # the kernel offers AVX state: the upper half is writable too
        debugger.evaluate("$ymm1.v32_int8[31] = 7", tid)
        assert debugger.read_vector_registers(tid).ymm[1][31] == 7
    assert continue_to_exit(debugger, events).code == 0
    assert "show 2.75" in events.output()


def test_driven_from_many_threads_at_once(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    """Eight client threads use one stopped session at once: every answer is right."""
    launch(debugger, builder.build("engine_extras"), ["pair"])
    debugger.insert_breakpoint(debugger.lookup_symbol("tick_a"), temporary=True)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    expected_pc = debugger.read_registers(stop.thread_id)["rip"]
    expected_code = debugger.read_memory(expected_pc, 16)
    expected_threads = debugger.threads()
    failures: list[str] = []

    def client(index: int) -> None:
        for round_ in range(100):
            try:
                assert debugger.read_registers(stop.thread_id)["rip"] == expected_pc
                assert debugger.read_memory(expected_pc, 16) == expected_code
                assert debugger.threads() == expected_threads
                bp = debugger.insert_breakpoint(debugger.lookup_symbol("tick_b"))
                debugger.remove_breakpoint(bp.id)
            except Exception as error:  # collected: the test thread reports them
                failures.append(f"client {index}, round {round_}: {error!r}")
                return

    clients = [threading.Thread(target=client, args=(i,)) for i in range(8)]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in clients), "a client thread hung"
    assert failures == []
    assert debugger.breakpoints() == []
    debugger.kill()
    events.wait_for(Exited)


def test_wake_up_signal_pending_across_a_stop_keeps_the_step(
    debugger: PtraceDebugger, events: EventLog, builder: Builder
) -> None:
    """A command sent while the program runs wakes the tracer with a SIGSTOP; when a
    breakpoint stop wins that race the signal stays pending and stops the next step (here
    a step over the trap, whose byte is out) before it executes: the step must be taken
    again, not turned into a plain continue that loses it and the trap."""
    info = launch(debugger, builder.build("calls"), ["3"])
    main = debugger.lookup_symbol("main")
    code = debugger.disassemble(main, 200)
    call = next(i for i in code if i.mnemonic == "call" and i.target is not None
                and i.target.name == "add")  # fmt: skip
    bp = debugger.insert_breakpoint(call.address)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.address == call.address
    inferior = debugger._access.inferior  # the state the lost race leaves: a wake-up pending
    assert inferior is not None
    inferior.wake_sent = True
    os.kill(info.pid, signal.SIGSTOP)
    debugger.step_instruction(info.pid)
    stepped = events.wait_for(Stopped, timeout=10)
    assert stepped.reason is StopReason.STEP
    assert debugger.read_registers(info.pid)["rip"] == debugger.lookup_symbol("add")
    again = continue_to_stop(debugger, events, StopReason.BREAKPOINT)  # the trap is back
    assert again.breakpoint_ids == (bp.id,)
    debugger.remove_breakpoint(bp.id)
    assert continue_to_exit(debugger, events).code == 0
