"""What the source level's objects ask of the engine that composes them: the narrow
interface a backend's engine implements (the ptrace engine today; gdb's remote protocol
later), so no object of the source level reaches into the engine or into another object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, TypeVar

if TYPE_CHECKING:
    from aliceserver.debuggers.model import Module
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
    from aliceserver.debuggers.source.variables import FrameView
    from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols

T = TypeVar("T")


class EngineServices(Protocol):
    def run_on_engine(self, fn: Callable[[], T]) -> T:
        """Run fn on the engine's thread (only it may touch the process) and return its result."""
        ...

    @property
    def source_symbols(self) -> SourceSymbols:
        """The program's symbols: a new SourceSymbols at each run and exec, so ask each time."""
        ...


class FrameViews(Protocol):
    def __call__(
        self, thread_id: int, level: int, *, innermost_only: bool = False
    ) -> tuple[FrameView, ModuleSymbols | None, int]:
        """A stopped thread's frame at `level`: its view, its module's symbols and the pc
        to look its scope up by (see variables.py)."""
        ...


LinkView = Callable[[], "Module | None"]  # before run: the program at its link-time addresses
