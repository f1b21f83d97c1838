"""The program's file alone, as gdb reads it after `file` and before `run`: its symbols at
their link-time addresses, its memory the bytes its loadable segments hold (zeros past a
segment's file part), no threads and no registers.

The engine holds a copy of the program at its first instruction for its symbols before a
run (LaunchConfig.symbols_only); a program this machine cannot start (of another
architecture, or whose dynamic loader is not here) is read from its file instead, and its
breakpoints are placed once a stub runs it (`target remote`) at the addresses it is
loaded at. Expressions are evaluated in a frame, so it has one pseudo thread at the entry
point whose registers read as zeros, which no front end is shown (gdb's `No registers.`
before a run comes from the front end's side, which has no process).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping

from aliceserver.debuggers.arch.registry import by_e_machine
from aliceserver.debuggers.core.memory import CoreMemory, FileSources, Region, zeros
from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.elfheaders import PT_LOAD
from aliceserver.debuggers.target import NotLive, ProcessTarget
from aliceserver.errors import TargetError

NO_REGISTERS = "No registers."
PSEUDO_THREAD = 1
# This machine's ELF machine, as _elfread names it (what a program must be to run here)
_HOST_MACHINES = {"x86_64": "EM_X86_64", "aarch64": "EM_AARCH64"}


def cannot_start_here(image: ElfImage) -> bool:
    """Whether this machine cannot start the program: another architecture, or a dynamic
    loader (PT_INTERP) that is not here."""
    host = _HOST_MACHINES.get(os.uname().machine)  # (platform.machine()'s, without its import)
    if host is not None and image.machine != host:
        return True
    return image.interp is not None and not os.path.exists(image.interp)


class ProgramFile:
    """A ProcessTarget over the program's file (read-only, no process)."""

    def __init__(self, image: ElfImage) -> None:
        self.image = image
        self._files = FileSources()
        source = self._files.source(image.path)
        loads = [s for s in image.segments if s.type == PT_LOAD]
        self._memory = CoreMemory([
            [Region(s.vaddr, s.vaddr + s.filesz, s.offset, source) for s in loads],
            [Region(s.vaddr, s.vaddr + s.memsz, 0, zeros) for s in loads],
        ])  # fmt: skip
        arch = by_e_machine(image.machine)
        self._registers = _Zeros({arch.pc: image.entry, arch.sp: 0})

    @property
    def pid(self) -> int:
        return 0

    @property
    def live(self) -> bool:
        return False

    def thread_ids(self) -> list[int]:
        return [PSEUDO_THREAD]

    def check_stopped(self, tid: int) -> None:
        if tid != PSEUDO_THREAD:
            raise TargetError(NO_REGISTERS)

    def general_registers(self, tid: int) -> Mapping[str, int]:
        self.check_stopped(tid)
        return self._registers

    def set_general_register(self, tid: int, name: str, value: int) -> None:
        raise TargetError(NO_REGISTERS)

    def float_registers(self, tid: int) -> dict[int, bytes]:
        raise TargetError(NO_REGISTERS)

    def extended_registers(self, tid: int) -> dict[int, bytes]:
        raise TargetError(NO_REGISTERS)

    def vector_registers(self, tid: int) -> VectorRegisters:
        raise TargetError(NO_REGISTERS)

    def set_vector_register(self, tid: int, name: str, data: bytes) -> None:
        raise TargetError(NO_REGISTERS)

    def read_memory(self, address: int, size: int) -> bytes:
        return self._memory.read(address, size)

    def write_memory(self, address: int, data: bytes) -> None:
        raise NotLive(f"Cannot access memory at address {address:#x}")

    def auxv(self) -> Mapping[int, int]:
        return {}

    def executable(self) -> str:
        return self.image.path

    def thread_name(self, tid: int) -> str:
        return ""

    def last_stop(self) -> Stopped | None:
        return None

    def close(self) -> None:
        self._files.close()


class _Zeros(Mapping[str, int]):
    """The pseudo thread's registers: the entry point's pc, every other one zero."""

    def __init__(self, known: dict[str, int]) -> None:
        self._known = known

    def __getitem__(self, name: str) -> int:
        return self._known.get(name, 0)

    def __iter__(self) -> Iterator[str]:
        return iter(self._known)

    def __len__(self) -> int:
        return len(self._known)


def _satisfies_the_protocol(target: ProgramFile) -> ProcessTarget:
    return target  # mypy checks here that ProgramFile is a ProcessTarget
