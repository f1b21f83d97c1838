"""Scalar variables described once per stop for every thread that holds the same bytes.

1,000 threads blocked in the same call show the same arguments (`op=393`, `futex_word=
0x... <release+40>`): describing each (its type's name, its text, its children's count)
was 40% of a -thread-info. A scalar is described from its type and bytes alone, plus
memory that all threads share (a char *'s string, a pointer's symbol), which does not
change while the program is stopped: the same type and bytes at the same stop give the
same description, its children's reference included (they are read through the pointer),
but for the address of one in memory (each thread's stack has its own). A write forgets
them all (StopCache.forget). The memory a description read is told again to each thread
it is given to (`Recorder`): a thread's kept arguments are compared by it at the next stop
or after a write (keptarguments.py), and a string read for another thread is theirs too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.restamp import restamped
from aliceserver.debuggers.symbols.dwarf.locexpr import (
    EvaluationError,
    ImplicitLoc,
    MemoryLoc,
    RegisterLoc,
)
from aliceserver.debuggers.symbols.dwarf.types import BaseType, EnumType, PointerType, strip
from aliceserver.debuggers.symbols.dwarf.values import Value

# (name, the type's id, the location's kind, the bytes, how it is described)
SharedKey = tuple[str, int, type, bytes, tuple[object, ...]]
# what a description read: (address, size, bytes) each, and whether it read more (None: not recorded)
Recorded = tuple[list[tuple[int, int, bytes]], bool]


class Recorder(Protocol):
    """The reads of the variables being made, where they are recorded (RecordingReader)."""

    def recorded(
        self, make: Callable[[], VariableInfo]
    ) -> tuple[VariableInfo, Recorded | None]: ...

    def replay(self, recorded: Recorded) -> None: ...

    def recording(self) -> bool: ...


def shared_key(name: str, value: Value, how: tuple[object, ...]) -> SharedKey | None:
    """What the description of `value` depends on at this stop but its address, None where
    it depends on more (an aggregate, a bitfield, a composite, one that cannot be read)."""
    location = value.location
    if value.bit_size or not isinstance(location, (RegisterLoc, ImplicitLoc, MemoryLoc)):
        return None
    if not isinstance(strip(value.type), (BaseType, PointerType, EnumType)):
        return None
    try:
        data = value.data()
    except EvaluationError:
        return None
    return (name, id(value.type), type(location), data, how)


class SharedDescriptions:
    """The descriptions made at this stop, by shared_key."""

    def __init__(self) -> None:
        # key -> (the type whose id is in the key, kept alive so that no other takes its
        # id meanwhile; the description)
        self._made: dict[SharedKey, tuple[object, VariableInfo, Recorded | None]] = {}

    def forget(self) -> None:
        self._made.clear()

    def describe(
        self, name: str, value: Value, how: tuple[object, ...], make: Callable[[], VariableInfo],
        recorder: Recorder | None = None,
    ) -> VariableInfo:  # fmt: skip
        """`make()`'s description of `value` (named `name`, described as `how` says), or the
        one made for the same key at this stop, its reads told to `recorder`."""
        key = shared_key(name, value, how)
        if key is None:
            return make()
        found = self._made.get(key)
        # made where reads were not recorded: made again where they are
        if found is None or (found[2] is None and recorder is not None and recorder.recording()):
            made, recorded = recorder.recorded(make) if recorder is not None else (make(), None)
            found = self._made[key] = (value.type, made, recorded)
        elif recorder is not None and found[2] is not None:
            recorder.replay(found[2])
        info = found[1]
        address = value.address
        return info if info.address == address else restamped(info, address=address)
