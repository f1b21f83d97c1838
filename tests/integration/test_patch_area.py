"""Jump patches on a real program: a patch area mapped by system calls run in the stopped
program, sites planned and refused, and a jump written, run and taken out again.

The program has threads blocked in system calls (a sleep, a read of a pipe) while the
debugger runs its own calls on the leader; they must come back from them unharmed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest
from elftools.elf.elffile import ELFFile
from elftools.elf.sections import SymbolTableSection

from aliceserver.debuggers.core.procfs import parse_maps
from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.patches import area as area_module
from aliceserver.debuggers.ptrace.patches import inject, shared_memory
from aliceserver.debuggers.ptrace.patches.area import PatchArea, map_patch_area
from aliceserver.debuggers.ptrace.patches.install import jump_bytes
from aliceserver.debuggers.ptrace.patches.sites import Refusal, SitePlan, plan_site
from aliceserver.errors import TargetError

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the program"),
]

T = TypeVar("T")

SOURCE = r"""
#include <pthread.h>
#include <unistd.h>

int pipe_fds[2];
volatile int go;
volatile long *shared;     /* the test points it into the patch area's data */
long seen_shared = -1, result = -1, jumpy_result = -1;

__attribute__((naked, noinline)) long patched(void) {
    __asm__ volatile("mov $1, %eax\n"      /* 5 bytes: the span of a patch here */
                     "add $2, %rax\n"
                     "ret\n");
}
__attribute__((naked, noinline)) long jumpy(void) {
    __asm__ volatile("xor %eax, %eax\n"    /* 2 bytes, then a loop head 2 bytes in */
                     "1: inc %rax\n"
                     "cmp $3, %rax\n"
                     "jl 1b\n"
                     "ret\n");
}
__attribute__((naked, noinline)) long tiny(void) {
    __asm__ volatile("xor %eax, %eax\n"
                     "ret\n");
}
__attribute__((naked, noinline)) long two_step(void) {
    __asm__ volatile("xor %eax, %eax\n"    /* a thread stopped after this is inside a span */
                     "inc %rax\n"
                     "ret\n");
}

static void *sleeper(void *arg) { while (!go) usleep(1000); return arg; }
static void *reader(void *arg) {
    char c = 0;
    long n = read(pipe_fds[0], &c, 1);
    return (void *)(long)(n == 1 && c == 'x');
}
__attribute__((noinline)) void stop_here(void) { __asm__ volatile("" ::: "memory"); }
__attribute__((noinline)) void done(void) { __asm__ volatile("" ::: "memory"); }

int main(void) {
    pthread_t a, b;
    void *read_ok = 0;
    if (pipe(pipe_fds) != 0) return 2;
    pthread_create(&a, 0, sleeper, 0);
    pthread_create(&b, 0, reader, 0);
    usleep(50000);                       /* let them block in their system calls */
    stop_here();
    if (shared) { seen_shared = shared[0]; shared[1] = 0x5eed; }
    result = patched();
    jumpy_result = jumpy() + tiny() + two_step();
    stop_here();
    go = 1;
    if (write(pipe_fds[1], "x", 1) != 1) return 4;
    pthread_join(a, 0);
    pthread_join(b, &read_ok);
    done();
    return read_ok ? 0 : 3;
}
"""


@dataclass
class Session:
    debugger: PtraceDebugger
    events: Subscription
    program: Path
    pid: int

    def on_tracer(self, fn: Callable[[Inferior], T]) -> T:
        inferior = self.debugger._access.inferior
        assert inferior is not None
        return self.debugger._call(lambda: fn(inferior))

    def run_to(self, name: str) -> Stopped:
        self.debugger.insert_breakpoint(self.debugger.lookup_symbol(name), temporary=True)
        self.debugger.resume()
        while True:
            event = self.events.get(timeout=10)
            assert not isinstance(event, Exited), "the program exited early"
            if isinstance(event, Stopped):
                assert event.reason is StopReason.BREAKPOINT, event
                return event

    def finish(self) -> int | None:
        self.debugger.resume()
        while not isinstance(event := self.events.get(timeout=10), Exited):
            pass
        return event.code

    def function(self, name: str) -> tuple[int, bytes]:
        """The function's runtime address and its bytes as the program has them."""
        with self.program.open("rb") as f:
            symtab = ELFFile(f).get_section_by_name(".symtab")
            assert isinstance(symtab, SymbolTableSection)
            symbols = symtab.get_symbol_by_name(name)
        assert symbols, name
        symbol = symbols[0]
        address = self.debugger.lookup_symbol(name)
        return address, self.debugger.read_memory(address, symbol["st_size"])

    def raw(self, address: int, size: int) -> bytes:
        with open(f"/proc/{self.pid}/mem", "rb") as mem:
            mem.seek(address)
            return mem.read(size)


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("patches")
    source = directory / "patches.c"
    source.write_text(SOURCE)
    binary = directory / "patches"
    subprocess.run(["gcc", "-g", "-O0", "-pthread", "-o", str(binary), str(source)], check=True)
    return binary


