"""Tracer: function patterns traced on a live session, recorded into a TraceStore.

`add` / `remove` change what is traced while the program runs. Each recorded call gives a
`call` event (arguments, thread, parent call) and a `return` event (value, duration); the
hooks run on the engine's tracer thread and only queue rows. Calls of a hot function are
sampled: past `max_rate` calls per second, only one call in N is recorded (every call is
still counted), and `status()` says so. The session feeds `observe` every engine event, so
program output, crashes and the exit are recorded too.

Where the engine offers it (`call_recorder`) and `patches` is on (the default), calls are
recorded by jump patches into rings in the program's memory and drained into the store by
drain.py, the program never stopping for them; a function the patches cannot serve (its
entry, or values that need the program's memory) is traced with traps, and `status()`
says which way each function is traced and why.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
import threading
from dataclasses import dataclass, field
from typing import Callable

from aliceserver.debuggers.base import CallEntry, CallExit, IDebugger
from aliceserver.debuggers.events import (
    Event,
    Exited,
    ModuleLoaded,
    Output,
    Stopped,
    StopReason,
    ThreadExited,
)
from aliceserver.debuggers.model import FunctionSymbol
from aliceserver.errors import AliceError, ProtocolError
from aliceserver.tracing.crash import crash_row
from aliceserver.tracing.drain import RecordDrain, RecordedTrace
from aliceserver.tracing.patterns import Pattern, matching, name_filter, parse_pattern
from aliceserver.tracing.store import TraceStore

log = logging.getLogger(__name__)

DEFAULT_MAX_RATE = 2000.0  # recorded calls per second per function before sampling starts
_WINDOW_NS = 1_000_000_000


@dataclass(slots=True)
class _Traced:
    """One traced function and its counters (written on the tracer thread only)."""

    function: FunctionSymbol
    trace_id: int = 0  # 0: not traced (the process ended)
    calls: int = 0  # every call seen
    recorded: int = 0
    sample_every: int = 1  # 1: every call recorded
    window_start: int = 0
    window_calls: int = 0
    patch_number: int = 0  # recorded by jump patches under this number (0: not)
    upgrade: bool = False  # traced by traps until patches can be made (at a later stop)
    how: str = "trapped"  # "patched", or with traps and why


@dataclass(frozen=True, slots=True)
class FunctionStatus:
    name: str
    file: str | None
    line: int | None
    calls: int
    recorded: int
    sample_every: int  # > 1: hot, one call in this many recorded now
    how: str = "trapped"  # "patched" (some rets may be trapped, said so), or trapped and why
    overflow: int = 0  # records a full ring (or a thread with none) dropped

    @property
    def sampled(self) -> bool:
        return self.sample_every > 1 or self.recorded < self.calls


@dataclass(frozen=True, slots=True)
class TraceStatus:
    patterns: tuple[str, ...]
    functions: tuple[FunctionStatus, ...]
    events: int  # rows written to the store so far
    store: str  # its file
    sampling: bool  # some function is (or was) sampled
    ring_memory: str | None = None  # the patches' memory for records not yet stored

    def summary(self) -> str:
        calls = sum(f.calls for f in self.functions)
        recorded = sum(f.recorded for f in self.functions)
        text = f"{len(self.functions)} functions traced, {calls} calls, {recorded} recorded"
        hot = [f"{f.name} (1 in {f.sample_every})" for f in self.functions if f.sample_every > 1]
        if hot:
            text += "; sampled, hot: " + ", ".join(hot)
        elif self.sampling:
            text += "; some calls were sampled out"
        return text


@dataclass(frozen=True, slots=True)
class TraceChange:
    added: tuple[str, ...] = ()  # function names newly traced (or no longer, for remove)
    unmatched: tuple[str, ...] = ()  # patterns that named no function
    failed: tuple[str, ...] = ()  # functions that could not be traced, with why


@dataclass(slots=True)
class _Open:
    cfa: int
    call_id: int
    traced: _Traced
    start_ns: int


@dataclass(slots=True)
class _Threads:
    """Recorded calls open on each thread, outermost first (tracer thread only)."""

    stacks: dict[int, list[_Open]] = field(default_factory=dict)


class Tracer:
    def __init__(
        self,
        debugger: IDebugger,
        store: TraceStore,
        *,
        project_root: str | None = None,
        depth: int = 1,
        max_rate: float | None = DEFAULT_MAX_RATE,
        patches: bool = True,
    ) -> None:
        self.debugger = debugger
        self.store = store
        self.project_root = os.path.realpath(project_root or os.getcwd())
        self.depth = depth
        self.max_rate = max_rate  # None: never sample
        self._patterns: list[Pattern] = []
        self._traced: dict[int, _Traced] = {}  # by function address
        self._threads = _Threads()
        self._call_ids = itertools.count(1)
        self._lock = threading.Lock()  # add/remove/observe from several threads
        self._recorder = getattr(debugger, "call_recorder", None) if patches else None
        self._drain: RecordDrain | None = None

    # --- what is traced -------------------------------------------------------------
    def add(self, patterns: list[str]) -> TraceChange:
        """Trace every function the patterns name, from now on (the program may run)."""
        parsed = [parse_pattern(text) for text in patterns]
        if not parsed:
            raise ProtocolError("trace add needs at least one pattern")
        with self._lock:
            for pattern in parsed:
                if pattern.text not in [p.text for p in self._patterns]:
                    self._patterns.append(pattern)
            return self._apply(parsed)

    def _apply(self, patterns: list[Pattern]) -> TraceChange:
        functions = self.debugger.functions(name_filter(patterns))  # records only for names matched
        added, failed = [], []
        unmatched = [p.text for p in patterns if not matching([p], functions, self.project_root)]
        for function in matching(patterns, functions, self.project_root):
            if function.address in self._traced and self._traced[function.address].trace_id:
                continue
            traced = _Traced(function, window_start=self.store.now_ns())
            try:
                if not self._record(traced):
                    traced.trace_id = self.debugger.trace_calls(
                        function, self._entry_hook(traced), self._returned, depth=self.depth
                    )
            except AliceError as error:
                failed.append(f"{function.name}: {error}")
                continue
            self._traced[function.address] = traced
            added.append(function.name)
        return TraceChange(tuple(added), tuple(unmatched), tuple(failed))

    def _record(self, traced: _Traced) -> bool:
        """Trace by jump patches if the engine can (else `how` says why not)."""
        recorder = self._recorder
        if recorder is None:
            return False  # patches off, or an engine without them: plain "trapped"
        why = recorder.unavailable()
        if why is not None:
            traced.how = f"trapped: {why}"
            return False
        recorded = recorder.record(traced.function, self.depth, traced.trace_id if traced.upgrade else 0)
        reason = getattr(recorded, "reason", None)  # refused (patched_calltrace.Refused)
        if reason is not None:
            traced.upgrade = recorded.transient
            traced.how = f"trapped{' until the next stop' if traced.upgrade else ''}: {reason}"
            return False
        traced.upgrade = False
        if self._drain is None:
            self._drain = RecordDrain(recorder, self.store, sampling=self.max_rate is not None,
                                      call_ids=self._call_ids)  # fmt: skip
        source = traced.function.source
        path, line = (source.path, source.line) if source else (None, None)
        self._drain.traces[recorded.id] = RecordedTrace(traced.function.name, path, line, recorded)
        self._drain.start()
        traced.trace_id = traced.patch_number = recorded.id
        traced.how = "patched"
        if recorded.trapped_returns:
            traced.how += "; returns trapped: " + "; ".join(recorded.trapped_returns)
        return True

    def _new_call_id(self) -> int:
        return next(self._call_ids)  # atomic: the drain's thread and the engine's both take ids

    def _untrace(self, traced: _Traced) -> None:
        if not traced.patch_number:
            self.debugger.untrace_calls(traced.trace_id)
            return
        assert self._recorder is not None and self._drain is not None
        self._recorder.unrecord(traced.patch_number)
        self._drain.drain()  # its last records, while they can still be formatted
        self._recorder.forget(traced.patch_number)

    def remove(self, patterns: list[str] | None = None) -> TraceChange:
        """Stop tracing what the patterns name (None: everything); recorded events stay."""
        with self._lock:
            if not patterns:
                chosen = list(self._traced.values())
                self._patterns = []
                unmatched: list[str] = []
            else:
                parsed = [parse_pattern(text) for text in patterns]
                texts = {p.text for p in parsed}
                self._patterns = [p for p in self._patterns if p.text not in texts]
                current = [t.function for t in self._traced.values()]
                chosen = [self._traced[f.address] for f in matching(parsed, current, self.project_root)]
                unmatched = [p.text for p in parsed if not matching([p], current, self.project_root)]
            removed = []
            for traced in chosen:
                del self._traced[traced.function.address]
                if traced.trace_id:
                    try:
                        self._untrace(traced)
                    except AliceError as error:
                        log.debug("untracing %s: %s", traced.function.name, error)
                removed.append(traced.function.name)
            return TraceChange(tuple(removed), tuple(unmatched))

    def status(self) -> TraceStatus:
        with self._lock:
            ordered = sorted(self._traced.values(), key=lambda t: t.function.name)
            functions = tuple(self._function_status(t) for t in ordered)
            patterns = tuple(p.text for p in self._patterns)
        sampling = any(f.sampled for f in functions)
        memory = self._recorder.memory_text() if self._recorder is not None else None
        return TraceStatus(patterns, functions, self.store.counts[1], self.store.path, sampling, memory)

    def set_ring_memory(self, mib: int) -> None:
        """MiB for records the patches wrote and the store has not taken yet (rings and
        the server's copies): refused as gdb refuses a bad setting."""
        if self._recorder is None:
            raise ProtocolError("calls are not recorded by patches here: there are no rings")
        if not 2 <= mib <= 2048:  # trace_rings.MIN_BUDGET, MAX_BUDGET
            raise ProtocolError(f"integer {mib} out of range")
        self._recorder.set_ring_memory(mib << 20)

    def _function_status(self, t: _Traced) -> FunctionStatus:
        source = t.function.source
        calls, recorded, every, overflow = t.calls, t.recorded, t.sample_every, 0
        drain = self._drain
        entry = drain.traces.get(t.patch_number) if drain is not None and t.patch_number else None
        if entry is not None and self._recorder is not None:
            dropped = self._recorder.dropped(t.patch_number)
            overflow = dropped.calls + dropped.returns
            calls += entry.counts.calls + dropped.calls
            recorded += entry.counts.recorded
            every = entry.counts.sample_every
        path, line = (source.path, source.line) if source else (None, None)
        return FunctionStatus(t.function.name, path, line, calls, recorded, every, t.how, overflow)

    def drain(self) -> None:
        """Take the calls recorded by patches so far into the store."""
        if self._drain is not None:
            self._drain.drain()

    # --- the hooks (engine tracer thread) ---------------------------------------------
    def _sample(self, traced: _Traced, now: int) -> bool:
        """Whether to record this call: all of them until the function gets hot."""
        traced.calls += 1
        if self.max_rate is None:
            return True
        elapsed = now - traced.window_start
        if elapsed >= _WINDOW_NS:  # a new window: size the sampling by the last one's rate
            rate = traced.window_calls * 1e9 / elapsed
            traced.sample_every = max(1, math.ceil(rate / self.max_rate))
            traced.window_start, traced.window_calls = now, 0
        traced.window_calls += 1
        if traced.sample_every == 1 and traced.window_calls > self.max_rate:
            traced.sample_every = 10  # hot within the window already: until it ends
        return traced.sample_every == 1 or traced.calls % traced.sample_every == 0

    def _entry_hook(self, traced: _Traced) -> Callable[[CallEntry], bool]:
        return lambda hit: self._entered(traced, hit)

    def _entered(self, traced: _Traced, hit: CallEntry) -> bool:
        now = self.store.now_ns()
        stack = self._threads.stacks.setdefault(hit.thread_id, [])
        while stack and stack[-1].cfa <= hit.cfa:
            stack.pop()  # it left without returning through its ret (longjmp, tail call)
        if not self._sample(traced, now):
            return False
        traced.recorded += 1
        call_id = self._new_call_id()
        parent = stack[-1].call_id if stack else None
        function = traced.function
        source = function.source
        args = json.dumps(hit.arguments())
        self.store.append((
            "call", now, hit.thread_id, function.name, source.path if source else None,
            source.line if source else None, call_id, parent, len(stack), args, None, None, None, None,
        ))  # fmt: skip
        stack.append(_Open(hit.cfa, call_id, traced, now))
        return True

    def _returned(self, hit: CallExit) -> None:
        now = self.store.now_ns()
        stack = self._threads.stacks.get(hit.thread_id)
        if not stack:
            return
        for index in range(len(stack) - 1, -1, -1):
            if stack[index].cfa == hit.cfa:
                break
        else:
            return
        call = stack[index]
        del stack[index:]
        function = call.traced.function
        source = function.source
        parent = stack[-1].call_id if stack else None
        self.store.append((
            "return", now, hit.thread_id, function.name, source.path if source else None,
            source.line if source else None, call.call_id, parent, len(stack), None,
            hit.return_value(), now - call.start_ns, None, None,
        ))  # fmt: skip

    # --- the rest of the session's events ------------------------------------------
    def observe(self, event: Event) -> None:
        """Feed every event of the session here (before acting on a stop: a crash is
        described while the program is still stopped at it)."""
        if self._drain is not None and isinstance(event, (Stopped, Exited, ThreadExited)):
            self._drain_at(event)
        if isinstance(event, Stopped) and any(t.upgrade for t in self._traced.values()):
            self._upgrade()  # at a stop: no call is in flight through the change
        if isinstance(event, Output) and event.category in ("stdout", "stderr"):
            self.store.append((event.category, self.store.now_ns(), None, None, None, None, None, None,
                               None, None, None, None, event.text, None))  # fmt: skip
        elif isinstance(event, Stopped) and event.reason is StopReason.CRASH:
            self.store.append(crash_row(self.debugger, event, self.store.now_ns(), self._open_call(event)))
        elif isinstance(event, Exited):
            text = f"exited with code {event.code}" if event.code is not None else f"killed by {event.signal_name}"
            self.store.append(("exit", self.store.now_ns(), None, None, None, None, None, None, None,
                               None, None, None, text, None))  # fmt: skip
            with self._lock:
                for traced in self._traced.values():
                    traced.trace_id = 0  # the engine dropped its traps with the process
        elif isinstance(event, ModuleLoaded):
            with self._lock:
                if self._patterns:
                    self._apply(self._patterns)  # a library brought more functions

    def _upgrade(self) -> None:
        """Functions left on traps because no thread could run the patch area's system
        calls (inject.py: each at a caught system call's entry) get their patches at a later
        stop (done while it runs, a call in flight could be lost between the two). A trace
        added at the exec stop is patched at once: inject.py takes the thread past the exec."""
        with self._lock:
            for traced in [t for t in self._traced.values() if t.upgrade and t.trace_id]:
                try:
                    self._record(traced)
                except AliceError as error:
                    traced.upgrade = False
                    log.warning("patching %s at a later stop: %s", traced.function.name, error)

    def _drain_at(self, event: Stopped | Exited | ThreadExited) -> None:
        """Records up to a stop, a thread's end or the exit, before it is recorded itself."""
        assert self._recorder is not None and self._drain is not None
        if isinstance(event, Exited):
            self._recorder.process_gone()
        elif isinstance(event, ThreadExited):
            self._recorder.thread_exited(event.thread_id)
        self._drain.drain()
        if isinstance(event, ThreadExited):
            self._drain.forget_thread(event.thread_id)

    def _open_call(self, event: Stopped) -> int | None:
        """The innermost call open on the thread, trapped or recorded by patches (drained
        up to this stop)."""
        stack = self._threads.stacks.get(event.thread_id)
        opened = [(stack[-1].cfa, stack[-1].call_id)] if stack else []
        recorded = self._drain.open_call(event.thread_id) if self._drain is not None else None
        if recorded is not None:
            opened.append(recorded)
        return min(opened)[1] if opened else None  # the lower frame is the inner call

    def close(self) -> None:
        """Untrace everything (if the program still runs); the store is the caller's."""
        if self.debugger.process is not None:
            self.remove()
        if self._drain is not None:
            self._drain.drain()
            self._drain.close()
        self.store.flush()
