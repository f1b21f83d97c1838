"""A trampoline built by patches/trampoline.py, run in a real program under the engine.

The site is in a naked asm loop made of position-independent instructions, so the displaced
bytes run unchanged in the trampoline (no relocation here). The test writes the trampoline
into an RWX page the program maps (a call through the evaluator), the `jmp rel32` at the
site, and the hit counter, ignore count and ring buffer into the same page; the engine reads
them back. Stops come from the trampoline's int3s, which the engine does not know.
"""

from __future__ import annotations

import shutil
import signal
import struct
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.debuggers.ptrace.patches.codegen import compile_code
from aliceserver.debuggers.ptrace.patches.trampoline import (
    SAVED,
    Logpoint,
    LogRecord,
    RingBuffer,
    Trampoline,
    build_trampoline,
    drain_ring,
    fs_base_readable,
    registers_from_saved_block,
)
from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc is needed to build the program"),
]

SOURCE = r"""
#include <pthread.h>
int threshold = 37;
__attribute__((naked, noinline)) long work(long n) {
    __asm__ volatile(
        "push %rbx\n"
        "push %rdi\n"
        "mov $0x1111111111, %r8\n"
        "mov $0x2222, %r9\n"
        "mov $-3, %r10\n"
        "mov %rdi, %rbx\n"
        "xor %eax, %eax\n"
        "mov %rdi, %rcx\n"
        "1:\n"
        ".globl patch_site\n"
        "patch_site:\n"
        "add %rcx, %rax\n"
        "lea 7(%rax,%rcx,2), %rdx\n"
        ".globl patch_span_end\n"
        "patch_span_end:\n"
        "xor %rdx, %r8\n"
        "add %r8, %r9\n"
        "sub $1, %rcx\n"
        "jnz 1b\n"
        ".globl after_loop\n"
        "after_loop:\n"
        "add %r9, %rax\n"
        "pop %rdi\n"
        "pop %rbx\n"
        "ret\n");
}
static void *worker(void *arg) { return (void *)work((long)arg); }
__attribute__((noinline)) void threads_done(void) { __asm__ volatile(""); }
int main(int argc, char **argv) {
    if (argc > 1 && argv[1][0] == 'r') return (int)((work(100) + work(100)) & 0x7f);
    if (argc > 1) {
        pthread_t threads[THREADS];
        for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], 0, worker, (void *)100L);
        for (int i = 0; i < THREADS; i++) pthread_join(threads[i], 0);
        threads_done();
        return 3;
    }
    return (int)(work(100) & 0x7f);
}
"""
THREADS = 4
LOOPS = 100
PAGE_HINT = 0x10000000  # within a jmp rel32 of a non-PIE program's code
HITS, IGNORE, RING = 0x8000, 0x8008, 0x9000  # data offsets in the page


def wait_stop(events: Subscription) -> Stopped:
    while True:
        event = events.get(timeout=20)
        if isinstance(event, Stopped):
            return event
        assert not isinstance(event, Exited), "the program exited early"


def wait_exit(events: Subscription) -> int | None:
    while not isinstance(event := events.get(timeout=20), Exited):
        assert not isinstance(event, Stopped), f"unexpected stop {event}"
    return event.code


@dataclass
class Run:
    debugger: PtraceDebugger
    events: Subscription
    tid: int
    site: int
    span_end: int
    page: int
    expected_exit: int

    def qword(self, offset: int) -> int:
        return int.from_bytes(self.debugger.read_memory(self.page + offset, 8), "little")

    def set_qword(self, offset: int, value: int) -> None:
        self.debugger.write_memory(self.page + offset, value.to_bytes(8, "little"))

    def install(
        self, condition: ir.Node | None, ignore: int, logpoint: Logpoint | None = None
    ) -> Trampoline:
        displaced = self.debugger.read_memory(self.site, self.span_end - self.site)
        code = None if condition is None else compile_code(condition, SAVED.offsets)
        trampoline = build_trampoline(
            address=self.page, span_end=self.span_end, displaced=displaced, condition=code,
            hit_counter=self.page + HITS, ignore_count=self.page + IGNORE, logpoint=logpoint,
        )  # fmt: skip
        self.debugger.write_memory(self.page, trampoline.code)
        self.set_qword(HITS, 0)
        self.set_qword(IGNORE, ignore)
        jump = b"\xe9" + struct.pack("<i", self.page - (self.site + 5))
        self.debugger.write_memory(self.site, jump)
        return trampoline

    def saved_registers(self) -> dict[str, int]:
        block = self.debugger.read_registers(self.tid)["rbx"]
        return registers_from_saved_block(self.debugger.read_memory(block, SAVED.size))


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    directory = tmp_path_factory.mktemp("trampoline")
    (directory / "loop.c").write_text(SOURCE)
    binary = directory / "loop"
    flags = ["-O0", "-no-pie", "-pthread", f"-DTHREADS={THREADS}"]
    subprocess.run(["gcc", *flags, "-o", str(binary), str(directory / "loop.c")], check=True)
    return binary, subprocess.run([str(binary)]).returncode


