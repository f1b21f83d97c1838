"""The remote backend (debuggers/remote) against the real gdbserver over TCP: threads,
registers, memory, auxv, breakpoints, steps, watchpoints, ^C and exits, each checked
against the ELF file or /proc, never against numbers written here."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from elftools.elf.elffile import ELFFile

from aliceserver.debuggers.events import Exited, StopReason
from aliceserver.debuggers.remote.errors import RemoteConnectionError
from aliceserver.debuggers.symbols.auxv import AT_BASE, AT_ENTRY
from aliceserver.debuggers.symbols.dwarf import x86_registers as x86
from aliceserver.debuggers.target import LiveProcess
from tests.support.build import Builder
from tests.support.elf import entry_point, file_bytes, load_base, symbol_size, symbol_value
from tests.support.gdbserver import connect, expect_stop, gdbserver, runtime_address

PROGRAM = "remote_target"


@pytest.fixture
def program(builder: Builder) -> Path:
    return builder.build(PROGRAM)


def _interpreter(path: Path) -> Path:
    with path.open("rb") as stream:
        for segment in ELFFile(stream).iter_segments():
            if segment["p_type"] == "PT_INTERP":
                return Path(segment.get_interp_name())
    raise LookupError(f"{path.name} has no PT_INTERP")


def _section(path: Path, name: str) -> tuple[int, int]:
    with path.open("rb") as stream:
        section = ELFFile(stream).get_section_by_name(name)
        assert section is not None
        return int(section["sh_addr"]), int(section["sh_size"])


def test_first_stop_threads_registers_and_auxv(program: Path) -> None:
    with gdbserver(program) as server:
        process = connect(server)
        try:
            assert isinstance(process, LiveProcess)
            pid = server.inferior_pid
            assert process.pid == pid
            assert process.thread_ids() == [pid]
            assert process.thread_name(pid) == PROGRAM[:15]
            stop = process.last_stop()
            assert stop is not None and stop.reason is StopReason.ENTRY and stop.thread_id == pid
            aux = process.auxv()
            # The first instruction is the dynamic loader's entry, where the kernel put it.
            loader_entry = aux[AT_BASE] + entry_point(_interpreter(program))
            registers = process.general_registers(pid)
            assert registers["rip"] == loader_entry == stop.address
            assert aux[AT_ENTRY] == load_base(pid, program) + entry_point(program)
            assert Path(process.executable()).resolve() == program.resolve()
            # A register set of the engine's names and /proc's view of the stack pointer.
            assert set(registers) >= {"rax", "rsp", "rip", "eflags", "fs_base", "orig_rax"}
            stack = Path(f"/proc/{pid}/maps").read_text()
            assert any(line.endswith("[stack]") and _inside(registers["rsp"], line)
                       for line in stack.splitlines())  # fmt: skip
            floats = process.float_registers(pid)
            assert set(floats) >= {x86.XMM0 + i for i in range(16)} | {
                x86.ST0 + i for i in range(8)
            }
            vector = process.vector_registers(pid)
            assert int.from_bytes(floats[x86.MXCSR], "little") == vector.control["mxcsr"]
            assert len(vector.xmm) == 16 and all(len(x) == 16 for x in vector.xmm)
        finally:
            process.kill()
            process.close()


def _inside(address: int, maps_line: str) -> bool:
    start, end = (int(part, 16) for part in maps_line.split()[0].split("-"))
    return start <= address < end


def test_memory_reads_and_writes_against_the_elf(program: Path) -> None:
    with gdbserver(program) as server:
        process = connect(server)
        try:
            greeting = runtime_address(server, program, "remote_greeting")
            expected = file_bytes(program, symbol_value(program, "remote_greeting"), 20)
            assert process.read_memory(greeting, 20) == expected
            # A small packet size: the same bytes (all of .text) in many packets.
            text_address, text_size = _section(program, ".text")
            base = load_base(server.inferior_pid or 0, program)
            process.client.packet_size = 64
            before = process.memory.packets
            text = process.read_memory(base + text_address, text_size)
            assert text == file_bytes(program, text_address, text_size)
            assert process.memory.packets - before >= text_size // 16
            # Binary writes with bytes the protocol escapes.
            tricky = b"#$}*\x03\x00\xff" * 2
            process.write_memory(greeting, tricky)
            assert process.read_memory(greeting, len(tricky)) == tricky
        finally:
            process.kill()
            process.close()


def test_breakpoint_step_register_write_and_exit(program: Path) -> None:
    with gdbserver(program) as server:
        process = connect(server)
        try:
            pid = server.inferior_pid
            add = runtime_address(server, program, "remote_add")
            process.insert_breakpoint(add)
            process.resume()
            stop = expect_stop(process.wait(timeout=10))
            assert (stop.reason, stop.thread_id, stop.address) == (StopReason.BREAKPOINT, pid, add)
            assert process.last_reply is not None and process.last_reply.reason == "swbreak"
            assert process.general_registers(pid)["rip"] == add
            # remote_add(2, 3): make it remote_add(40, 3), so main returns 43 + 7.
            process.set_general_register(pid, "rdi", 40)
            assert process.general_registers(pid)["rdi"] == 40
            process.step(pid)
            step = expect_stop(process.wait(timeout=10))
            assert step.reason is StopReason.STEP and step.thread_id == pid
            assert step.address == process.general_registers(pid)["rip"] != add
            assert add < step.address < add + 16  # the next instruction of remote_add
            # Stepped from under its breakpoint, which is back in: still there to remove.
            process.remove_breakpoint(add)
            process.resume()
            exited = process.wait(timeout=10)
            assert exited == Exited(pid or 0, 50)
            assert not process.live
        finally:
            process.close()


def test_hardware_watchpoint_reports_its_address(program: Path) -> None:
    with gdbserver(program) as server:
        process = connect(server)
        try:
            counter = runtime_address(server, program, "remote_counter")
            touch = runtime_address(server, program, "remote_touch")
            process.insert_watchpoint(counter, 4, "write")
            process.resume()
            stop = expect_stop(process.wait(timeout=10))
            assert stop.reason is StopReason.WATCHPOINT and stop.thread_id == server.inferior_pid
            reply = process.last_reply
            assert reply is not None and (reply.reason, reply.address) == ("watch", counter)
            assert int.from_bytes(process.read_memory(counter, 4), "little") == 7
            assert touch < (stop.address or 0) < touch + 64  # just after the store in remote_touch
            process.remove_watchpoint(counter, 4, "write")
            process.resume()
            assert process.wait(timeout=10) == Exited(server.inferior_pid or 0, 12)
        finally:
            process.close()


def test_interrupt_a_looping_program(program: Path) -> None:
    with gdbserver(program, ["spin"]) as server:
        process = connect(server)
        try:
            process.resume()
            timer = threading.Timer(0.3, process.interrupt)
            timer.start()
            try:
                stop = expect_stop(process.wait(timeout=10))
            finally:
                timer.cancel()
            assert stop.reason is StopReason.PAUSE and stop.thread_id == server.inferior_pid
            # Release the loop: the program ends as it would have.
            process.write_memory(runtime_address(server, program, "remote_spin"), bytes(4))
            process.resume()
            assert process.wait(timeout=10) == Exited(server.inferior_pid or 0, 12)
        finally:
            process.close()


def test_a_dead_gdbserver_is_a_typed_error_not_a_hang(program: Path) -> None:
    with gdbserver(program, ["spin"]) as server:
        process = connect(server)
        try:
            process.resume()
            os.kill(server.process.pid, signal.SIGKILL)
            started = time.monotonic()
            with pytest.raises(RemoteConnectionError):
                process.wait(timeout=10)
            with pytest.raises(RemoteConnectionError):
                process.client.ask(b"?")
            assert time.monotonic() - started < 5
        finally:
            process.close()


def test_threads_each_with_its_own_registers(program: Path) -> None:
    with gdbserver(program, ["threads"]) as server:
        process = connect(server)
        try:
            pid = server.inferior_pid
            ready = runtime_address(server, program, "remote_threads_ready")
            process.insert_breakpoint(ready)
            process.resume()
            stop = expect_stop(process.wait(timeout=10))
            assert (stop.reason, stop.thread_id) == (StopReason.BREAKPOINT, pid)
            tids = process.thread_ids()
            on_proc = sorted(int(entry) for entry in os.listdir(f"/proc/{pid}/task"))
            assert sorted(tids) == on_proc and len(tids) == 3 and tids[0] == pid
            # Each thread's stack pointer lies in a mapping of its own (Hg switches threads).
            stacks = {process.general_registers(tid)["rsp"] for tid in tids}
            assert len(stacks) == 3
            assert process.general_registers(pid)["rip"] == ready
            for tid in tids:
                assert process.thread_name(tid) == PROGRAM[:15]
                process.check_stopped(tid)
            process.remove_breakpoint(ready)
            process.resume()
            assert process.wait(timeout=10) == Exited(pid or 0, 12)
        finally:
            process.close()


def test_a_breakpoint_left_in_is_hit_every_time(program: Path) -> None:
    calls = 6
    with gdbserver(program, ["repeat", str(calls)]) as server:
        process = connect(server)
        try:
            add = runtime_address(server, program, "remote_add")
            process.insert_breakpoint(add)
            hits = 0
            while True:
                process.resume()  # steps past the breakpoint it stopped on, then goes on
                event = process.wait(timeout=10)
                if isinstance(event, Exited):
                    break
                assert (event.reason, event.address) == (StopReason.BREAKPOINT, add)
                hits += 1
            assert hits == 1 + calls  # main's first call, then the repeats
            assert event == Exited(server.inferior_pid or 0, 12)
        finally:
            process.close()


def test_shared_libraries_from_the_stub(program: Path) -> None:
    with gdbserver(program) as server:
        process = connect(server)
        try:
            pid = server.inferior_pid
            touch = runtime_address(server, program, "remote_touch")
            process.insert_breakpoint(touch)
            process.resume()
            expect_stop(process.wait(timeout=10))
            listed = process.libraries()
            assert listed.main_lm is not None
            # Each library's load bias is where /proc maps its file's first page.
            lowest: dict[str, int] = {}
            for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
                parts = line.split(maxsplit=5)
                if len(parts) == 6 and parts[5].startswith("/") and int(parts[2], 16) == 0:
                    start = int(parts[0].split("-")[0], 16)
                    key = os.path.realpath(parts[5])
                    lowest[key] = min(lowest.get(key, start), start)
            named = {
                os.path.realpath(library.name): library
                for library in listed.libraries
                if library.name.startswith("/")  # not the vDSO, which has no file
            }
            libc = [path for path in named if os.path.basename(path).startswith("libc")]
            assert libc, named
            for path, library in named.items():
                assert library.l_addr == lowest[path]
        finally:
            process.kill()
            process.close()


def test_a_crash_stops_and_its_signal_then_ends_the_program(program: Path) -> None:
    with gdbserver(program, ["crash"]) as server:
        process = connect(server)
        try:
            process.resume()
            stop = expect_stop(process.wait(timeout=10))
            assert (stop.reason, stop.signal, stop.signal_name) == (
                StopReason.CRASH,
                signal.SIGSEGV,
                "SIGSEGV",
            )
            assert stop.thread_id == server.inferior_pid
            main = runtime_address(server, program, "main")
            assert main <= (stop.address or 0) < main + symbol_size(program, "main")
            process.resume()  # the signal goes to the program, as under ptrace: it dies of it
            assert process.wait(timeout=10) == Exited(
                server.inferior_pid or 0, None, signal=signal.SIGSEGV, signal_name="SIGSEGV"
            )
        finally:
            process.close()


def test_our_own_traps_where_the_stub_has_no_z0(program: Path) -> None:
    calls = 3
    with gdbserver(program, ["repeat", str(calls)]) as server:
        process = connect(server)
        try:
            process.breakpoints.stub_traps = False  # as a stub that answers Z0 empty
            add = runtime_address(server, program, "remote_add")
            original = file_bytes(program, symbol_value(program, "remote_add"), 1)
            process.insert_breakpoint(add)
            assert process.read_memory(add, 1) == b"\xcc" != original  # traps show, as under ptrace
            hits = 0
            while True:
                process.resume()
                event = process.wait(timeout=10)
                if isinstance(event, Exited):
                    break
                assert (event.reason, event.address) == (StopReason.BREAKPOINT, add)
                assert process.general_registers(event.thread_id)["rip"] == add  # rewound
                hits += 1
                if hits == 1 + calls:
                    process.remove_breakpoint(add)
                    assert process.read_memory(add, 1) == original
            assert hits == 1 + calls
            assert event == Exited(server.inferior_pid or 0, 12)
        finally:
            process.close()


def test_a_range_step_runs_to_the_end_of_the_function(program: Path) -> None:
    with gdbserver(program) as server:
        process = connect(server)
        try:
            add = runtime_address(server, program, "remote_add")
            size = symbol_size(program, "remote_add")
            process.insert_breakpoint(add)
            process.resume()
            expect_stop(process.wait(timeout=10))
            process.step_range(server.inferior_pid or 0, add, add + size)
            stop = expect_stop(process.wait(timeout=10))
            assert stop.reason is StopReason.STEP
            main = runtime_address(server, program, "main")
            assert main <= (stop.address or 0) < main + symbol_size(program, "main")  # returned
        finally:
            process.kill()
            process.close()


def test_a_stub_without_vcont_gets_c_and_s(program: Path) -> None:
    with gdbserver(program) as server:
        process = connect(server)
        try:
            process.client.vcont = frozenset()  # as a stub that answers vCont? empty
            sent: list[bytes] = []
            send = process.client.connection.send
            process.client.connection.send = lambda body: (sent.append(body), send(body))[1]  # type: ignore[method-assign]
            pid = server.inferior_pid or 0
            add = runtime_address(server, program, "remote_add")
            process.insert_breakpoint(add)
            process.resume()
            assert expect_stop(process.wait(timeout=10)).address == add
            # gdbserver 13's legacy `s` lands where gdb's stepi over the same packets does
            # (in the loader's resolver, not at the next instruction): only the kind is checked.
            process.step(pid)
            step = expect_stop(process.wait(timeout=10))
            assert (
                step.reason is StopReason.STEP
                and step.address == process.general_registers(pid)["rip"]
            )
            process.remove_breakpoint(add)
            process.resume()
            assert process.wait(timeout=10) == Exited(pid, 12)
            resumes = [body for body in sent if body[:1] in (b"c", b"s", b"v")]
            assert resumes and not any(body.startswith(b"vCont") for body in resumes)
            assert b"s" in resumes and b"c" in resumes
        finally:
            process.close()
