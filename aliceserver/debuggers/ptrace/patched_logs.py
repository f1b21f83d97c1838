"""Logpoints judged in the program: a dprintf whose values all compile to machine code at
its address writes them as a record to a ring in its patch's data area (trampoline.py's
Logpoint and RingBuffer) and the program goes on without stopping.

The server reads the rings through its own mapping of the data area: a drainer thread
every few milliseconds while the program runs, and the tracer thread at every reported
stop and before the process's exit is reported (patched_breakpoints.py calls `drain`), so
every message reaches the front ends, in the order the program reserved the records, before
the stop or exit that follows it. Each record is rendered by the front end's own formatting
(LogSpec.render: gdb's printf for a dprintf). A full ring never makes the program wait:
the record is counted as lost, and the loss told once per stop in gdb's words.

A front end's gate offers a logpoint by `logged()` (adapters/mi: a dprintf of integer and
pointer conversions only; a `%s` needs the string's bytes, which are gone by the time the
record is read, so such a dprintf keeps its trap).
"""

from __future__ import annotations

import logging
import mmap
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from aliceserver.debuggers.events import Output
from aliceserver.debuggers.logpoints import LogSpec
from aliceserver.debuggers.ptrace.conditions import ExpressionCondition
from aliceserver.debuggers.ptrace.patches.trampoline import RingBuffer, drain_ring
from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir

log = logging.getLogger(__name__)

RING_BYTES: Final = (
    4 * 1024 * 1024
)  # a ring's share of the data area (memfd pages: touched as used)
DATA_SIZE: Final = 9 * 1024 * 1024  # a breakpoint patch area's data region: two rings and counters
POLL_SECONDS: Final = 0.003


def value_nodes(spec: LogSpec, address: int) -> list[ir.Node] | str | None:
    """The values' IR at `address`; None when some are not compiled there yet, or why
    they cannot be."""
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
    record = 8 * (3 + values)
    capacity = 1
    while RingBuffer.RECORDS + 2 * capacity * record <= RING_BYTES:
        capacity *= 2
    return capacity if limit is None else min(capacity, limit)


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


@dataclass(eq=False)
class _Ring:
    ring: RingBuffer
    data: mmap.mmap  # the server's mapping of the data area
    offset: int  # the ring's offset in it
    spec: LogSpec
    lost_told: int = 0

    def view(self) -> memoryview:
        size = RingBuffer.RECORDS + self.ring.capacity * self.ring.record_size
        return memoryview(self.data)[self.offset : self.offset + size]


@dataclass(eq=False)
class LogRings:
    """Every ring of the live process and the thread draining them while it runs."""

    emit: Callable[[Output], None]
    _rings: dict[int, _Ring] = field(default_factory=dict)  # by key (the site's address)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _wake: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def add(self, key: int, ring: RingBuffer, data: mmap.mmap, offset: int, spec: LogSpec) -> None:
        with self._lock:
            self._rings[key] = _Ring(ring, data, offset, spec)
            if self._thread is None or not self._thread.is_alive():
                self._wake.clear()
                self._thread = threading.Thread(
                    target=self._poll, name="logpoint-drain", daemon=True
                )
                self._thread.start()

    def drop(self, key: int) -> None:
        """The ring's last records told, then forgotten (no thread can write it any more)."""
        with self._lock:
            ring = self._rings.get(key)
            if ring is not None:
                self._drain(ring, tell_losses=True)
                del self._rings[key]

    def drain(self) -> None:
        """Every record so far told, and the losses since the last stop (a stop, an exit)."""
        with self._lock:
            for ring in self._rings.values():
                self._drain(ring, tell_losses=True)

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
                if not self._rings:
                    self._thread = None
                    return
                for ring in self._rings.values():
                    self._drain(ring, tell_losses=False)

    def _drain(self, ring: _Ring, *, tell_losses: bool) -> None:
        if ring.data.closed:
            return
        view = ring.view()
        try:
            records = drain_ring(ring.ring, view, len(ring.spec.values))
            lost = int.from_bytes(view[RingBuffer.OVERFLOW : RingBuffer.OVERFLOW + 8], "little")
        finally:
            view.release()
        texts = []
        for record in records:
            try:
                texts.append(ring.spec.render(tuple(_signed(v) for v in record.values)))
            except Exception as error:  # a message that cannot be made: said, the rest go on
                log.exception("rendering a record of %s", ring.spec.name)
                texts.append(f"{error}\n")
        for text in ["".join(texts)] if ring.spec.batched and texts else texts:
            self.emit(Output("console", text))
        if tell_losses and lost > ring.lost_told:
            self.emit(
                Output(
                    "warning", f"warning: {ring.spec.name}: {lost - ring.lost_told} messages lost\n"
                )
            )
            ring.lost_told = lost


def logpoint_values(nodes: Sequence[ir.Node]) -> list[bytes]:
    """The machine code of each value (codegen: RAX the value, ECX set when undecided)."""
    from aliceserver.debuggers.ptrace.patches.codegen import compile_code
    from aliceserver.debuggers.ptrace.patches.trampoline import SAVED

    return [compile_code(node, SAVED.offsets) for node in nodes]
