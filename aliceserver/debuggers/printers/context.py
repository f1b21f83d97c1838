"""What a printer call runs against: the session's printers and the stopped frame.

gdb's Python API is module functions (`gdb.lookup_type`, `gdb.parse_and_eval`): here they
read the context set around each printer call (a contextvar), so several sessions in one
process each see their own program.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from aliceserver.debuggers.symbols.dwarf.types import Type
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value

if TYPE_CHECKING:
    from aliceserver.debuggers.printers.objfiles import PrinterSession
    from aliceserver.debuggers.printers.watchdog import Watchdog

R = TypeVar("R")


class BudgetExceeded(Exception):
    """A printer ran past its time budget (a loop over garbage): its value shows an error."""

    def __init__(self, *args: object) -> None:  # raised by class from the watchdog: no args
        super().__init__(*(args or ("pretty printer took too long",)))


@dataclass
class Target:
    """The frame printers read: memory, names and types (the engine's evaluator symbols)."""

    frame: FrameContext
    lookup_type: Callable[[str], Type | None]
    lookup: Callable[[str], Value | None]
    evaluate: Callable[[str], Value]
    # Whether a function (by linkage name) has code in the program: a C++ method without
    # an xmethod would need calling, one without code was inlined (gdb's two refusals).
    has_code: Callable[[str], bool] = lambda name: False


@dataclass
class Call:
    session: PrinterSession
    target: Target | None
    deadline: float = float("inf")
    objfile: Any = None  # gdb.current_objfile() while its script loads
    types: dict[str, Type | None] = field(default_factory=dict)
    # While a user's `python` code runs: where gdb.write's STDOUT and STDERR text goes.
    output: tuple[list[str], list[str]] | None = None

    # Cuts off printer code looping in pure Python (no gdb API call checks the time there).
    watchdog: Watchdog | None = None
    # gdb's `Python Exception <class 'X'>: MESSAGE` lines for its error stream (a printer
    # that raised), and whether the printed value's own printer raised when made.
    errors: list[str] = field(default_factory=list)
    refused: bool = False
    # A printer wrote the printed value itself: its text is the value, an error it shows
    # (`<error reading variable: ...>`, a string's `<error: ...>`) included.
    printed_top: bool = False

    def python_exception(self, exc: BaseException) -> None:
        """gdb's gdbpy_print_stack with `set python print-stack message` (its default)."""
        self.errors.append(f"Python Exception {type(exc)}: {exc}\n")

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise BudgetExceeded("pretty printer took too long")

    def run(self, fn: Callable[[], R]) -> R:
        """Printer code (a lookup function, to_string, children, next child): cut off
        with BudgetExceeded when it runs past the deadline."""
        return fn() if self.watchdog is None else self.watchdog.run(self.deadline, fn)


_current: contextvars.ContextVar[Call | None] = contextvars.ContextVar("gdb_call", default=None)


def current() -> Call:
    call = _current.get()
    if call is None:
        from aliceserver.debuggers.printers.gdb import error

        raise error("no debugging session (gdb API used outside a printer call)")
    return call


def current_or_none() -> Call | None:
    return _current.get()


@contextlib.contextmanager
def entered(call: Call) -> Iterator[Call]:
    token = _current.set(call)
    try:
        yield call
    finally:
        _current.reset(token)
