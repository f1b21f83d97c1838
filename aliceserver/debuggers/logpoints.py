"""Logpoints an engine may print from records the program writes, without stopping it.

A front end's breakpoint gate offers one by `logged()`: the numbers its message needs (each
an expression condition whose value is the number) and how one record's numbers become the
message, in the front end's own formatting. An engine that cannot compile the values (or
has no jump patches) keeps stopping at each hit and lets the gate print as before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, cast


@dataclass(frozen=True, eq=False)
class LogSpec:
    """A logpoint as its front end wants it: the numbers of its values, and its message."""

    name: str  # how the server's log names it ("dprintf 3")
    values: tuple[object, ...]  # expression conditions (IDebugger.expression_condition)
    # one record's message from its signed values and the bytes of its strings (in order)
    render: Callable[[tuple[int, ...], tuple[bytes, ...]], str]
    batched: bool = False  # the messages of one drain in one Output (a console's text)
    # the values that are C strings' addresses (a dprintf's %s): the engine copies their
    # bytes up to the NUL with the record, or judges the hit at the trap when it cannot
    strings: tuple[int, ...] = ()


class LoggingGate(Protocol):
    """A breakpoint's gate that may be a logpoint judged in the program."""

    def logged(self) -> LogSpec | None: ...


def log_spec(condition: object) -> LogSpec | None:
    """The gate's logpoint, if it is a LoggingGate (asked by its method, not isinstance: a
    runtime protocol's check imports inspect on Python 3.12+, 3-10 ms of a first stop)."""
    logged = getattr(condition, "logged", None)
    return cast("LoggingGate", condition).logged() if callable(logged) else None
