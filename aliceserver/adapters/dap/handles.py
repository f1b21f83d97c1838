"""Handles the client holds while the program is stopped: frameId and variablesReference.

Ids only grow within a session (never reused), so an id from an earlier stop is recognised
as stale instead of silently naming something else. Everything is dropped when the program
resumes, as the DAP overview says references live only while stopped.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Union

from aliceserver.adapters.dap.messages import StaleReference
from aliceserver.debuggers.model import PrinterView, StackFrame, VariableScope

_MAX_ID = 2**31 - 1  # clients keep these in int32


@dataclass(frozen=True, slots=True)
class FrameRef:
    thread_id: int
    level: int


@dataclass(frozen=True, slots=True)
class ScopeRef:
    frame: FrameRef
    scope: VariableScope


@dataclass(frozen=True, slots=True)
class ValueRef:
    """Children of a value the engine described (its own reference), with the expression
    that names it (for setVariable, evaluateName and data breakpoints)."""

    frame: FrameRef | None
    engine_reference: int
    expression: str | None
    pointer: bool  # members of its children are reached with -> (a struct pointer)
    named: int = 0
    indexed: int = 0  # arrays: children are pages of elements
    printer: PrinterView | None = None  # a pretty printer's children (see dap/printed.py)
    variant: bool = False  # a Rust enum's active variant's fields, shown as the enum's


@dataclass(frozen=True, slots=True)
class TextRef:
    """Fixed lines shown as children (vector registers, repl command output)."""

    lines: tuple[tuple[str, str], ...]


VariableRef = Union[ScopeRef, ValueRef, TextRef]


class Handles:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._next = 1
        self._frames: dict[int, FrameRef] = {}
        self._frame_ids: dict[tuple[int, int], int] = {}  # (thread, level): a tuple hashes in C
        self._variables: dict[int, VariableRef] = {}
        self._scope_ids: dict[ScopeRef, int] = {}
        # thread: (the level of the program's main, None where not among them; how many frames
        # from the top were looked at), for this stop: a page far down the stack needs not
        # the frames above it again to know whether it is below main (the runtime's)
        self._mains: dict[int, tuple[int | None, int]] = {}

    def _new_id(self) -> int:
        ident = self._next
        # Wrapping after 2**31 handles would take years of stops; ids stay positive int32.
        self._next = ident + 1 if ident < _MAX_ID else 1
        return ident

    def clear(self) -> None:
        """The program runs: every handle given out so far is stale."""
        with self._lock:
            self._frames.clear()
            self._frame_ids.clear()
            self._variables.clear()
            self._scope_ids.clear()
            self._mains.clear()

    def main_seen(self, thread_id: int) -> tuple[int | None, int]:
        """(main's level if seen, how many frames from the top were seen) at this stop."""
        with self._lock:
            return self._mains.get(thread_id, (None, 0))

    def saw_frames(self, thread_id: int, start: int, frames: Sequence[StackFrame]) -> None:
        """The frames from level `start` were listed: main among them is remembered."""
        with self._lock:
            main, seen = self._mains.get(thread_id, (None, 0))
            if main is None and start <= seen:  # (contiguous with what was seen)
                main = next((f.level for f in frames if f.program_main), None)
                seen = max(seen, start + len(frames))
            self._mains[thread_id] = (main, seen)

    def frame_id(self, thread_id: int, level: int) -> int:
        return self.frame_ids(thread_id, [level])[0]

    def frame_ids(self, thread_id: int, levels: list[int]) -> list[int]:
        """frame_id of each level, under one hold of the lock (a stackTrace's 20 frames)."""
        with self._lock:
            ids, found = self._frame_ids, []
            for level in levels:
                ident = ids.get((thread_id, level))
                if ident is None:
                    ident = ids[thread_id, level] = self._new_id()
                    self._frames[ident] = FrameRef(thread_id, level)
                found.append(ident)
            return found

    def frame(self, frame_id: int) -> FrameRef:
        with self._lock:
            ref = self._frames.get(frame_id)
        if ref is None:
            raise StaleReference(
                f"frameId {frame_id} is not valid (frames last only while the program is stopped)"
            )
        return ref

    def variable_id(self, ref: VariableRef) -> int:
        with self._lock:
            if isinstance(ref, ScopeRef):
                found = self._scope_ids.get(ref)
                if found is not None:
                    return found
            ident = self._new_id()
            self._variables[ident] = ref
            if isinstance(ref, ScopeRef):
                self._scope_ids[ref] = ident
            return ident

    def variable(self, reference: int) -> VariableRef:
        with self._lock:
            ref = self._variables.get(reference)
        if ref is None:
            raise StaleReference(
                f"variablesReference {reference} is not valid "
                "(references last only while the program is stopped)"
            )
        return ref
