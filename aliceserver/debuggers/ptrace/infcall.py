"""Calls into the program over ptrace: the execution side of calls/driver.py's FunctionCall
(CallThread) on one thread of the live process, and the evaluator's caller over it.

The calling thread's general registers and its whole x87/SSE/AVX state (XSAVE, else
FXSAVE) are saved and put back exactly; the plan's vector arguments go into the FXSAVE
area. Only the calling thread runs (gdb's scheduler-locking during calls): statuses of the
others wait their turn, and a thread the called function starts is held too. The time
limit sends the process a SIGSTOP only the calling thread, running alone, can take.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal as sig
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.arch.registry import X86_64_ARCH
from aliceserver.debuggers.calls.driver import (
    CallAbandoned,
    FunctionCall,
    ProgramCaller,
    exited_message,
)
from aliceserver.debuggers.calls.plan import CallPlan, CallRequest
from aliceserver.debuggers.calls.returntrap import plant_return_trap
from aliceserver.debuggers.calls.settings import CallSettings, SavedRegisters
from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.ptrace import binding, registers
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.tracee import AfterStep, Run, Tracee
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, WaitStatus, decode
from aliceserver.debuggers.target import NO_PROCESS
from aliceserver.errors import TargetError

__all__ = ["ProcessCaller", "PtraceCallThread", "SavedState", "save_state"]

log = logging.getLogger(__name__)

_WAIT_ALL = binding.WALL | binding.WNOTHREAD  # our tracees only, never the server's other children
_XSTATE_MAX = 64 * 1024
_FX_XMM = 160  # offset of xmm0 in the FXSAVE area


@dataclass(slots=True)
class SavedState:
    """Everything a call changes in the calling thread, to put back exactly."""

    tid: int
    regs: binding.UserRegs
    fp: bytes
    xstate: bytes | None
    pending_signal: int

    def general_values(self) -> Mapping[str, int]:
        return registers.general(self.regs).values

    def restore(self, inferior: Inferior, t: Tracee) -> None:
        ctypes.memmove(ctypes.addressof(t.regs), ctypes.addressof(self.regs), ctypes.sizeof(self.regs))
        t.regs_valid = True
        t.regs_dirty = False
        inferior.libc.set_regs(t.tid, t.regs)
        if self.xstate is not None:
            inferior.libc.set_regset(t.tid, binding.NT_X86_XSTATE, self.xstate)
        else:
            inferior.libc.set_regset(t.tid, binding.NT_PRFPREG, self.fp)
        t.pending_signal = self.pending_signal


def save_state(inferior: Inferior, t: Tracee) -> SavedState:
    regs = binding.UserRegs()
    ctypes.memmove(ctypes.addressof(regs), ctypes.addressof(inferior.regs(t)), ctypes.sizeof(regs))
    fp = inferior.libc.get_regset(t.tid, binding.NT_PRFPREG, 512)
    try:
        xstate: bytes | None = inferior.libc.get_regset(t.tid, binding.NT_X86_XSTATE, _XSTATE_MAX)
    except OSError:
        xstate = None  # no XSAVE: the FXSAVE area is all there is
    return SavedState(t.tid, regs, fp, xstate, t.pending_signal)


class PtraceCallThread:
    """A CallThread (calls/driver.py) over ptrace."""

    def __init__(self, inferior: Inferior, tid: int) -> None:
        self.inferior = inferior
        self.t = inferior.thread(tid)
        self._fp = b""  # the FXSAVE area before the call: the plan's vectors go into a copy
        self._timer_lock = threading.Lock()
        self._finished = False
        self._timed_out = False

    @property
    def arch(self) -> Architecture:
        return X86_64_ARCH

    @property
    def pid(self) -> int:
        return self.inferior.pid

    @property
    def tid(self) -> int:
        return self.t.tid

    def general(self) -> Mapping[str, int]:
        return registers.LiveRegisters(self.inferior.regs(self.t))

    def vectors(self) -> VectorRegisters | None:
        return registers.vector(self.inferior.libc, self.t.tid)

    def floats(self) -> Mapping[int, bytes]:
        return {}

    def read_memory(self, address: int, size: int) -> bytes:
        return self.inferior.memory.read(address, size)

    def save(self) -> SavedState:
        saved = save_state(self.inferior, self.t)
        self._fp = saved.fp
        return saved

    def restore(self, saved: SavedRegisters) -> None:
        assert isinstance(saved, SavedState)
        saved.restore(self.inferior, self.inferior.threads[saved.tid])

    def apply(self, plan: CallPlan) -> None:
        inferior, t = self.inferior, self.t
        for address, data in plan.memory:
            inferior.memory.write(address, data)
        regs = inferior.regs(t)
        for name, value in plan.general.items():
            registers.set_general(regs, name, value)
        t.regs_dirty = True
        t.pending_signal = 0  # a signal it was about to get waits for the end of the call
        fx = bytearray(self._fp)
        for name, data in plan.vectors.items():
            index = int(name.removeprefix("xmm"))
            fx[_FX_XMM + 16 * index : _FX_XMM + 16 * index + 16] = data
        inferior.libc.set_regset(t.tid, binding.NT_PRFPREG, bytes(fx))

    def report(self, stop: Stopped) -> None:
        self.inferior._report(stop)

    # --- the return trap ------------------------------------------------------------
    def plant_return_trap(self, address: int, ours: Callable[[int], bool], on_hit: Callable[[int], None]) -> int:
        return plant_return_trap(self.inferior.traps, self.inferior.insert_trap, address, ours, on_hit)

    def drop_return_trap(self, ident: int) -> None:
        traps = self.inferior.traps
        if ident not in traps.by_id:
            return
        trap = traps.remove(ident)
        if not trap.logical:
            self.inferior.remove_trap(trap)
            traps.drop_trap(trap.address)

    # --- running --------------------------------------------------------------------
    def run_until_return(self, plan: CallPlan, name: str, timeout: float) -> Stopped | None:
        inferior, t = self.inferior, self.t
        timer = threading.Timer(timeout, self._on_timeout)
        timer.daemon = True
        timer.start()
        inferior.calls_running += 1  # only this thread runs: no jump patch goes in meanwhile
        terminal = inferior.terminal  # the function may read it, as under gdb (given back
        lent = terminal is not None and terminal.give(inferior.terminal_group)  # unless it was)
        try:
            self._resume_alone(step_over=False)  # a breakpoint at the function is hit, as gdb's
            while True:
                tid, status = inferior.libc.waitpid(-1, _WAIT_ALL)
                decoded = decode(status)
                other = inferior.threads.get(tid)
                if tid != t.tid:
                    self._other_thread(tid, other, decoded)
                    if inferior.exit_event is not None:
                        raise CallAbandoned(exited_message(name))
                    continue
                if decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
                    inferior._classify(t, decoded)
                    raise CallAbandoned(exited_message(name))
                if decoded.kind is WaitKind.SIGNAL_STOP and decoded.value == sig.SIGTRAP:
                    t.running = False
                    t.regs_valid = False
                    regs = inferior.regs(t)
                    if int(regs.rip) - 1 == plan.return_address and int(regs.rsp) == plan.sp_after_return:
                        return None
                if decoded.kind is WaitKind.SIGNAL_STOP and decoded.value == sig.SIGSTOP and (
                    self._timed_out or inferior.wake_sent
                ):
                    t.running = False
                    t.regs_valid = False
                    # One SIGSTOP pending stands for both: signals of one number coalesce.
                    inferior.wake_sent = False
                    if self._timed_out:
                        self._timed_out = False  # the timer's SIGSTOP is consumed
                        return Stopped(StopReason.PAUSE, t.tid, address=inferior.pc_or_none(t), description="timeout")
                    # The engine's wake-up, sent for a command that raced the last stop and
                    # left pending while every thread was stopped: the first thread resumed,
                    # this one, takes it. The command waits for the call; the call goes on.
                    self._resume_alone()
                    continue
                outcome = inferior._classify(t, decoded)
                if isinstance(outcome, Stopped):
                    return outcome
                # Whatever else the status was, the call is not over: the thread runs on
                # (left stopped, no status would ever come, nor the time limit's SIGSTOP).
                self._resume_alone()
        finally:
            inferior.calls_running -= 1
            if lent and terminal is not None:
                terminal.take()
            with self._timer_lock:
                timer.cancel()
                self._finished = True
                if self._timed_out:  # its SIGSTOP is still on its way: the engine's wake-up
                    inferior.wake_sent = True

    def _on_timeout(self) -> None:
        with self._timer_lock:
            if self._finished:
                return
            self._timed_out = True
            try:
                os.kill(self.inferior.pid, sig.SIGSTOP)  # only the calling thread runs to take it
            except ProcessLookupError:
                pass

    def _resume_alone(self, *, step_over: bool = True) -> None:
        inferior, t = self.inferior, self.t
        if t.running or t.gone:
            return
        trap = inferior._trap_at_pc(t) if step_over else None
        if trap is not None and not inferior._emulate(t, trap):
            inferior._start_step_over(t, trap, AfterStep.CONTINUE_SELF)
            return
        inferior._cont(t)

    def _other_thread(self, tid: int, t: Tracee | None, decoded: WaitStatus) -> None:
        """A status of another thread: it stays stopped; what it says waits its turn."""
        inferior = self.inferior
        if t is None:
            if decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
                return
            t = inferior._add_thread(tid)  # started by the called function: held too
        stop = inferior._classify(t, decoded)
        if isinstance(stop, Stopped):
            inferior.pending.append(stop)


class ProcessCaller(ProgramCaller):
    """The evaluator's `calls` (expr/calls.py FunctionCaller) on one stopped thread of the
    live process."""

    def __init__(
        self,
        inferior: Inferior,
        tid: int,
        settings: CallSettings,
        entry: int | None,
        symbol_at: Callable[[int], str | None],
        address_of: Callable[[str], int | None],
        after_call: Callable[[], None],
    ) -> None:
        super().__init__(settings, entry, symbol_at, address_of, inferior.memory.write, after_call)
        self._inferior = inferior
        self._tid = tid

    def _run(self, request: CallRequest, return_address: int) -> bytes:
        inferior = self._inferior
        if inferior.exit_event is not None or inferior.run is Run.EXITED:
            raise TargetError(NO_PROCESS)
        # A breakpoint's condition is judged while the other threads run: they are held for
        # the call (gdb's scheduler-locking during calls) and go on after it returns.
        in_condition = inferior.run is Run.RUNNING
        held = [t for t in inferior.threads.values() if t.tid != self._tid and t.running and not t.gone]
        if in_condition:
            inferior._stop_others(self._tid)
        call = FunctionCall(PtraceCallThread(inferior, self._tid), return_address, self._settings,
                            report=not in_condition)  # fmt: skip
        data = call.run(request)
        if in_condition:  # the tracer resumes them once the condition is judged (tracer.py)
            waiting = {stop.thread_id for stop in inferior.pending}
            inferior.parked.extend(t for t in held if not (t.gone or t.running or t.tid in waiting))
        return data
