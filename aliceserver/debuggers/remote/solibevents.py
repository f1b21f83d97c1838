"""Stops at the loader's events over a stub (gdb's `catch load`/`unload` and `set
stop-on-solib-events`): the front end asks for library stops (set_catch_events), and each
event of the loader (its trap's hit, or a stop reply's `library`) becomes a Stopped(LIBRARY)
with the libraries that came and went, which the front end's gate lets through or not."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

from aliceserver.debuggers.events import Stopped, StopReason

# (how many events the engine has seen, the paths loaded and unloaded at the last)
LibraryChange: TypeAlias = tuple[int, tuple[str, ...], tuple[str, ...]]


class LibraryStops:
    def __init__(self, change: Callable[[], LibraryChange] | None) -> None:
        self._change = change
        self.wanted = False  # the front end asks for library stops
        self.gate: Callable[[Stopped], bool] | None = None

    def seen(self) -> int:
        """The engine's count of the loader's events, before one is handled."""
        return self._change()[0] if self._change is not None else 0

    def stop(self, tid: int, address: int | None, before: int) -> Stopped | None:
        """The stop to report where the loader's event handled since `before` is wanted."""
        if not self.wanted or self._change is None:
            return None
        count, loaded, unloaded = self._change()
        if count == before:
            return None
        stop = Stopped(StopReason.LIBRARY, tid, address=address, libraries_loaded=loaded,
                       libraries_unloaded=unloaded)  # fmt: skip
        return stop if self.gate is None or self.gate(stop) else None
