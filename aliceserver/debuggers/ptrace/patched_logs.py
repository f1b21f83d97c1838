"""Logpoints judged in the program: a dprintf whose values all compile to machine code at
its address writes them as a record to the ring of its patch area's data (trampoline.py's
Logpoint and RingBuffer: one ring per area, each record naming its patch, so that the
messages of several logpoints keep the order the program wrote them in) and the program
goes on without stopping.

The server reads the rings through its own mapping of the data area: a drainer thread
every few milliseconds while the program runs, and the tracer thread at every reported
stop and before the process's exit is reported (patched_breakpoints.py calls `drain`), so
every message reaches the front ends, in the order the program reserved the records, before
the stop or exit that follows it. Each record is rendered by the front end's own formatting
(LogSpec.render: gdb's printf for a dprintf). No message is lost, as none is at gdb's
dprintf: a thread finding the ring full traps (Trampoline.ring_full), the tracer drains the
ring and the thread reserves its record again. The drain stops at the first record still
being written; its thread, if stopped (scheduler-locking resumes one thread alone), would
hold the ring full for good and the trapping thread retry forever: such threads are
single-stepped to the end of their record first (`finish_records`), inside our own code.

A front end's gate offers a logpoint by `logged()` (adapters/mi: a dprintf of integer,
pointer and C string conversions). A `%s` needs the string's bytes, gone by the time the
record is read: the trampoline copies them into the record's string slot (up to
RingBuffer.STRING_BYTES with the NUL; a longer string has that hit printed at the trap,
whole, as gdb's dprintf prints it; a null pointer copies nothing and prints "(null)").
"""

from __future__ import annotations

import functools
import logging
import mmap
import signal as sig
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.events import Output
from aliceserver.debuggers.logpoints import LogSpec
from aliceserver.debuggers.ptrace.conditions import ExpressionCondition
from aliceserver.errors import AliceError

# The trampoline's ring (trampoline.py) is imported with the first logpoint's patch.
if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.patches.area import PatchArea
    from aliceserver.debuggers.ptrace.patches.trampoline import RingBuffer, Trampoline
    from aliceserver.debuggers.ptrace.tracee import Tracee
    from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir

log = logging.getLogger(__name__)

RING_BYTES: Final = 8 * 1024 * 1024  # an area's ring at most (memfd pages: touched as used)
DATA_SIZE: Final = 9 * 1024 * 1024  # a breakpoint patch area's data region: its ring, counters
POLL_SECONDS: Final = 0.003
SLOTS: Final = 6  # values a record holds: a logpoint of more keeps its trap
STRING_SLOTS: Final = 2  # C strings (%s) a record holds, RingBuffer.STRING_BYTES each
SMALLEST_RING: Final = 256  # records
_RECORD_STEPS: Final = 64  # a record's writing is a few dozen instructions, with no loop


def value_nodes(spec: LogSpec, address: int) -> list[ir.Node] | str | None:
    """The values' IR at `address`; None when some are not compiled there yet, or why
    they cannot be."""
    if len(spec.values) > SLOTS:
        return f"a logpoint of more than {SLOTS} values is not recorded in the program"
    if len(spec.strings) > STRING_SLOTS:
        return f"a logpoint of more than {STRING_SLOTS} strings is not recorded in the program"
    nodes = []
    for value in spec.values:
        if not isinstance(value, ExpressionCondition):
            return "the dprintf's values are not compiled to machine code here"
        compiled, node = value.machine_ir(address)
        if not compiled:
            return None
        if node is None:
            return "a value of the dprintf is not compiled to machine code here"
        nodes.append(node)
    return nodes


def prepare_values(spec: LogSpec, tid: int, address: int) -> None:
    """Each value compiled at `address` from thread `tid`'s frame (stopped there)."""
    for value in spec.values:
        if isinstance(value, ExpressionCondition):
            value.prepare(tid, address)


def ring_capacity(values: int, limit: int | None = None) -> int:
    """The records a ring of `values` values holds: a power of two within RING_BYTES."""
    from aliceserver.debuggers.ptrace.patches.trampoline import RingBuffer

    record = RingBuffer(0, 1, values, STRING_SLOTS).record_size
    capacity = 1
    while RingBuffer.RECORDS + 2 * capacity * record <= RING_BYTES:
        capacity *= 2
    return capacity if limit is None else min(capacity, limit)


def allocate_ring(area: PatchArea, limit: int | None) -> tuple[RingBuffer, int]:
    """A ring in `area`'s data (and its offset there): a smaller one where the area has no
    room left for a full one, down to SMALLEST_RING records."""
    from aliceserver.debuggers.ptrace.patches.trampoline import RingBuffer

    capacity = ring_capacity(SLOTS, limit)
    while True:
        try:
            ring = RingBuffer(area.data_address, capacity, SLOTS, STRING_SLOTS)
            offset = area.alloc_data(RingBuffer.RECORDS + capacity * ring.record_size, align=64)
            return RingBuffer(area.data_address + offset, capacity, SLOTS, STRING_SLOTS), offset
        except AliceError:
            if capacity <= SMALLEST_RING:
                raise
            capacity //= 2


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


@dataclass(eq=False)
class _Ring:
    ring: RingBuffer
    data: mmap.mmap  # the server's mapping of the data area
    offset: int  # the ring's offset in it
    specs: dict[int, LogSpec] = field(default_factory=dict)  # by patch id (the site's address)

    def view(self) -> memoryview:
        from aliceserver.debuggers.ptrace.patches.trampoline import RingBuffer

        size = RingBuffer.RECORDS + self.ring.capacity * self.ring.record_size
        return memoryview(self.data)[self.offset : self.offset + size]