@pytest.fixture
def session(program: Path) -> Iterator[Session]:
    debugger = PtraceDebugger()
    events = debugger.subscribe()
    try:
        info = debugger.launch(LaunchConfig(str(program)))
        yield Session(debugger, events, program, info.pid)
    finally:
        debugger.close()


def fd_table(pid: int) -> dict[str, str]:
    fds = f"/proc/{pid}/fd"
    return {name: os.readlink(f"{fds}/{name}") for name in os.listdir(fds)}


def all_registers(s: Session) -> dict[int, dict[str, int]]:
    return {t.tid: dict(s.debugger.read_registers(t.tid).values) for t in s.debugger.threads()}


def test_area_is_mapped_near_the_module_and_shared_with_the_server(session: Session) -> None:
    s = session
    s.run_to("stop_here")
    assert len(s.debugger.threads()) == 3
    registers, fds = all_registers(s), fd_table(s.pid)
    main = s.debugger.lookup_symbol("main")
    area: PatchArea = s.on_tracer(lambda inferior: map_patch_area(inferior, main))
    assert all_registers(s) == registers
    assert fd_table(s.pid) == fds
    assert abs(area.code_address - main) < 1 << 31
    assert abs(area.data_address + area.data_size - main) < 1 << 31
    with open(f"/proc/{s.pid}/maps", encoding="utf-8") as f:
        maps = {m.start: m for m in parse_maps(f.read())}
    code, data = maps[area.code_address], maps[area.data_address]
    assert (code.end - code.start, code.permissions) == (area.code_size, "r-xp")
    assert (data.end - data.start, data.permissions) == (area.data_size, "rw-s")
    assert data.path.startswith("/memfd:" + shared_memory.MEMFD_NAME)
    # The server writes, the program reads, and the other way round.
    offset = area.alloc_data(16, 16)
    area.data[offset : offset + 8] = (0x1234_5678_9ABC).to_bytes(8, "little")
    shared = s.debugger.lookup_symbol("shared")
    s.debugger.write_memory(shared, (area.data_address + offset).to_bytes(8, "little"))
    s.run_to("done")
    seen = s.debugger.read_memory(s.debugger.lookup_symbol("seen_shared"), 8)
    assert int.from_bytes(seen, "little") == 0x1234_5678_9ABC
    assert int.from_bytes(area.data[offset + 8 : offset + 16], "little") == 0x5EED
    # Both threads came back from their interrupted system calls as they should.
    assert s.finish() == 0
    area.discard()


def test_sites_are_refused_where_a_jump_cannot_go(session: Session) -> None:
    s = session
    s.run_to("stop_here")
    start, code = s.function("jumpy")
    refusal = plan_site(code, start, start)
    assert isinstance(refusal, Refusal)
    assert f"jumps to {start + 2:#x}" in refusal.reason
    # Past the loop's head the span is whole and nothing lands inside it.
    assert isinstance(plan_site(code, start, start + 2), SitePlan)
    start, code = s.function("tiny")
    refusal = plan_site(code, start, start)
    assert isinstance(refusal, Refusal) and f"ends (ret at {start + 2:#x})" in refusal.reason
    start, code = s.function("patched")
    plan = plan_site(code, start, start)
    assert isinstance(plan, SitePlan)
    assert (plan.address, len(plan.original)) == (start, 5)
    assert plan.instructions[0].text == "mov eax, 1"
    assert s.finish() == 0


