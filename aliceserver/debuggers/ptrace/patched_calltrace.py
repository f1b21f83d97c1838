"""Function call tracing by jump patches (an object CallTracer composes): no stop per call.

`record(function)` patches the function's entry to a trampoline writing a CALL record
(arguments where the ABI puts them, callabi.py) into the calling thread's ring in a patch
area's shared data (trace_rings.py, trace_trampoline.py), and each `ret` to one writing a
RETURN record. A `ret` no patch can serve (plan_site refuses the span ending with it) gets
an int3 trap instead, whose hit first takes in the rings (so the thread's records stay in
order) and then adds the return record itself: `RecordedFunction.trapped_returns` says
which and why. A function whose entry cannot be patched, or whose values need the
program's memory (recorded_calls.memory_needed), is refused with the reason: the caller
traces it with traps (calltrace.py).

`drain()` (any thread, while the program runs) hands over the records written since, per
thread in the order the thread wrote them, with `to_ns` for their rdtsc stamps. A copier
thread empties the rings into the server's memory meanwhile; rings and copies take at most
`ring_memory` bytes (set_ring_memory; 256 MiB by default, so that a burst of 1M calls is
held whole: the copier, which needs the GIL, cannot be counted on to keep pace with the
program). Patches go in and out with every thread stopped (held for the change when the
program runs).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, cast

from aliceserver.debuggers.model import FunctionSymbol
from aliceserver.debuggers.ptrace import registers as register_sets
from aliceserver.debuggers.ptrace.callabi import plan_arguments
from aliceserver.debuggers.ptrace.calltrace import _Trace
from aliceserver.debuggers.ptrace.calltrace_patching import (
    Held,
    branch_targets,
    decoder,
    planned,
    still_mapped,
)
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.patches import tsc
from aliceserver.debuggers.ptrace.patches.area import PatchArea, map_patch_area
from aliceserver.debuggers.ptrace.patches.install import JUMP_SIZE
from aliceserver.debuggers.ptrace.patches.relocate import Unrelocatable, relocate
from aliceserver.debuggers.ptrace.patches.shadow_stack import shadow_stack_on
from aliceserver.debuggers.ptrace.patches.sites import Refusal
from aliceserver.debuggers.ptrace.patches.trace_rings import (
    MAX_BUDGET,
    MIN_BUDGET,
    RETURN,
    SLOT,
    Chunk,
    Dropped,
    RingLayout,
    decode,
    dropped,
    header_word,
    in_order,
    init_rings,
    release_thread,
    slots_for,
    take,
)
from aliceserver.debuggers.ptrace.patches.trace_trampoline import (
    RecordSpec,
    Rings,
    call_record,
    entry_trampoline,
    record_size,
    return_record,
    return_trampoline,
)
from aliceserver.debuggers.ptrace.patches.trampoline import fs_base_readable
from aliceserver.debuggers.ptrace.recorded_calls import (
    RETURN_SOURCES,
    Record,
    RecordedFunction,
    Refused,
    Unpatchable,
    entry_sources,
    memory_needed,
)
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.calltrace import CallTracer

log = logging.getLogger(__name__)

_CODE_SIZE = 256 * 1024
# inject.py's refusal where no thread can run system calls (each at a caught system call's
# entry; the exec stop is not one now): transient, the function is on traps until a later stop.
_NOT_YET = "no thread is stopped where it can run system calls"
COPY_SECONDS = 0.001
# The longest wait of an idle copier: a thread's burst after a quiet spell has its whole ring
# for that long (a 4 MiB ring holds 65,536 records, ring 0 two million) before copying starts.
COPY_IDLE_SECONDS = 0.016
# Records held (rings, and copies not yet decoded) at most: a burst of 1M calls of a one
# -argument function is 2M records of 64 bytes, all held while the drain decodes them.
DEFAULT_RING_MEMORY = 256 << 20
DRAIN_SLOTS = 1 << 18  # slots decoded at each call of drain (as tuples they take 4x the bytes)


class CallRecorder:
    def __init__(self, tracer: CallTracer, layout: RingLayout | None = None) -> None:
        self._tracer = tracer
        assert tracer.patches is not None
        self._patches = tracer.patches  # the engine's: reads show the original bytes
        self.ring_memory = DEFAULT_RING_MEMORY  # bytes: rings and copies (set_ring_memory)
        self.layout = layout or RingLayout.for_budget(self.ring_memory)
        self._areas: dict[str, PatchArea] = {}  # by module path, for the live process
        self._ended: list[PatchArea] = []  # of a process gone, drained once more then closed
        self._recorded: dict[int, RecordedFunction] = {}
        self._pending: dict[int, list[Chunk | Record]] = {}  # tid -> taken in, not handed over
        self._draining: dict[int, list[Chunk | Record]] = {}  # taken by a drain, not yet decoded
        self._drain_open = False  # a drain has taken `_draining` and not yet answered {}
        self._dropped: dict[int, Dropped] = {}  # counted in areas since closed
        self._copier: threading.Thread | None = None
        self._pending_slots = 0  # copied and not yet taken by a drain part (pending, draining)
        self._several_areas = False  # records of one thread in several rings: sorted by time
        self._single_slot = True  # no record takes more than one slot (decoded in bulk)
        self._lock = threading.Lock()
        self._clock: tsc.TscClock | None = None
        self._why_not = tsc.usable()
        self._by_fs_base = fs_base_readable()
        self._shadow_stack = False  # the program's, read as each function is recorded

    # --- settings ----------------------------------------------------------------------------
    def set_ring_memory(self, budget: int) -> None:
        """Bytes for records not yet drained: half in the rings (16, each a power of two of
        64-byte slots), half for the server's copies; refused (gdb's words) while rings
        are mapped, since the trampolines write where the layout says."""
        if not MIN_BUDGET <= budget <= MAX_BUDGET:
            raise TargetError(f"integer {budget} out of range ({MIN_BUDGET} to {MAX_BUDGET} bytes)")
        if self._areas or self._ended:
            raise TargetError("Cannot change the trace buffer size while calls are recorded.")
        self.ring_memory = budget
        self.layout = RingLayout.for_budget(budget)

    def memory_text(self) -> str:
        """The budget as status shows it."""
        layout = self.layout
        return (f"{self.ring_memory >> 20} MiB: a ring of {_size(layout.first * SLOT)} (the first thread"
                f" to record), {layout.rings - 1} of {_size(layout.capacity * SLOT)},"
                f" {_size(self._copies_limit * SLOT)} of copies")  # fmt: skip

    @property
    def _copies_limit(self) -> int:
        """Slots copied out of the rings and not yet decoded, at most."""
        return max(0, self.ring_memory // SLOT - self.layout.slots)

    # --- what is recorded (engine thread) ---------------------------------------------------
    def unavailable(self) -> str | None:
        """Why no function can be recorded by patches here, or None."""
        return self._why_not

    def record(
        self, function: FunctionSymbol, depth: int, replacing: int = 0
    ) -> RecordedFunction | Refused:
        """The function's calls recorded from now on, or why patches cannot do it.
        `replacing`: the trap trace (calltrace.py) of the function, taken out in the same
        stop as the patches go in (no call is missed between them)."""

        def go() -> RecordedFunction | Refused:
            try:
                return self._record(function, depth, replacing)
            except Unpatchable as refusal:
                return Refused(str(refusal), refusal.transient)

        return self._tracer.run_on_engine(go)

    def _record(self, function: FunctionSymbol, depth: int, replacing: int) -> RecordedFunction:
        if self._why_not is not None:
            raise Unpatchable(self._why_not)
        inferior = self._tracer.require()
        module = self._tracer.symbols.module_at(function.address)
        if module is None:
            raise TargetError(f"no module maps {function.name} at {function.address:#x}")
        params, returns = self._tracer.signature(function.address, module.base)
        slots = plan_arguments(params, returns)
        why = memory_needed(slots, returns)
        if why is not None:
            raise Unpatchable(why)
        number = next(n for n in range(1, self.layout.traces) if n not in self._recorded)
        options = FormatOptions(max_depth=max(depth, 0), max_elements=16, repeat_threshold=10)
        trace = _Trace(number, function, lambda hit: False, lambda hit: None, options, module.base, slots,
                       returns, LogicalBreakpoint(0, function.address), [])  # fmt: skip
        recorded = RecordedFunction(number, function, trace, entry_sources(slots))
        self._single_slot = self._single_slot and slots_for(len(recorded.sources)) == 1
        code = self._tracer.read_visible(function.address, function.size)
        self._shadow_stack = shadow_stack_on(inferior.pid)  # read once per function
        entry = planned(code, function.address, function.address, self._shadow_stack)
        if isinstance(entry, Refusal):
            raise Unpatchable(f"its entry cannot be patched: {entry.reason}")
        if self._clock is None:
            self._clock = tsc.TscClock()
        with Held(inferior):
            try:
                area = self._area(inferior, module.path, function.address)
            except TargetError as error:
                raise Unpatchable(f"no patch area: {error}", _NOT_YET in str(error)) from None
            if replacing:
                self._tracer.untrace_calls(replacing)  # on this thread: at once
            self._patch_entry(inferior, area, recorded, code)
            try:
                self._patch_returns(inferior, area, recorded, code)
            except BaseException:
                self._unpatch(inferior, area, recorded)
                raise
        self._recorded[number] = recorded
        if self._copier is None or not self._copier.is_alive():
            self._copier = threading.Thread(
                target=self._copy, name="aliceserver-trace-rings", daemon=True
            )
            self._copier.start()
        return recorded

    def active(self) -> bool:
        """Whether a live program has rings (records may still come)."""
        return bool(self._areas) and self._tracer.current() is not None

    def _copy(self) -> None:
        """Empty the rings into the server's memory every millisecond while the program
        writes records: copying keeps up with any program, decoding (drain) need not. With
        the rings empty the wait doubles up to COPY_IDLE_SECONDS (polling every millisecond
        cost the idle server CPU), back to 1 ms at the first record. Past the budget's copies
        (copied and not yet decoded) it waits: the rings fill and count what they drop,
        rather than the server's memory growing without end."""
        wait = COPY_SECONDS
        while self._areas and self._tracer.current() is not None:
            if self._pending_slots < self._copies_limit:
                with self._lock:
                    took = self._take_in()
                wait = COPY_SECONDS if took else min(wait * 2, COPY_IDLE_SECONDS)
            time.sleep(wait)

    def _area(self, inferior: Inferior, path: str, near: int) -> PatchArea:
        area = self._areas.get(path)
        if area is not None and not still_mapped(area):  # the program exec'd: a new image
            with self._lock:
                self._ended.append(area)  # its last records are drained, then it is closed
            del self._areas[path]
            area = None
        if area is None or area.inferior is not inferior or not area.mapped:
            area = map_patch_area(inferior, near, code_size=_CODE_SIZE, data_size=self.layout.size)
            init_rings(memoryview(area.data), self.layout)
            self._areas[path] = area
        return area

    def _rings(self, area: PatchArea) -> Rings:
        return Rings(area.data_address, self.layout, self._by_fs_base)

    def _patch_entry(
        self, inferior: Inferior, area: PatchArea, recorded: RecordedFunction, code: bytes
    ) -> None:
        start = recorded.function.address
        plan = planned(code, start, start, self._shadow_stack, area.code_address)
        if isinstance(plan, Refusal):
            raise Unpatchable(f"its entry cannot be patched: {plan.reason}")
        if any(i.text.split()[0] in ("ret", "retq", "jmp") for i in plan.instructions):
            raise Unpatchable("its entry cannot be patched: the function leaves within 5 bytes")
        spec = call_record(recorded.id, recorded.sources)
        rings = self._rings(area)
        head = record_size(spec, rings)
        size = head + len(plan.relocated(area.code_address)) + JUMP_SIZE
        address = area.alloc_code(size)
        try:
            displaced = plan.relocated(address + head)
            area.inferior.memory.write(
                address, entry_trampoline(address, spec, rings, displaced, plan.end)
            )
            self._patches.install(inferior, plan, address)
        except AliceError as error:
            area.free_code(address, size)
            raise Unpatchable(f"its entry cannot be patched: {error}") from None
        recorded.patched.append((start, address, size))

    def _patch_returns(
        self, inferior: Inferior, area: PatchArea, recorded: RecordedFunction, code: bytes
    ) -> None:
        start = recorded.function.address
        values = RETURN_SOURCES if recorded.trace.returns is not None else ()
        spec = return_record(recorded.id, values)
        starts: list[int] = []
        targets, indirect = branch_targets(code, start)
        for at, size, mnemonic, _ in decoder(False).disasm_lite(code, start):
            starts.append(at)
            if mnemonic.split()[-1] not in ("ret", "retq"):
                continue
            end = at + size
            site = max((s for s in starts if end - s >= JUMP_SIZE), default=None)
            if site is None:
                why: str | None = f"fewer than {JUMP_SIZE} bytes of the function end with it"
            elif site < self._patches.by_address[start].end:
                why = "its bytes are those of the patch at the function's entry"
            else:
                inside = next((t for t in sorted(targets) if site < t <= at), None)
                reached = (f"jumped into (at {inside:#x})" if inside is not None
                           else "where an indirect jump may land" if indirect else "")  # fmt: skip
                why = self._patch_return(
                    inferior, area, recorded, code, (site, at, end), spec, reached
                )
            if why is not None:
                self._trap_return(inferior, recorded, at, why)

    def _patch_return(
        self, inferior: Inferior, area: PatchArea, recorded: RecordedFunction, code: bytes,
        where: tuple[int, int, int], spec: RecordSpec, reached: str,
    ) -> str | None:  # fmt: skip
        """Patch the ret at `ret` by a jump at `site`, the last instruction that leaves room
        for one: the trampoline runs a copy of everything from there to the ret, the record,
        and the ret. Nothing may jump in after `site`, since the copy alone would run (the
        bytes after the jump's span stay, run by nothing). None, or why not."""
        site, ret, end = where
        plan = planned(code, recorded.function.address, site, self._shadow_stack, area.code_address)
        if isinstance(plan, Refusal):
            return plan.reason
        if reached:
            return f"the instructions from {site:#x} to it are {reached}"
        start = recorded.function.address
        before, last = code[site - start : ret - start], code[ret - start : end - start]
        rings = self._rings(area)
        try:
            head = len(relocate(before, site, area.code_address))
        except Unrelocatable as error:
            return str(error)
        size = head + record_size(spec, rings) + len(last)
        address = area.alloc_code(size)
        try:
            moved = relocate(before, site, address)
            area.inferior.memory.write(address, return_trampoline(moved, spec, rings, last))
            self._patches.install(inferior, plan, address)
        except AliceError as error:
            area.free_code(address, size)
            return str(error)
        recorded.patched.append((site, address, size))
        return None

    def _trap_return(
        self, inferior: Inferior, recorded: RecordedFunction, address: int, why: str
    ) -> None:
        recorded.trapped_returns.append(f"ret at {address:#x}: {why}")
        traps = self._tracer.traps
        bp = LogicalBreakpoint(traps.new_internal_id(), address, internal=True)
        bp.on_hit = lambda tid: self._returned_at_trap(recorded, tid)
        trap = traps.add(bp, b"")
        recorded.traps.append(bp)
        if trap.wanted and not trap.inserted:
            inferior.insert_trap(trap)

    def _returned_at_trap(self, recorded: RecordedFunction, tid: int) -> None:
        inferior = self._tracer.current()
        t = inferior.threads.get(tid) if inferior is not None else None
        if inferior is None or t is None or self._clock is None:
            return
        regs = inferior.regs(t)
        values = [int(regs.rax), int(regs.rdx), 0, 0]
        if recorded.trace.returns is not None:
            xmm = register_sets.vector(self._tracer.libc, tid).xmm
            values[2:] = [
                int.from_bytes(xmm[0][:8], "little"),
                int.from_bytes(xmm[1][:8], "little"),
            ]
        header = header_word(RETURN, slots_for(4), recorded.id)
        with self._lock:
            self._take_in()  # the thread's records before this one
            self._pending.setdefault(tid, []).append(
                (header, self._clock.read(), int(regs.rsp) + 8, *values)
            )

    def unrecord(self, number: int) -> None:
        self._tracer.run_on_engine(lambda: self._unrecord(number))

    def _unrecord(self, number: int) -> None:
        recorded = self._recorded.get(number)
        if recorded is None:
            raise TargetError(f"no recorded trace number {number}")
        inferior = self._tracer.current()
        if inferior is not None:
            with self._lock:
                self._take_in()  # its records, before the formatter goes
            area = self._areas.get(recorded.function.module or "")
            with Held(inferior):
                self._unpatch(inferior, area, recorded)
        recorded.patched.clear()

    def _unpatch(
        self, inferior: Inferior, area: PatchArea | None, recorded: RecordedFunction
    ) -> None:
        for bp in recorded.traps:
            if bp.id in self._tracer.traps.by_id:
                trap = self._tracer.traps.remove(bp.id)
                if not trap.wanted:
                    inferior.remove_trap(trap)
                if not trap.logical:
                    self._tracer.traps.drop_trap(trap.address)
        recorded.traps.clear()
        pcs = {
            int(inferior.regs(t).rip) for t in inferior.threads.values() if not t.gone and not t.new
        }
        for site, address, size in recorded.patched:
            if site in self._patches.by_address:
                self._patches.remove(inferior, site)
            if (
                area is not None
                and area.mapped
                and not any(address <= pc < address + size for pc in pcs)
            ):
                area.free_code(address, size)  # else a thread is inside it: it stays

    def forget(self, number: int) -> None:
        """Drop a trace whose records were all handed over (after `unrecord`)."""
        self._recorded.pop(number, None)

    def recorded(self, number: int) -> RecordedFunction | None:
        return self._recorded.get(number)

    # --- records (any thread) ---------------------------------------------------------------
    def drain(self, raw: bool = False) -> dict[int, list[Record | bytes]]:
        """Records written before the drain began, by thread, in the thread's order, about
        DRAIN_SLOTS at a time: call again until it answers {} (the drain has ended; the
        next call begins another). `raw`: where every record takes one slot, runs of them
        come as their bytes (64 per record, in order), not decoded."""
        with self._lock:
            if not self._drain_open:
                self._take_in()
                self._draining, self._pending = self._pending, {}
                self._drain_open = True
            taken = self._take_part(DRAIN_SLOTS)
            self._drain_open = bool(taken)
        if self._clock is not None and taken:
            self._clock.calibrate()
        capacity = self.layout.capacity
        raw = raw and self._single_slot and not self._several_areas
        records: dict[int, list[Record | bytes]] = {}
        for tid, items in taken.items():
            mine: list[Record | bytes] = []
            for item in items:
                if isinstance(item, Chunk):
                    if raw:
                        mine.append(in_order(item))
                    else:
                        mine += decode(item, capacity, self._single_slot)
                else:
                    mine.append(item)
            if self._several_areas:
                mine.sort(key=lambda record: cast("Record", record)[1])  # rdtsc: one thread's order
            records[tid] = mine
        return records

    def _take_part(self, most: int) -> dict[int, list[Chunk | Record]]:
        """The oldest items of each thread being drained, whole chunks, up to `most` slots."""
        taken: dict[int, list[Chunk | Record]] = {}
        left = most
        for tid, items in list(self._draining.items()):
            if left <= 0:
                break
            cut = 0
            while cut < len(items) and left > 0:
                item = items[cut]
                left -= item.head - item.tail if isinstance(item, Chunk) else 1
                cut += 1
            taken[tid] = items[:cut]
            if cut == len(items):
                del self._draining[tid]
            else:
                self._draining[tid] = items[cut:]
        self._pending_slots = max(0, self._pending_slots - (most - left))
        return taken

    def _take_in(self) -> bool:
        """Copy what the rings hold; whether there was anything."""
        areas = [*self._areas.values(), *self._ended]
        self._several_areas = self._several_areas or len(areas) > 1
        took = False
        for area in areas:
            if not area.data.closed:
                for chunk in take(memoryview(area.data), self.layout):
                    self._pending.setdefault(chunk.tid, []).append(chunk)
                    self._pending_slots += chunk.head - chunk.tail
                    took = True
        for area in self._ended:
            if not area.data.closed:
                for number in self._recorded:
                    before, now = (
                        self._dropped.get(number, Dropped(0, 0)),
                        self._dropped_in(area, number),
                    )
                    self._dropped[number] = Dropped(
                        before.calls + now.calls, before.returns + now.returns
                    )
            area.discard()
        self._ended.clear()
        return took

    def _dropped_in(self, area: PatchArea, number: int) -> Dropped:
        return dropped(memoryview(area.data), self.layout, number)

    def clock_line(self) -> tuple[int, int, float]:
        """(ticks, ns, ns per tick): ns = ns0 + (t - ticks) * rate, for converting in bulk."""
        assert self._clock is not None
        return self._clock.line()

    def to_ns(self, ticks: int) -> int:
        assert self._clock is not None
        return self._clock.to_ns(ticks)

    def dropped(self, number: int) -> Dropped:
        """Records of trace `number` dropped (full rings, threads with no ring)."""
        before = self._dropped.get(number, Dropped(0, 0))
        recorded = self._recorded.get(number)
        area = self._areas.get(recorded.function.module or "") if recorded is not None else None
        if area is None or area.data.closed:
            return before
        now = self._dropped_in(area, number)
        return Dropped(before.calls + now.calls, before.returns + now.returns)

    def thread_exited(self, tid: int) -> None:
        """Its ring goes back to the pool (after its last records are taken in)."""
        with self._lock:
            self._take_in()
            for area in self._areas.values():
                if not area.data.closed:
                    release_thread(memoryview(area.data), self.layout, tid)

    def process_gone(self) -> None:
        """The program exited or exec'd: the areas are drained once more and forgotten."""
        with self._lock:
            self._ended += self._areas.values()
            self._areas.clear()
            for recorded in self._recorded.values():
                recorded.patched.clear()
                recorded.traps.clear()
            self._patches.forget_all()


def _size(size: int) -> str:
    return f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"
