"""The engine's answers to debuggers/target_queries.py, kept out of engine.py: read through
whatever target the engine holds (a live process, a core, a stub); a signal queued for a
thread of the process the engine runs (delivered when it resumes)."""

from __future__ import annotations

from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.errors import TargetError, Unsupported


class EngineQueries:
    _access: ProcessAccess

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
