"""Calls into the program through a stub: the execution side of calls/driver.py's
FunctionCall (CallThread) on one thread of the process a RemoteSession debugs, and the
evaluator's caller over it, as gdb makes them over gdbserver.

Every register of gdb's features in the target description is saved (one `g`, `p` for the
rest) and the ones the call changed are written back (`P`), with the last stop's state
(gdb's infcall_suspend_state). Only the calling thread runs (`vCont;c:TID`: the others stay
stopped, gdb's scheduler-locking during calls) and its stop replies are taken on the
engine's own thread, synchronously; each is judged as any stop (RemoteSession.told): a
breakpoint's condition, a signal's policy. The return trap is a Z0 breakpoint at the
entry point; the time limit sends ^C.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.calls.driver import (
    CallAbandoned,
    FunctionCall,
    ProgramCaller,
    exited_message,
)
from aliceserver.debuggers.calls.plan import CallPlan, CallRequest
from aliceserver.debuggers.calls.returntrap import plant_return_trap
from aliceserver.debuggers.calls.settings import CallSettings, SavedRegisters
from aliceserver.debuggers.events import Exited, Stopped, StopReason
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.remote.errors import RemoteError
from aliceserver.debuggers.remote.process import RemoteProcess, SuspendState
from aliceserver.debuggers.remote.session import RemoteSession
from aliceserver.debuggers.target import NO_PROCESS
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

_STANDARD = "org.gnu.gdb."  # gdb's own features: every register a program can change


@dataclass(frozen=True, slots=True)
class RemoteSaved:
    """The calling thread's registers (by description name, raw) and the stop's state."""

    tid: int
    raw: dict[str, bytes]
    general: dict[str, int]
    suspended: SuspendState

    def general_values(self) -> Mapping[str, int]:
        return self.general


class RemoteCallThread:
    """A CallThread (calls/driver.py) through a stub."""

    def __init__(self, session: RemoteSession, process: RemoteProcess, tid: int) -> None:
        self.session = session
        self.process = process
        self._tid = tid
        self._timer_lock = threading.Lock()
        self._finished = False
        self._timed_out = False

    @property
    def arch(self) -> Architecture:
        return self.process.arch

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def tid(self) -> int:
        return self._tid

    def general(self) -> Mapping[str, int]:
        return self.process.general_registers(self._tid)

    def vectors(self) -> VectorRegisters | None:
        try:
            return self.process.vector_registers(self._tid)
        except TargetError:
            return None  # not x86-64: floats() tells

    def floats(self) -> Mapping[int, bytes]:
        return self.process.float_registers(self._tid)

    def read_memory(self, address: int, size: int) -> bytes:
        return self.process.read_memory(address, size)

    def report(self, stop: Stopped) -> None:
        self.session.publish_stop(self.process, stop)

    # --- registers ------------------------------------------------------------------
    def save(self) -> RemoteSaved:
        process = self.process
        process.check_stopped(self._tid)
        ref = process.threads.ref(self._tid)
        raw: dict[str, bytes] = {}
        for register in process.description.registers:
            if not register.feature.startswith(_STANDARD):
                continue  # a stub's own (qemu's system registers): no call in user mode changes them
            try:
                raw[register.name] = process.registers.read(ref, register.name)
            except RemoteError as error:  # one the stub does not give: nor does it change
                log.debug("not saved for a call: %s", error)
        general = dict(self.general())
        return RemoteSaved(self._tid, raw, general, process.suspend_state())

    def restore(self, saved: SavedRegisters) -> None:
        assert isinstance(saved, RemoteSaved)
        process = self.process
        ref = process.threads.ref(saved.tid)
        for name, data in saved.raw.items():
            try:
                if process.registers.read(ref, name) != data:
                    process.registers.write(ref, name, data)
            except RemoteError as error:
                log.warning("register %s not restored after a call: %s", name, error)
        process.restore_suspend_state(saved.suspended)

    def apply(self, plan: CallPlan) -> None:
        process, tid = self.process, self._tid
        for address, data in plan.memory:
            process.write_memory(address, data)
        for name, value in plan.general.items():
            process.set_general_register(tid, name, value)
        ref = process.threads.ref(tid)
        for name, data in plan.vectors.items():
            target = _vector_register(process, name)
            process.registers.write(ref, target, data.ljust(process.description[target].size, b"\0"))
        process.drop_pending_signal(tid)  # a signal it was about to get waits for the end of the call

    # --- the return trap ------------------------------------------------------------
    def plant_return_trap(self, address: int, ours: Callable[[int], bool], on_hit: Callable[[int], None]) -> int:
        traps = self.session.traps
        return plant_return_trap(traps.table, traps.place, address, ours, on_hit)

    def drop_return_trap(self, ident: int) -> None:
        if ident in self.session.traps.table.by_id:
            self.session.traps.remove_logical(ident)

    # --- running --------------------------------------------------------------------
    def run_until_return(self, plan: CallPlan, name: str, timeout: float) -> Stopped | None:
        process, tid = self.process, self._tid
        timer = threading.Timer(timeout, self._on_timeout)
        timer.daemon = True
        timer.start()
        try:
            first = True
            while True:
                process.resume(tid, step_over=not first)  # a breakpoint at the function is hit
                first = False
                event = process.wait()
                if isinstance(event, Exited):
                    self.session.process_exited(process, event)
                    raise CallAbandoned(exited_message(name))
                if self._timed_out and event.reason is StopReason.PAUSE:
                    return Stopped(StopReason.PAUSE, event.thread_id, address=event.address, description="timeout")
                if event.thread_id == tid and event.address == plan.return_address and \
                        process.general_registers(tid)[process.arch.sp] == plan.sp_after_return:  # fmt: skip
                    return None
                told = self.session.told(process, event)
                if told is not None:
                    return told
        finally:
            with self._timer_lock:
                timer.cancel()
                self._finished = True

    def _on_timeout(self) -> None:
        with self._timer_lock:
            if self._finished:
                return
            self._timed_out = True
            self.process.interrupt()  # ^C: the stub stops the program


def _vector_register(process: RemoteProcess, name: str) -> str:
    """The description's register for `name`: itself, or with SVE aarch64's z register
    under v (a write to v clears the rest of z, as gdb's pseudo register write does)."""
    if name in process.description:
        return name
    wide = "z" + name[1:]
    if name.startswith("v") and wide in process.description:
        return wide
    raise TargetError(f"Invalid register `{name}'")


class RemoteCaller(ProgramCaller):
    """The evaluator's `calls` (expr/calls.py FunctionCaller) on one stopped thread of the
    process behind a stub."""

    def __init__(
        self,
        session: RemoteSession,
        process: RemoteProcess,
        tid: int,
        settings: CallSettings,
        entry: int | None,
        symbol_at: Callable[[int], str | None],
        address_of: Callable[[str], int | None],
        after_call: Callable[[], None],
    ) -> None:
        super().__init__(settings, entry, symbol_at, address_of, process.write_memory, after_call)
        self._session = session
        self._process = process
        self._tid = tid

    def _run(self, request: CallRequest, return_address: int) -> bytes:
        process = self._process
        if not process.live:
            raise TargetError(NO_PROCESS)
        # In a breakpoint's condition, the breakpoint's own stop reports a stop in the call
        call = FunctionCall(RemoteCallThread(self._session, process, self._tid), return_address, self._settings,
                            report=not self._session.judging)  # fmt: skip
        return call.run(request)