def start(program: tuple[Path, int], *, page: bool = True, args: tuple[str, ...] = ()) -> Run:
    binary, expected_exit = program
    debugger = PtraceDebugger()
    events = debugger.subscribe()
    debugger.launch(LaunchConfig(str(binary), args=args))
    debugger.insert_breakpoint(debugger.lookup_symbol("main"), temporary=True)
    debugger.resume()
    tid = wait_stop(events).thread_id
    site, span_end = debugger.lookup_symbol("patch_site"), debugger.lookup_symbol("patch_span_end")
    address = 0
    if page:
        value = debugger.evaluate(f"(long) mmap({PAGE_HINT}, 65536, 7, 0x22, -1, 0)", tid).value
        address = int(value, 0)
        assert abs(address - site) < 1 << 31, f"the page at {address:#x} is out of a jmp's reach"
    return Run(debugger, events, tid, site, span_end, address, expected_exit)


@pytest.fixture
def runs() -> Iterator[list[Run]]:
    started: list[Run] = []
    yield started
    for run in started:
        run.debugger.close()


def reg(name: str) -> ir.Node:
    return ir.Register(name)


def hits_expected(condition: ir.Node) -> int:
    """How many of the loop's passes make `condition` true (the closure back end's say)."""
    closure = ir.to_closure(condition, lambda address, size: b"")
    return sum(1 for rcx in range(1, LOOPS + 1) if closure(SimpleNamespace(rcx=rcx)))


RCX_MOD_3 = ir.Compare(
    "==", ir.Binary("%", reg("rcx"), ir.Const(3), 64, False), ir.Const(0), False, False
)
NEVER = ir.Compare("==", reg("rcx"), ir.Const(1000), False, True)


@pytest.mark.parametrize("condition", [RCX_MOD_3, NEVER], ids=["counted", "false"])
def test_hits_not_stopping_let_the_loop_finish(
    program: tuple[Path, int], runs: list[Run], condition: ir.Node
) -> None:
    run = start(program)
    runs.append(run)
    run.install(condition, ignore=1 << 62)
    run.debugger.insert_breakpoint(run.debugger.lookup_symbol("after_loop"))
    run.debugger.resume()
    wait_stop(run.events)
    assert run.qword(HITS) == hits_expected(condition)
    run.debugger.resume()
    assert wait_exit(run.events) == run.expected_exit


def reference_registers(program: tuple[Path, int], rcx: int) -> dict[str, int]:
    """The registers at the site on the pass with this rcx, through an ordinary breakpoint."""
    run = start(program, page=False)
    try:
        run.debugger.insert_breakpoint(run.site)
        while True:
            run.debugger.resume()
            values = run.debugger.read_registers(wait_stop(run.events).thread_id).values
            if values["rcx"] == rcx:
                return {name: values[name] for name in SAVED.offsets}
    finally:
        run.debugger.close()


def test_a_stop_shows_the_site_registers_and_resumes(
    program: tuple[Path, int], runs: list[Run]
) -> None:
    run = start(program)
    runs.append(run)
    trampoline = run.install(RCX_MOD_3, ignore=2)  # the third true pass stops: rcx 93
    run.debugger.resume()
    stop = wait_stop(run.events)
    assert run.debugger.read_registers(stop.thread_id)["rip"] in (
        trampoline.stop_trap,
        trampoline.stop_trap + 1,
    )
    saved = run.saved_registers()
    assert run.qword(HITS) == 3
    assert saved == reference_registers(program, 93)
    # What the engine does after a stop: the program's registers, at displaced_entry.
    run.set_qword(IGNORE, 1 << 62)  # no more stops
    for name, value in saved.items():
        run.debugger.write_register(stop.thread_id, name, value)
    run.debugger.write_register(stop.thread_id, "rip", trampoline.displaced_entry)
    run.debugger.resume()
    assert wait_exit(run.events) == run.expected_exit


