"""What the source level's objects ask of the engine that composes them: the narrow
interface a backend's engine implements (the ptrace engine today; gdb's remote protocol
later), so no object of the source level reaches into the engine or into another object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Protocol, TypeVar

if TYPE_CHECKING:
    from aliceserver.debuggers.base import BreakpointCondition
    from aliceserver.debuggers.model import BreakpointInfo, Module, ProcessInfo
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
    from aliceserver.debuggers.source.variables import FrameView
    from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
    from aliceserver.debuggers.target import ProcessTarget

T = TypeVar("T")


class EngineServices(Protocol):
    def run_on_engine(self, fn: Callable[[], T]) -> T:
        """Run fn on the engine's thread (only it may touch the process) and return its result."""
        ...

    @property
    def source_symbols(self) -> SourceSymbols:
        """The program's symbols: a new SourceSymbols at each run and exec, so ask each time."""
        ...

    @property
    def process(self) -> ProcessInfo | None: ...

    def has_target(self) -> bool:
        """Whether there is a process to read: a live one or a core file."""
        ...

    def target(self) -> ProcessTarget:
        """The process the source level reads through (the live one, or a core file)."""
        ...

    def halted_target(self) -> ProcessTarget:
        """The process with no thread running (refused while it runs)."""
        ...

    def stopped_target(self, thread_id: int) -> ProcessTarget:
        """The process, its thread `thread_id` stopped (refused otherwise)."""
        ...

    def read_visible(self, address: int, size: int) -> bytes:
        """Memory as the program sees it (the debugger's own traps masked)."""
        ...

    def write_visible(self, address: int, data: bytes) -> None: ...

    def link_view(self) -> Module | None:
        """Before run: the program held for its symbols, at its link-time addresses."""
        ...

    def program_only(self) -> bool:
        """Before run: gdb has read the program's symbols alone (ours hold the loader's too)."""
        ...

    def held_for_symbols(self) -> bool:
        """Before run or after the program ended: no frame is the user's."""
        ...

    def hidden(self, address: int) -> bool:
        """Before run: an address outside the program's image (no symbol, no memory)."""
        ...

    def program_gap(self, address: int, size: int) -> int | None:
        """Before run: the first address of the range outside the program's sections."""
        ...

    def runtime_address(self, address: int) -> int:
        """Where a link-time address of the held program is loaded; others as they are."""
        ...

    def symbolize(self, address: int) -> str | None:
        """`<symbol+offset>` for a value that points at code or data."""
        ...

    def forget_stop_state(self) -> None:
        """The program is about to move: frames and values of this stop are no longer true."""
        ...


class FrameViews(Protocol):
    def __call__(
        self, thread_id: int, level: int, *, innermost_only: bool = False
    ) -> tuple[FrameView, ModuleSymbols | None, int]:
        """A stopped thread's frame at `level`: its view, its module's symbols and the pc
        to look its scope up by (see variables.py)."""
        ...


class AddressBreakpoints(Protocol):
    """The execution control location breakpoints need: traps at addresses (the ptrace
    engine's BreakpointControl; a remote backend's Z packets)."""

    def insert_address_breakpoint(
        self, address: int, temporary: bool, enabled: bool, condition: BreakpointCondition | None,
        *, at_instruction: bool = False,
    ) -> BreakpointInfo: ...

    def forget_address_breakpoint(self, ident: int) -> None:
        """Remove the address breakpoint `ident` (gone already: nothing to do)."""
        ...

    def code_unmapped(self, address: int) -> None:
        """The code at `address` is no longer mapped: its trap has no bytes to restore."""
        ...


LinkView = Callable[[], "Module | None"]  # before run: the program at its link-time addresses
