"""A traced process as a LiveProcess (debuggers/target.py): the process interface over the
ptrace Inferior, read side and live side. Runs on the tracer thread, as the Inferior does."""

from __future__ import annotations

import os
from collections.abc import Mapping

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.ptrace import registers
from aliceserver.debuggers.ptrace.binding import Libc
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.symbols.auxv import read_auxv
from aliceserver.errors import TargetError


class PtraceProcess:
    """The live backend. Cheap to make: the engine makes one per request over its Inferior."""

    __slots__ = ("inferior", "_libc")

    def __init__(self, inferior: Inferior, libc: Libc) -> None:
        self.inferior = inferior
        self._libc = libc

    @property
    def pid(self) -> int:
        return self.inferior.pid

    @property
    def live(self) -> bool:
        return True

    def thread_ids(self) -> list[int]:
        return [t.tid for t in self.inferior.threads.values() if not t.gone]

    def check_stopped(self, tid: int) -> None:
        if self.inferior.thread(tid).running:
            raise TargetError(f"Thread {tid} is running.")

    def general_registers(self, tid: int) -> Mapping[str, int]:
        return registers.LiveRegisters(self.inferior.regs(self.inferior.thread(tid)))

    def set_general_register(self, tid: int, name: str, value: int) -> None:
        if name.startswith("st") and name[2:].isdigit():  # MI's raw write: the integer's 80 bits
            registers.set_vector(self._libc, tid, name, (value & ((1 << 80) - 1)).to_bytes(10, "little"))
            return
        t = self.inferior.thread(tid)
        regs = self.inferior.regs(t)
        stopped_at = t.moved_from if t.moved_from is not None else int(regs.rip)
        registers.set_general(regs, name, value)
        t.regs_dirty = True
        if int(regs.rip) != stopped_at or t.moved_from is not None:  # gdb: pc != the thread's stop_pc
            t.moved_from, t.jumped = stopped_at, int(regs.rip) != stopped_at
            t.deferred_hit = t.deferred_hit and not t.jumped  # its pending hit is not where it is now

    def float_registers(self, tid: int) -> dict[int, bytes]:
        return registers.dwarf_float_registers(self._libc, tid)

    def extended_registers(self, tid: int) -> dict[int, bytes]:
        return registers.extended_registers(self._libc, tid)

    def vector_registers(self, tid: int) -> VectorRegisters:
        return registers.vector(self._libc, tid)

    def set_vector_register(self, tid: int, name: str, data: bytes) -> None:
        registers.set_vector(self._libc, tid, name, data)

    def read_memory(self, address: int, size: int) -> bytes:
        return self.inferior.memory.read(address, size)

    def write_memory(self, address: int, data: bytes) -> None:
        self.inferior.memory.write(address, data)

    def auxv(self) -> Mapping[int, int]:
        return read_auxv(self.inferior.pid)

    def executable(self) -> str:
        return os.readlink(f"/proc/{self.inferior.pid}/exe")

    def thread_name(self, tid: int) -> str:
        try:
            with open(f"/proc/{self.inferior.pid}/task/{tid}/comm", "rb") as comm:
                return comm.read().decode(errors="replace").strip()
        except OSError:
            return ""

    def writable_areas(self) -> list[tuple[int, int]]:
        """The writable mappings [start, end) of /proc/PID/maps, each with the inaccessible
        one right below it (a thread's stack and its guard: glibc's thread keeps the
        start of both)."""
        areas = []
        guard = None  # the start of an inaccessible mapping ending where the next begins
        with open(f"/proc/{self.inferior.pid}/maps", "rb") as maps:
            for line in maps:
                span, perms = line.split(b" ", 2)[:2]
                low, high = (int(part, 16) for part in span.split(b"-"))
                if perms[1:2] == b"w":
                    areas.append((low if guard is None or guard[1] != low else guard[0], high))
                guard = (low, high) if perms.startswith(b"---") else None
        return areas

    def last_stop(self) -> Stopped | None:
        return self.inferior.last_stop

    # --- the live side --------------------------------------------------------------
    def resume(self, only: int | None = None) -> None:
        self.inferior.resume(only)

    def step(self, tid: int) -> None:
        self.inferior.step(tid)

    def interrupt(self) -> None:
        self.inferior.interrupt()

    def stop_all(self) -> None:
        self.inferior.stop_all()

    def detach(self) -> None:
        self.inferior.detach()
