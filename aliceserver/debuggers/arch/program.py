"""The capability of an engine to say its program's architecture, for the front ends that
lay out what differs by CPU (register lists, `info frame`'s pc name, MI's frame arch)."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.arch.registry import X86_64_ARCH


@runtime_checkable
class HasProgramArchitecture(Protocol):
    def program_architecture(self) -> Architecture:
        """The program's (by its ELF machine), x86-64 before there is one."""
        ...


def program_architecture(debugger: object) -> Architecture:
    """`debugger`'s program's architecture; x86-64 for an engine that cannot tell."""
    if isinstance(debugger, HasProgramArchitecture):
        return debugger.program_architecture()
    return X86_64_ARCH
