"""The engine's answers to debuggers/target_queries.py, kept out of engine.py: read through
whatever target the engine holds (a live process, a core, a stub); a signal queued for a
thread of the process the engine runs (delivered when it resumes); a terminal's ^C the
stopped process got, dropped."""

from __future__ import annotations

import gc
from functools import partial
from typing import TYPE_CHECKING, Callable, TypeVar

from aliceserver import affinity
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.ptrace.tracee import Run
from aliceserver.errors import AliceError, TargetError, Unsupported

if TYPE_CHECKING:
    from aliceserver.debuggers.model import LineRange, SourcePosition
    from aliceserver.debuggers.ptrace.routing import Execution
    from aliceserver.debuggers.source.frames import Frames

T = TypeVar("T")


class EngineQueries:
    _access: ProcessAccess
    _run: Execution
    _frames: Frames
    line_range: Callable[[int], LineRange | None]
    source_position: Callable[[int], SourcePosition | None]

    def _stop_told(self, thread_id: int, pc: int) -> None:
        """A remote stop about to be told (remote/session.py's hook, on the tracer thread):
        what MI's *stopped asks next made now, read from the stop cache and the pc answers
        without a handoff each: the thread list, the pc's line table row, the line before,
        the stopped thread's stacks the last stop asked for (askedstacks.py)."""
        self._run.threads()
        self._make_asked_stacks(thread_id)
        try:
            self.line_range(pc)
            self.source_position(pc - 1)
        except AliceError:
            pass  # told when asked for

    def _make_asked_stacks(self, thread_id: int) -> None:
        """A stop about to be told (remote, or a live process's, on the tracer thread): the
        stopped thread's stacks the last stop asked for made now, so that the front end
        reads them from the stop cache on its own thread: no handoff to the engine and back
        (DAP's stackTrace at each stop; MI's *stopped frame with its arguments)."""
        with self._frames.asked.making():
            for (_, start, count), arguments in self._frames.asked.last_asked(thread_id):
                try:
                    self._frames.stack_trace(thread_id, start, count, arguments=arguments)
                except AliceError:
                    pass  # told when asked for
            for _, level, scope, aggregates, dynamic, entries in self._frames.asked.last_asked_variables(thread_id):
                try:
                    self._frames.frame_variables(thread_id, level, scope, aggregate_values=aggregates,
                                                 dynamic=dynamic, entry_values=entries)  # fmt: skip
                except AliceError:
                    pass  # told when asked for

    def batch(self, fn: Callable[[], T]) -> T:
        # its calls to the tracer made on it: no handoffs, so on any CPU (affinity.py)
        work = partial(_collected_after, fn)
        return self._access.run_on_engine(lambda: affinity.run_unpinned(work))

    def auxiliary_vector(self) -> list[tuple[int, int]]:
        return self._access.run_on_engine(lambda: list(self._access.target().auxv().items()))

    def queue_signal(self, thread_id: int, signal: int) -> None:
        def go() -> None:
            if self._access.inferior is None:  # a core has nothing to resume; a stub's is not ours
                raise Unsupported('"queue-signal" is only supported for a process aliceserver runs.')
            tracee = self._access.require_stopped().threads.get(thread_id)
            if tracee is None:
                raise TargetError(f"no thread {thread_id}")
            tracee.pending_signal = signal  # replaces the one it stopped with, as gdb's

        self._access.run_on_engine(go)

    def drop_terminal_interrupt(self) -> bool:
        def go() -> bool:
            inferior = self._access.inferior  # the program, or the copy held for its symbols
            if inferior is None or inferior.run is not Run.STOPPED:
                return False
            return inferior.drop_terminal_sigint()

        return self._access.run_on_engine(go)


def _collected_after(fn: Callable[[], T]) -> T:
    """`fn()` with no cyclic garbage collection inside it, one after it instead: a batch
    allocates fast over a big heap (rbreak . on 10,000 functions: 1,129 young and 7 full
    collections of some 650,000 objects, a seventh of its CPU time)."""
    if not gc.isenabled():
        return fn()
    gc.disable()
    try:
        return fn()
    finally:
        gc.enable()
