"""The read side of a process behind a stub (ProcessTarget, debuggers/target.py): its
threads, registers (read once per stop and thread, `g`), memory (in chunks the stub's packet
size allows), auxv, libraries and executable, and the state a stop leaves. process.py adds
the live side over it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from aliceserver.debuggers.arch.registry import described_architecture
from aliceserver.debuggers.events import Event, Exited, Output, Stopped
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.remote import stops, tdesc
from aliceserver.debuggers.remote.breakpoints import StubBreakpoint, StubBreakpoints
from aliceserver.debuggers.remote.client import RemoteClient
from aliceserver.debuggers.remote.errors import RemoteUnsupported
from aliceserver.debuggers.remote.libraries import SvrLibraries
from aliceserver.debuggers.remote.libraries import parse as parse_libraries
from aliceserver.debuggers.remote.memory import RemoteMemory
from aliceserver.debuggers.remote.regcache import RegisterCache
from aliceserver.debuggers.remote.registers import RegisterView, described_register
from aliceserver.debuggers.remote.threadids import ThreadRef
from aliceserver.debuggers.remote.threadlist import ThreadList
from aliceserver.debuggers.symbols.auxv import parse_auxv
from aliceserver.debuggers.symbols.dwarf.types import Type
from aliceserver.debuggers.target import NO_PROCESS, NOT_RUNNING, NotLive, ProcessTarget
from aliceserver.errors import TargetError


class RemoteTarget:
    """What every stopped process behind a stub offers; RemoteProcess drives it."""

    stack_block = 0x100  # a stop's frame read in one memory cache line (unwind.stack_block)

    def __init__(self, client: RemoteClient, *, extended: bool = False) -> None:
        self.client = client
        self.extended = extended
        self.memory = RemoteMemory(client)
        self.breakpoints = StubBreakpoints(client, self.memory)
        self._describe(tdesc.TargetDescription("", "", (), ()))
        self._stepped_over: StubBreakpoint | None = None  # lifted for a step: back at its stop
        self._early: stops.StopReply | None = None  # a stop that came during a step-over
        self.on_event: Callable[[Event], None] = lambda event: None  # Output before a stop
        client.on_output = lambda text: self.on_event(Output("stdout", text))
        self._pid = 0
        self.threads = ThreadList(client)
        self._last_stop: Stopped | None = None
        self.last_reply: stops.SignalStop | None = None  # the stop reply itself (watch address...)
        self._exited: Exited | None = None
        self._running = False
        self._stepping = False
        self._range: tuple[int, int] | None = None  # the range a `vCont;r` steps in
        self._prefetched = False  # this stop's list, registers and stack line are asked
        self._interrupted = False
        self._pending_signals: dict[int, int] = {}  # tid -> wire signal to deliver on resume
        self._lock = threading.Lock()

    def _describe(self, description: tdesc.TargetDescription) -> None:
        self.description = description
        self.arch = described_architecture(description.architecture)
        self.view = RegisterView(description)
        self.registers = RegisterCache(self.client, description)
        self._pc = "rip" if "rip" in description else "pc"
        self.breakpoints.trap = self.arch.breakpoint
        self.breakpoints.pc_after_trap = self.arch.pc_after_trap
        self.breakpoints.kind = self.arch.breakpoint_kind

    def _read_description(self) -> None:
        """The stub's target.xml, once it debugs a process (gdbserver 13 builds its x86
        description only then, and fails an assertion when asked before)."""
        if self.description.registers:
            return
        if not self.client.supports("qXfer:features:read"):
            raise RemoteUnsupported("The stub gives no target description (qXfer:features:read).")
        self._describe(tdesc.parse(lambda annex: self.client.xfer_read("features", annex)))

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def live(self) -> bool:
        return self._exited is None and self._pid != 0

    def thread_ids(self) -> list[int]:
        return [ref.tid for ref in self._thread_refs()]

    def siginfo(self, tid: int) -> bytes:
        """The siginfo_t of the thread's last stop, as gdb reads `$_siginfo` over a stub
        (qXfer:siginfo:read of the `Hg` thread); OSError where the stub gives none."""
        self.check_stopped(tid)
        try:
            self.client.select_thread(self._ref(tid))
            return self.client.xfer_read("siginfo")
        except TargetError as error:  # no such object offered, or refused (E01: no signal)
            raise OSError(str(error)) from None

    def check_stopped(self, tid: int) -> None:
        if not self.live:
            raise NotLive(NO_PROCESS)
        if self._running:
            raise TargetError(f"Thread {tid} is running.")
        self._ref(tid)

    def general_registers(self, tid: int) -> Mapping[str, int]:
        self.check_stopped(tid)
        return self.registers.general(self._ref(tid), self.view.general_names)

    def set_general_register(self, tid: int, name: str, value: int) -> None:
        self.check_stopped(tid)
        target, data = self.view.encode_general(name, value)
        self.registers.write(self._ref(tid), target, data)

    def float_registers(self, tid: int) -> dict[int, bytes]:
        return self.view.float_registers(self._reader(tid))

    def extended_registers(self, tid: int) -> dict[int, bytes]:
        return self.view.extended_registers(self._reader(tid))

    def vector_registers(self, tid: int) -> VectorRegisters:
        return self.view.vector(self._reader(tid))

    def set_vector_register(self, tid: int, name: str, data: bytes) -> None:
        self.check_stopped(tid)
        self.registers.write_many(self._ref(tid), self.view.encode_vector(name, data))

    def read_memory(self, address: int, size: int) -> bytes:
        self._check_live()
        return self.memory.read(address, size)

    def write_memory(self, address: int, data: bytes) -> None:
        self._check_live()
        self.memory.write(address, data)

    def auxv(self) -> Mapping[int, int]:
        self._check_live()
        return parse_auxv(self.client.xfer_read("auxv"))

    def libraries(self) -> SvrLibraries:
        """The shared libraries loaded now, as the stub reads the loader's link_map."""
        self._check_live()
        return parse_libraries(self.client.xfer_read("libraries-svr4"))

    def executable(self) -> str:
        annex = f"{self._pid:x}" if self.client.multiprocess and self._pid else ""
        return self.client.xfer_read("exec-file", annex).decode(errors="surrogateescape")

    def thread_name(self, tid: int) -> str:
        return self.threads.name(tid)

    def read_register(self, tid: int, name: str) -> bytes:
        """Register `name` of the description, raw (target order), in thread `tid`."""
        if name not in self.description:
            raise TargetError(f"Invalid register `{name}'")
        return self._reader(tid)(name)

    def described_register(self, tid: int, name: str) -> tuple[Type, bytes] | None:
        """Register `name` of the description, typed as gdb types it there (DescribedRegisters)."""
        return described_register(self.description, name, self._reader(tid))

    def thread_details(self, tid: int) -> str:
        """A stub's words on a thread (gdb's extra_thread_info): qThreadExtraInfo where the
        stub lists no threads in XML (whose own text gdbserver leaves empty)."""
        if self.client.supports("qXfer:threads:read"):
            return ""
        try:
            reply = self.client.ask(b"qThreadExtraInfo," + self._ref(tid).encode(self.client.multiprocess))
            return bytes.fromhex(reply.decode("ascii")).decode(errors="replace") if reply else ""
        except (TargetError, ValueError):
            return ""  # gdb shows none where the stub gives none

    def last_stop(self) -> Stopped | None:
        return self._last_stop

    @property
    def exit_event(self) -> Exited | None:
        return self._exited

    def close(self) -> None:
        self.client.close()

    # --- inside -----------------------------------------------------------------------
    def _thread_refs(self) -> list[ThreadRef]:
        if self._running:
            raise TargetError("Cannot list the threads of a running program.")
        return self.threads.refs()

    def _ref(self, tid: int) -> ThreadRef:
        if self._running:
            raise TargetError(f"Thread {tid} is running.")
        return self.threads.ref(tid)

    def _reader(self, tid: int) -> Callable[[str], bytes]:
        self.check_stopped(tid)
        ref = self._ref(tid)
        return lambda name: self.registers.read(ref, name)

    def _check_live(self) -> None:
        if self._exited is not None:
            raise NotLive(NOT_RUNNING)
        if not self._pid:
            raise NotLive(NO_PROCESS)


def _satisfies_the_protocol(target: RemoteTarget) -> ProcessTarget:
    return target  # mypy checks here that RemoteTarget is a ProcessTarget
