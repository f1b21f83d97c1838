"""A core file as a ProcessTarget (debuggers/target.py): the read side of the process
interface over a CoreFile, as Delve's pkg/proc/core beside pkg/proc/native. Writes are
refused in gdb's words; it has no live side (no traps, no resume)."""

from __future__ import annotations

from collections.abc import Mapping

from aliceserver.debuggers import regsets
from aliceserver.debuggers.core.errors import CoreMemoryError
from aliceserver.debuggers.core.reader import CoreFile
from aliceserver.debuggers.core.threads import CoreThread
from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.target import NOT_RUNNING, NotLive
from aliceserver.errors import TargetError


class CoreProcess:
    """The dead process a core holds. `stop` is the signal that ended it, as the engine
    reports it (the thread that took it, its description, the fault)."""

    def __init__(self, core: CoreFile, executable: str, stop: Stopped) -> None:
        self.core = core
        self._executable = executable
        self._stop = stop
        self._threads = {thread.tid: thread for thread in core.threads}

    @property
    def pid(self) -> int:
        if self.core.process is not None and self.core.process.pid:
            return self.core.process.pid
        return self.core.threads[0].tid if self.core.threads else 0

    @property
    def live(self) -> bool:
        return False

    def thread_ids(self) -> list[int]:
        return [thread.tid for thread in self.core.threads]

    def check_stopped(self, tid: int) -> None:
        self._thread(tid)

    def general_registers(self, tid: int) -> Mapping[str, int]:
        return self._thread(tid).registers

    def set_general_register(self, tid: int, name: str, value: int) -> None:
        raise NotLive(NOT_RUNNING)  # gdb's core target has no writable registers

    def float_registers(self, tid: int) -> dict[int, bytes]:
        return regsets.float_registers(self._fxsave(tid))

    def extended_registers(self, tid: int) -> dict[int, bytes]:
        xstate = self._thread(tid).xstate or b""
        return regsets.extended_registers(xstate) if len(xstate) > regsets.FXSAVE_SIZE else {}

    def vector_registers(self, tid: int) -> VectorRegisters:
        return regsets.vector_registers(self._fxsave(tid), self._thread(tid).xstate or b"")

    def set_vector_register(self, tid: int, name: str, data: bytes) -> None:
        raise NotLive(NOT_RUNNING)

    def read_memory(self, address: int, size: int) -> bytes:
        return self.core.read(address, size)

    def write_memory(self, address: int, data: bytes) -> None:
        raise CoreMemoryError(address)  # gdb: a core's memory cannot be written

    def auxv(self) -> Mapping[int, int]:
        return self.core.auxv

    def executable(self) -> str:
        return self._executable

    def thread_name(self, tid: int) -> str:
        return ""  # a core records no thread names (gdb shows none either)

    def last_stop(self) -> Stopped | None:
        return self._stop

    def siginfo(self, tid: int) -> bytes:
        """The thread's NT_SIGINFO (RecordedSignals): gdb's `$_siginfo` on a core."""
        info = self._thread(tid).siginfo
        if info is None:
            raise OSError(f"no NT_SIGINFO for LWP {tid}")
        return info.raw

    def close(self) -> None:
        self.core.close()

    def _thread(self, tid: int) -> CoreThread:
        found = self._threads.get(tid)
        if found is None:
            raise TargetError(f"Unknown thread {tid}.")
        return found

    def _fxsave(self, tid: int) -> bytes:
        thread = self._thread(tid)
        fx = thread.fpregs or (thread.xstate[: regsets.FXSAVE_SIZE] if thread.xstate else None)
        if fx is None or len(fx) < regsets.FXSAVE_SIZE:
            raise TargetError("The core file holds no floating-point registers of this thread.")
        return fx