def test_a_jump_runs_code_in_the_area_and_comes_out_exactly(session: Session) -> None:
    s = session
    s.run_to("stop_here")
    start, code = s.function("patched")
    plan = plan_site(code, start, start)
    assert isinstance(plan, SitePlan)
    before = s.raw(start, 16)
    area: PatchArea = s.on_tracer(lambda inferior: map_patch_area(inferior, start))
    # In place of `mov eax, 1`: `mov eax, 41`, then back to the `add rax, 2` after the span.
    blob_address = area.alloc_code(16)
    blob = b"\xb8\x29\x00\x00\x00" + jump_bytes(blob_address + 5, plan.end)
    s.debugger.write_memory(blob_address, blob)
    table = s.debugger._access.patches
    trap = s.debugger.insert_breakpoint(start)
    with pytest.raises(TargetError, match="breakpoint's trap"):
        s.on_tracer(lambda inferior: table.install(inferior, plan, blob_address))
    s.debugger.remove_breakpoint(trap.id)
    s.on_tracer(lambda inferior: table.install(inferior, plan, blob_address))
    assert s.raw(start, 5) == jump_bytes(start, blob_address)
    assert s.debugger.read_memory(start, 16) == before  # the engine shows the program's bytes
    assert s.debugger.read_memory(start + 2, 2) == before[2:4]
    with pytest.raises(TargetError, match="a jump patch at"):
        s.debugger.write_memory(start + 4, b"\x90")
    s.run_to("done")
    assert (
        int.from_bytes(s.debugger.read_memory(s.debugger.lookup_symbol("result"), 8), "little")
        == 43
    )
    s.on_tracer(lambda inferior: table.remove(inferior, start))
    assert s.raw(start, 16) == before
    assert len(table) == 0
    s.on_tracer(lambda inferior: area.free_code(blob_address, 16))
    assert s.raw(blob_address, 16) == b"\xcc" * 16 and area.alloc_code(16) == blob_address
    assert s.finish() == 0
    area.discard()


def test_install_refuses_a_span_a_thread_is_stopped_inside(session: Session) -> None:
    s = session
    start, code = s.function("two_step")
    s.debugger.insert_breakpoint(start + 2, temporary=True)  # after `xor eax, eax`
    s.debugger.resume()
    stop = s.events.get(timeout=10)
    while not isinstance(stop, Stopped):
        stop = s.events.get(timeout=10)
    assert stop.address == start + 2
    plan = plan_site(code, start, start)
    assert isinstance(plan, SitePlan) and plan.end > start + 2
    area: PatchArea = s.on_tracer(lambda inferior: map_patch_area(inferior, start))
    table = s.debugger._access.patches
    target = area.alloc_code(16)
    before = s.raw(start, len(plan.original))
    with pytest.raises(TargetError, match="inside"):
        s.on_tracer(lambda inferior: table.install(inferior, plan, target))
    assert s.raw(start, len(plan.original)) == before and len(table) == 0
    assert s.finish() == 0
    area.discard()


def test_without_a_vdso_or_memfd_create_and_the_area_goes_away(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    s = session
    stop = s.run_to("stop_here")
    monkeypatch.setattr(inject, "vdso_syscall", lambda pid, memory: None)
    monkeypatch.setattr(shared_memory, "SYS_MEMFD_CREATE", 0x7FFF)  # no such call: ENOSYS
    pc = s.debugger.read_registers(stop.thread_id).values["rip"]
    # A place taken meanwhile (here: the program's own code) is passed over for the next.
    placements = area_module.placements
    monkeypatch.setattr(area_module, "placements", lambda *args: [pc & ~0xFFF, *placements(*args)])
    code_at_pc, registers, fds = s.raw(pc, 16), all_registers(s), fd_table(s.pid)
    area: PatchArea = s.on_tracer(lambda inferior: map_patch_area(inferior, pc))
    assert s.raw(pc, 16) == code_at_pc  # the `syscall` written there is gone again
    assert area.code_address != pc & ~0xFFF
    assert all_registers(s) == registers and fd_table(s.pid) == fds
    # The server's memfd, opened by the program: shared all the same.
    offset = area.alloc_data(8)
    area.data[offset : offset + 8] = (0x77).to_bytes(8, "little")
    assert s.raw(area.data_address + offset, 8) == (0x77).to_bytes(8, "little")
    s.on_tracer(lambda inferior: area.unmap())
    with open(f"/proc/{s.pid}/maps", encoding="utf-8") as f:
        left = [m for m in parse_maps(f.read()) if m.start < area.data_address + area.data_size]
    assert not [m for m in left if m.end > area.code_address]
    assert area.data.closed
    assert all_registers(s) == registers and fd_table(s.pid) == fds
    assert s.finish() == 0


def test_a_thread_at_a_system_calls_entry_keeps_its_call(session: Session) -> None:
    s = session
    s.debugger.set_catch_events(syscalls=frozenset({1}), signals=frozenset(), gate=None)  # write
    s.debugger.resume()
    while not isinstance(stop := s.events.get(timeout=10), Stopped):
        pass
    assert stop.reason is StopReason.SYSCALL_ENTRY and stop.thread_id == s.pid
    registers = all_registers(s)
    area: PatchArea = s.on_tracer(lambda inferior: map_patch_area(inferior, stop.address or 0))
    assert all_registers(s) == registers
    s.debugger.set_catch_events(syscalls=None, signals=frozenset(), gate=None)
    assert s.finish() == 0  # the write reached the reader: the call was not lost
    area.discard()