@dataclass(eq=False)
class LogRings:
    """The ring of each patch area (one per area: its logpoints' records in the order the
    program wrote them) and the thread draining them while the program runs."""

    emit: Callable[[Output], None]
    _rings: dict[int, _Ring] = field(default_factory=dict)  # by the data area's address
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _wake: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def ring_of(self, area: int) -> RingBuffer | None:
        known = self._rings.get(area)
        return None if known is None else known.ring

    def add_ring(self, area: int, ring: RingBuffer, data: mmap.mmap, offset: int) -> None:
        with self._lock:
            self._rings[area] = _Ring(ring, data, offset)

    def add(self, area: int, patch_id: int, spec: LogSpec) -> None:
        """A logpoint writing to `area`'s ring from now on."""
        with self._lock:
            self._rings[area].specs[patch_id] = spec
            if self._thread is None or not self._thread.is_alive():
                self._wake.clear()
                self._thread = threading.Thread(
                    target=self._poll, name="logpoint-drain", daemon=True
                )
                self._thread.start()

    def drop(self, patch_id: int, spec: LogSpec | None) -> None:
        """A logpoint's last records told, then forgotten (no thread can write them now)."""
        with self._lock:
            for ring in self._rings.values():
                if spec is not None and ring.specs.get(patch_id) is spec:
                    self._drain(ring)
                    del ring.specs[patch_id]

    def drain(self) -> None:
        """Every record so far told (a stop, an exit, a full ring)."""
        with self._lock:
            for ring in self._rings.values():
                self._drain(ring)

    def close(self) -> None:
        """Every ring drained and forgotten, the thread ended (the process is gone)."""
        self.drain()
        with self._lock:
            self._rings.clear()
            thread, self._thread = self._thread, None
        self._wake.set()
        if thread is not None and thread is not threading.current_thread():
            thread.join()

    def _poll(self) -> None:
        while not self._wake.wait(POLL_SECONDS):
            with self._lock:
                if not any(ring.specs for ring in self._rings.values()):
                    self._thread = None
                    return
                for ring in self._rings.values():
                    self._drain(ring)

    def _drain(self, ring: _Ring) -> None:
        if ring.data.closed:
            return
        from aliceserver.debuggers.ptrace.patches.trampoline import drain_ring

        view = ring.view()
        try:
            records = drain_ring(ring.ring, view, ring.ring.values, lambda patch: _strings_of(ring, patch))
        finally:
            view.release()
        batch: list[str] = []  # consecutive messages of batched logpoints: one Output
        for record in records:
            spec = ring.specs.get(record.patch_id)
            if spec is None:
                continue  # (a logpoint gone meanwhile)
            try:
                numbers = tuple(_signed(v) for v in record.values[: len(spec.values)])
                text = spec.render(numbers, record.strings)
            except Exception as error:  # a message that cannot be made: said, the rest go on
                log.exception("rendering a record of %s", spec.name)
                text = f"{error}\n"
            if spec.batched:
                batch.append(text)
                continue
            if batch:
                self.emit(Output("console", "".join(batch)))
                batch = []
            self.emit(Output("console", text))
        if batch:
            self.emit(Output("console", "".join(batch)))


def finish_records(inferior: Inferior, trapped: Tracee, trampolines: Sequence[Trampoline]) -> bool:
    """Every other stopped thread whose pc is between a ring reservation and the end of its
    record stepped, alone, past the record (a record under way blocks the ring's drain);
    whether any was. Signals met are kept for the engine's next resume."""
    from aliceserver.debuggers.ptrace.patches.inject import step_alone

    stepped = False
    for t in inferior.threads.values():
        if t is trapped or t.gone or t.new or t.running:
            continue
        for _ in range(_RECORD_STEPS):
            pc = int(inferior.regs(t).rip)
            if not any(tr.ring_retry <= pc < tr.stop_trap for tr in trampolines):
                break
            if t.regs_dirty:
                inferior.libc.set_regs(t.tid, t.regs)
                t.regs_dirty = False
            step_alone(inferior, t, functools.partial(_keep, inferior), "finishing a logpoint record")
            inferior.libc.get_regs(t.tid, t.regs)
            t.regs_valid = stepped = True
    return stepped


def _keep(inferior: Inferior, t: Tracee, signal: int) -> None:
    if signal == sig.SIGSTOP and inferior.wake_sent:
        inferior.wake_sent = False  # the engine's wake-up: the command it was for runs now
    elif t.pending_signal == 0:
        t.pending_signal = signal  # delivered when the engine resumes the thread
    else:
        log.warning("signal %d of thread %d lost while it finished a logpoint record", signal, t.tid)


def _strings_of(ring: _Ring, patch_id: int) -> int:
    spec = ring.specs.get(patch_id)
    return len(spec.strings) if spec is not None else 0


def logpoint_values(nodes: Sequence[ir.Node]) -> list[bytes]:
    """The machine code of each value (codegen: RAX the value, ECX set when undecided)."""
    from aliceserver.debuggers.ptrace.patches.codegen import compile_code
    from aliceserver.debuggers.ptrace.patches.trampoline import SAVED

    return [compile_code(node, SAVED.offsets) for node in nodes]
