"""The engine's answers to debuggers/target_queries.py, kept out of engine.py: read through
whatever target the engine holds (a live process, a core, a stub)."""

from __future__ import annotations

from aliceserver.debuggers.ptrace.state import ProcessAccess


class EngineQueries:
    _access: ProcessAccess

    def auxiliary_vector(self) -> list[tuple[int, int]]:
        return self._access.run_on_engine(lambda: list(self._access.target().auxv().items()))