def test_an_undecidable_condition_reaches_judge_trap(
    program: tuple[Path, int], runs: list[Run]
) -> None:
    run = start(program)
    runs.append(run)
    divisor = ir.Binary("-", reg("rcx"), ir.Const(40), 64, True)
    condition = ir.Compare(
        "==", ir.Binary("/", ir.Const(1), divisor, 64, True), ir.Const(7), True, True
    )
    with pytest.raises(EvaluationError):  # where the closures raise
        ir.to_closure(condition, lambda address, size: b"")(SimpleNamespace(rcx=40))
    trampoline = run.install(condition, ignore=0)
    run.debugger.resume()
    stop = wait_stop(run.events)
    assert run.debugger.read_registers(stop.thread_id)["rip"] in (
        trampoline.judge_trap,
        trampoline.judge_trap + 1,
    )
    assert run.saved_registers()["rcx"] == 40
    assert run.qword(HITS) == 0  # judged before counting
    run.debugger.write_register(stop.thread_id, "rip", trampoline.resume)  # judged false
    run.debugger.resume()
    assert wait_exit(run.events) == run.expected_exit


def drain_until(
    run: Run, ring: RingBuffer, trampoline: Trampoline, count: int
) -> tuple[list[LogRecord], int]:
    """Resume until a stop other than the ring's full trap, doing the engine's part at
    each full trap (drain the ring, the thread back to the reservation): the records read
    and the full traps met."""
    size = ring.RECORDS + ring.capacity * ring.record_size
    records: list[LogRecord] = []
    traps = 0
    while True:
        run.debugger.resume()
        stop = wait_stop(run.events)
        memory = memoryview(bytearray(run.debugger.read_memory(ring.address, size)))
        records += drain_ring(ring, memory, count)
        run.debugger.write_memory(
            ring.address + ring.TAIL, memory[ring.TAIL : ring.TAIL + 8].tobytes()
        )
        if run.debugger.read_registers(stop.thread_id)["rip"] not in (
            trampoline.ring_full,
            trampoline.ring_full + 1,
        ):
            return records, traps
        traps += 1
        run.debugger.write_register(stop.thread_id, "rip", trampoline.ring_retry)


@pytest.mark.parametrize("fs_base", [False, True], ids=["gettid", "rdfsbase"])
def test_a_logpoint_fills_the_ring_and_waits_for_the_drain(
    program: tuple[Path, int], runs: list[Run], fs_base: bool
) -> None:
    if fs_base and not fs_base_readable():
        pytest.skip("this kernel does not let programs run rdfsbase (HWCAP2_FSGSBASE)")
    run = start(program)
    runs.append(run)
    ring = RingBuffer(run.page + RING, capacity=64, values=2)
    values = [compile_code(reg("rcx"), SAVED.offsets), compile_code(reg("r9"), SAVED.offsets)]
    logpoint = Logpoint(patch_id=42, values=values, ring=ring, thread_by_fs_base=fs_base)
    trampoline = run.install(None, ignore=0, logpoint=logpoint)
    thread = run.debugger.read_registers(run.tid)["fs_base"] if fs_base else run.tid
    run.debugger.write_memory(ring.address, bytes(ring.RECORDS + ring.capacity * ring.record_size))
    run.debugger.insert_breakpoint(run.debugger.lookup_symbol("after_loop"))
    records, traps = drain_until(run, ring, trampoline, 2)
    assert traps == 1  # 64 records, then the full ring's trap, then the other 36
    assert [r.values[0] for r in records] == list(range(LOOPS, 0, -1))
    assert {(r.patch_id, r.thread_id) for r in records} == {(42, thread)}
    assert all(r.values[1] != 0 for r in records)
    assert run.qword(HITS) == LOOPS
    run.debugger.resume()
    assert wait_exit(run.events) == run.expected_exit


