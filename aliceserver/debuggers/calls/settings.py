"""How calls into the program run (gdb's unwindonsignal, may-call-functions, the time
limit) and what calls left stopped keep: shared by the engine and both backends' callers
(driver.py), kept apart from the calls' machinery so that an engine is made without
importing it (a session that calls no function never does)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from aliceserver.debuggers.model import Registers, VectorRegisters

CALL_TIMEOUT = 30.0  # seconds; below the tracer's command patience (ptrace/tracer.py)


class SavedRegisters(Protocol):
    """The calling thread's state before a call, as a backend keeps it."""

    def general_values(self) -> Mapping[str, int]:
        """The general registers by gdb name: where the unwinder goes on past the call."""
        ...


@dataclass(slots=True)
class CallSettings:
    unwind_on_signal: bool = False  # gdb's default
    may_call: bool = True  # gdb's may-call-functions
    timeout: float = CALL_TIMEOUT
    frames: list[int] = field(default_factory=list)  # return traps of calls left stopped
    # The state before each call left stopped, by (pid, sp after its return): the unwinder
    # goes on from it past the call's frame (gdb's dummy frame, <function called from gdb>).
    dummies: dict[tuple[int, int], SavedRegisters] = field(default_factory=dict)
    # By thread: the registers a call left stopped returned with, read before its dummy
    # frame is popped, so a finish that ends there shows the value (as gdb's does).
    returned: dict[int, tuple[Registers, VectorRegisters]] = field(default_factory=dict)
