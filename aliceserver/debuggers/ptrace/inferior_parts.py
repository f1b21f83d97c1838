"""What the mixins of an Inferior (signal_stops.py, step_plans.py) call of the class they
are mixed into, declared once for the type checker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.tracee import Tracee
from aliceserver.debuggers.ptrace.traps import PhysicalTrap


class InferiorParts:
    if TYPE_CHECKING:  # provided by the class this is mixed into
        def regs(self, t: Tracee) -> binding.UserRegs:
            raise NotImplementedError

        def insert_trap(self, trap: PhysicalTrap) -> None:
            raise NotImplementedError

        def remove_trap(self, trap: PhysicalTrap) -> None:
            raise NotImplementedError

        def resume(self, only: int | None = None) -> None:
            raise NotImplementedError

        def _cont(self, t: Tracee, request: int = binding.PTRACE_CONT) -> None:
            raise NotImplementedError

        def _trap_at_pc(self, t: Tracee) -> PhysicalTrap | None:
            raise NotImplementedError