def test_conditions_read_the_stack_and_globals(program: tuple[Path, int], runs: list[Run]) -> None:
    run = start(program)
    runs.append(run)
    threshold = ir.Load(ir.Const(run.debugger.lookup_symbol("threshold")), 4, True)
    pushed_n = ir.Load(ir.Offset(reg("rsp"), 0), 8, True)  # work's argument, pushed last
    twice = ir.Binary("*", reg("rcx"), ir.Const(2), 64, False)
    condition = ir.Logical(
        "||",
        ir.Compare("==", reg("rcx"), threshold, False, True),
        ir.Compare("==", twice, pushed_n, False, True),
    )
    trampoline = run.install(condition, ignore=0)
    run.debugger.resume()
    stop = wait_stop(run.events)
    assert run.debugger.read_registers(stop.thread_id)["rip"] in (
        trampoline.stop_trap,
        trampoline.stop_trap + 1,
    )
    saved = run.saved_registers()
    assert saved["rcx"] == LOOPS // 2  # the first true pass, counting down
    run.set_qword(IGNORE, 1 << 62)
    for name, value in saved.items():
        run.debugger.write_register(stop.thread_id, name, value)
    run.debugger.write_register(stop.thread_id, "rip", trampoline.displaced_entry)
    run.debugger.insert_breakpoint(run.debugger.lookup_symbol("after_loop"))
    run.debugger.resume()
    wait_stop(run.events)
    threshold_value = int.from_bytes(
        run.debugger.read_memory(run.debugger.lookup_symbol("threshold"), 4), "little"
    )
    assert run.qword(HITS) == len({threshold_value, LOOPS // 2})
    run.debugger.resume()
    assert wait_exit(run.events) == run.expected_exit


def test_threads_share_the_ring(program: tuple[Path, int], runs: list[Run]) -> None:
    run = start(program, args=("threads",))
    runs.append(run)
    ring = RingBuffer(run.page + RING, capacity=256, values=1)
    values = [compile_code(reg("rcx"), SAVED.offsets)]
    trampoline = run.install(
        None, ignore=0, logpoint=Logpoint(patch_id=7, values=values, ring=ring)
    )
    run.debugger.write_memory(ring.address, bytes(ring.RECORDS + ring.capacity * ring.record_size))
    run.debugger.insert_breakpoint(run.debugger.lookup_symbol("threads_done"))
    records, traps = drain_until(run, ring, trampoline, 1)
    assert run.qword(HITS) == THREADS * LOOPS
    assert traps > 0 and len(records) == THREADS * LOOPS  # every pass, none lost
    by_thread: dict[int, list[int]] = {}
    for record in records:
        assert record.patch_id == 7
        by_thread.setdefault(record.thread_id, []).append(record.values[0])
    assert run.tid not in by_thread  # the main thread only waits
    assert len(by_thread) == THREADS
    for counts in by_thread.values():  # each thread's passes in its own order, none twice
        assert counts == list(range(LOOPS, 0, -1))
    run.debugger.resume()
    assert wait_exit(run.events) == 3


def test_the_ring_wraps_around_when_the_server_drains_it(
    program: tuple[Path, int], runs: list[Run]
) -> None:
    run = start(program, args=("repeat",))
    runs.append(run)
    ring = RingBuffer(run.page + RING, capacity=64, values=1)
    values = [compile_code(reg("rcx"), SAVED.offsets)]
    trampoline = run.install(
        None, ignore=0, logpoint=Logpoint(patch_id=1, values=values, ring=ring)
    )
    run.debugger.write_memory(ring.address, bytes(ring.RECORDS + ring.capacity * ring.record_size))
    run.debugger.insert_breakpoint(run.debugger.lookup_symbol("after_loop"))
    seen: list[int] = []
    for _ in (1, 2):
        records, traps = drain_until(run, ring, trampoline, 1)
        assert traps == 1
        seen += [record.values[0] for record in records]
    assert seen == 2 * list(range(LOOPS, 0, -1))
    run.debugger.resume()
    wait_exit(run.events)


@pytest.mark.parametrize("where", ["condition", "value"])
def test_unreadable_memory_faults_inside_the_reported_range(
    program: tuple[Path, int], runs: list[Run], where: str
) -> None:
    run = start(program)
    runs.append(run)
    unmapped = ir.Load(ir.Const(0x10), 8, False)
    if where == "condition":
        trampoline = run.install(unmapped, ignore=0)
        start_pc, end_pc = trampoline.condition_range
    else:
        ring = RingBuffer(run.page + RING, capacity=4, values=1)
        logpoint = Logpoint(patch_id=1, values=[compile_code(unmapped, SAVED.offsets)], ring=ring)
        trampoline = run.install(None, ignore=0, logpoint=logpoint)
        start_pc, end_pc = trampoline.values_range
    run.debugger.resume()
    stop = wait_stop(run.events)
    assert stop.signal == signal.SIGSEGV
    assert start_pc <= run.debugger.read_registers(stop.thread_id)["rip"] < end_pc
    # The engine judges with the general evaluator from the saved block (a crash signal is
    # passed to the program by today's engine, so the run ends here).
    assert run.saved_registers()["rcx"] == LOOPS
