"""Calling a function of the stopped program (gdb's infcall), by the System V x86-64 ABI.

The calling thread's registers (general, x87/SSE/AVX) are saved; below its stack pointer
the 128-byte red zone is skipped, then come the result buffer of a function returning in
memory and the arguments passed on the stack; rsp is 16-aligned at the call, and the
return address pushed is the program's entry point (AT_ENTRY), where the engine keeps a
trap for as long as the call runs. Like gdb, which returns to the entry point too: it is
code of the main executable, always mapped and executable, and it runs once, before main,
so no thread of the program ever reaches it but the call returning. rax (al) holds how
many vector registers carry arguments (varargs callees read it). Only the calling thread
runs (gdb's scheduler-locking during calls): the others stay stopped.

A call that hits a breakpoint, gets a signal or runs past the time limit stops there and
says so in gdb's words; with `unwind_on_signal` (gdb's `set unwindonsignal on`) a signal
restores the state before the call instead. The default is gdb's, off: the program stays
where it stopped, and when the function returns, its trap restores the state before the
call (gdb: "GDB will silently stop"). The time limit, which gdb 13 lacks (30 s,
CallSettings.timeout), keeps a call that never returns from holding the engine forever; it
stops the program where it was, as a breakpoint does, in the words of gdb 14's
direct-call-timeout.
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal as sig
import threading
from dataclasses import dataclass, field
from typing import Callable

from aliceserver.debuggers.events import CALL_LEFT_STOPPED, CALL_RETURNED, Stopped, StopReason
from aliceserver.debuggers.model import Registers, VectorRegisters
from aliceserver.debuggers.ptrace import binding, registers
from aliceserver.debuggers.ptrace.callabi import plan_arguments, returns_in_memory
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.tracee import AfterStep, Run, Tracee
from aliceserver.debuggers.ptrace.traps import LogicalBreakpoint
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, decode
from aliceserver.debuggers.source.retvalue import return_bytes
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, Type, VoidType, strip
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

RED_ZONE = 128
CALL_TIMEOUT = 30.0  # seconds; below the tracer's command patience (tracer.py)
_WAIT_ALL = binding.WALL
_XSTATE_MAX = 64 * 1024
_MASK64 = (1 << 64) - 1
_FX_XMM = 160  # offset of xmm0 in the FXSAVE area


class CallAbandoned(EvaluationError):
    """The call stopped before returning (a breakpoint, a signal, the time limit, an exit)."""


@dataclass(frozen=True, slots=True)
class CallRequest:
    name: str  # as gdb names the function in its messages
    address: int
    arguments: tuple[tuple[Type, bytes], ...]  # each as its parameter's type holds it
    returns: Type  # VoidType for none


@dataclass(slots=True)
class SavedState:
    """Everything a call changes in the calling thread, to put back exactly."""

    tid: int
    regs: binding.UserRegs
    fp: bytes
    xstate: bytes | None
    pending_signal: int

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


@dataclass(slots=True)
class CallSettings:
    unwind_on_signal: bool = False  # gdb's default
    may_call: bool = True  # gdb's may-call-functions
    timeout: float = CALL_TIMEOUT
    frames: list[int] = field(default_factory=list)  # return traps of calls left stopped
    # The state before each call left stopped, by (pid, rsp after its return): the unwinder
    # goes on from it past the call's frame (gdb's dummy frame, <function called from gdb>).
    dummies: dict[tuple[int, int], SavedState] = field(default_factory=dict)
    # By thread: the registers a call left stopped returned with, read before its dummy
    # frame is popped, so a finish that ends there shows the value (as gdb's does).
    returned: dict[int, tuple[Registers, VectorRegisters]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CallResult:
    data: bytes  # the return value's bytes (empty for void)


def _extend(t: Type, data: bytes) -> int:
    """An integer argument's register value: small signed types sign-extended."""
    s = strip(t)
    value = int.from_bytes(data[:8], "little")
    if isinstance(s, BaseType) and s.encoding is Encoding.SIGNED and 0 < len(data) < 8:
        bits = 8 * len(data)
        value = ((value ^ (1 << (bits - 1))) - (1 << (bits - 1))) & _MASK64
    return value


class FunctionCall:
    """One call on one thread: set up, run, collect or abandon."""

    def __init__(
        self, inferior: Inferior, tid: int, return_address: int, settings: CallSettings, *, report: bool = True
    ) -> None:
        self.inferior = inferior
        # A stop ending the call early is reported here, except in a breakpoint's condition:
        # there the breakpoint's own stop reports it, after the condition's error (gdb 13
        # reports both, the call's stop first; one stop keeps every front end's run whole).
        self.report = report
        self.t = inferior.thread(tid)
        self.return_address = return_address
        self.settings = settings
        self._timer_lock = threading.Lock()
        self._finished = False
        self._timed_out = False

    def run(self, request: CallRequest) -> CallResult:
        inferior, t = self.inferior, self.t
        saved = save_state(inferior, t)
        regs = inferior.regs(t)
        sp = (int(regs.rsp) - RED_ZONE) & ~0xF
        result_address = None
        if returns_in_memory(request.returns):
            sp = (sp - strip(request.returns).size) & ~0xF
            result_address = sp
        params = [(f"arg{i}", t_) for i, (t_, _) in enumerate(request.arguments)]
        slots = plan_arguments(params, request.returns)
        stack_size = max(
            ((s.stack_offset - 8 + (len(data) + 7) // 8 * 8) for s, (_, data) in zip(slots, request.arguments, strict=True)
             if s.stack_offset is not None),
            default=0,
        )  # fmt: skip
        call_sp = (sp - stack_size) & ~0xF  # rsp at the call instruction: 16-aligned
        fx = bytearray(saved.fp)
        sse_used = 0
        for slot, (_, data) in zip(slots, request.arguments, strict=True):
            if slot.stack_offset is not None:
                inferior.memory.write(call_sp + slot.stack_offset - 8, data)
                continue
            padded = data.ljust(8 * len(slot.pieces), b"\0")
            for i, (kind, where) in enumerate(slot.pieces):
                piece = padded[8 * i : 8 * i + 8]
                if kind == "int":
                    value = _extend(slot.type, data) if len(slot.pieces) == 1 else int.from_bytes(piece, "little")
                    registers.set_general(regs, str(where), value)
                else:
                    index = int(where)
                    fx[_FX_XMM + 16 * index : _FX_XMM + 16 * index + 16] = piece.ljust(16, b"\0")
                    sse_used = max(sse_used, index + 1)
        if result_address is not None:
            regs.rdi = result_address
        entry_sp = call_sp - 8
        inferior.memory.write(entry_sp, self.return_address.to_bytes(8, "little"))
        regs.rsp = entry_sp
        regs.rip = request.address
        regs.rax = sse_used
        regs.orig_rax = _MASK64  # -1: a syscall the thread was stopped in is not restarted now
        t.regs_dirty = True
        t.pending_signal = 0  # a signal it was about to get waits for the end of the call
        inferior.libc.set_regset(t.tid, binding.NT_PRFPREG, bytes(fx))
        trap = self._plant_return_trap(entry_sp + 8, saved)
        stop = self._run_until_return(entry_sp + 8, request.name)
        if stop is None:
            data = self._collect(request.returns, result_address)
            self._drop_return_trap(trap)
            saved.restore(inferior, t)
            return CallResult(data)
        return self._abandon(stop, request.name, trap, saved, entry_sp + 8)

    # --- the return trap ------------------------------------------------------------
    def _plant_return_trap(self, sp_after_return: int, saved: SavedState) -> LogicalBreakpoint:
        """The trap where the call returns. Left in place when the call stops early: when
        the function returns later, it puts the thread's state back (gdb's dummy frame)."""
        inferior, tid = self.inferior, self.t.tid

        def ours(hit: int) -> bool:
            return hit == tid and int(inferior.regs(inferior.threads[hit]).rsp) == sp_after_return

        def finished(hit: int) -> None:  # a call left stopped has returned: silently undo it
            self.settings.returned[hit] = (
                registers.general(inferior.regs(inferior.threads[hit])), registers.vector(inferior.libc, hit))
            saved.restore(inferior, inferior.threads[hit])
            if bp.id in self.settings.frames:
                self.settings.frames.remove(bp.id)
            self.settings.dummies.pop((inferior.pid, sp_after_return), None)

        bp = LogicalBreakpoint(
            inferior.traps.new_internal_id(), self.return_address, temporary=True, internal=True,
            condition=ours, on_hit=finished, reports=StopReason.STEP,
            note=CALL_RETURNED,
        )  # fmt: skip
        inferior.insert_trap(inferior.traps.add(bp, b""))
        return bp

    def _drop_return_trap(self, bp: LogicalBreakpoint) -> None:
        traps = self.inferior.traps
        if bp.id not in traps.by_id:
            return
        trap = traps.remove(bp.id)
        if not trap.logical:
            self.inferior.remove_trap(trap)
            traps.drop_trap(trap.address)

    # --- running --------------------------------------------------------------------
    def _run_until_return(self, sp_after_return: int, name: str) -> Stopped | None:
        """None when the call returned; else the stop that ended it early."""
        inferior, t = self.inferior, self.t
        timer = threading.Timer(self.settings.timeout, self._on_timeout)
        timer.daemon = True
        timer.start()
        try:
            self._resume_alone()
            while True:
                tid, status = inferior.libc.waitpid(-1, _WAIT_ALL)
                decoded = decode(status)
                other = inferior.threads.get(tid)
                if tid != t.tid:
                    self._other_thread(tid, other, decoded)
                    if inferior.exit_event is not None:
                        raise CallAbandoned(_exited(name))
                    continue
                if decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
                    inferior._classify(t, decoded)
                    raise CallAbandoned(_exited(name))
                if decoded.kind is WaitKind.SIGNAL_STOP and decoded.value == sig.SIGTRAP:
                    t.running = False
                    t.regs_valid = False
                    regs = inferior.regs(t)
                    if int(regs.rip) - 1 == self.return_address and int(regs.rsp) == sp_after_return:
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

    def _resume_alone(self) -> None:
        inferior, t = self.inferior, self.t
        if t.running or t.gone:
            return
        trap = inferior._trap_at_pc(t)
        if trap is not None and not inferior._emulate(t, trap):
            inferior._start_step_over(t, trap, AfterStep.CONTINUE_SELF)
            return
        inferior._cont(t)

    def _other_thread(self, tid: int, t: Tracee | None, decoded: object) -> None:
        """A status of another thread: it stays stopped; what it says waits its turn."""
        inferior = self.inferior
        from aliceserver.debuggers.ptrace.waitstatus import WaitStatus

        assert isinstance(decoded, WaitStatus)
        if t is None:
            if decoded.kind in (WaitKind.EXITED, WaitKind.KILLED):
                return
            t = inferior._add_thread(tid)  # started by the called function: held too
        stop = inferior._classify(t, decoded)
        if isinstance(stop, Stopped):
            inferior.pending.append(stop)

    # --- ending ---------------------------------------------------------------------
    def _collect(self, returns: Type, result_address: int | None) -> bytes:
        inferior, t = self.inferior, self.t
        if isinstance(strip(returns), VoidType):
            return b""
        if result_address is not None:
            return inferior.memory.read(result_address, strip(returns).size)
        vectors = registers.vector(inferior.libc, t.tid)
        data, address = return_bytes(returns, registers.LiveRegisters(inferior.regs(t)), vectors)
        if data is None and address is not None:
            return inferior.memory.read(address, strip(returns).size)
        return data or b""

    def _abandon(
        self, stop: Stopped, name: str, bp: LogicalBreakpoint, saved: SavedState, sp_after_return: int
    ) -> CallResult:
        inferior, t = self.inferior, self.t
        signaled = stop.reason in (StopReason.SIGNAL, StopReason.CRASH)
        if signaled and self.settings.unwind_on_signal:
            self._drop_return_trap(bp)
            saved.restore(inferior, t)
            raise CallAbandoned(
                "The program being debugged was signaled while in a function called from GDB.\n"
                "GDB has restored the context to what it was before the call.\n"
                'To change this behavior use "set unwindonsignal off".\n'
                "Evaluation of the expression containing the function\n"
                f"({name}) will be abandoned."
            )
        self.settings.frames.append(bp.id)
        self.settings.dummies[(inferior.pid, sp_after_return)] = saved
        if self.report:
            inferior._report(stop)
        if signaled:
            raise CallAbandoned(
                "The program being debugged was signaled while in a function called from GDB.\n"
                "GDB remains in the frame where the signal was received.\n"
                'To change this behavior use "set unwindonsignal on".\n'
                "Evaluation of the expression containing the function\n"
                f"({name}) will be abandoned.\n"
                + CALL_LEFT_STOPPED
            )
        if stop.description == "timeout":
            raise CallAbandoned(
                "The program being debugged timed out while in a function called from GDB.\n"
                "GDB remains in the frame where the timeout occurred.\n"
                "Evaluation of the expression containing the function\n"
                f"({name}) will be abandoned.\n"
                + CALL_LEFT_STOPPED
            )
        raise CallAbandoned(
            "The program being debugged stopped while in a function called from GDB.\n"
            "Evaluation of the expression containing the function\n"
            f"({name}) will be abandoned.\n"
            + CALL_LEFT_STOPPED
        )


def _exited(name: str) -> str:
    return (
        "The program being debugged exited while in a function called from GDB.\n"
        "Evaluation of the expression containing the function\n"
        f"({name}) will be abandoned."
    )


class ProcessCaller:
    """The evaluator's `calls` (expr/calls.py FunctionCaller) on one stopped thread."""

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
        self._inferior = inferior
        self._tid = tid
        self._settings = settings
        self._entry = entry
        self._symbol_at = symbol_at
        self._address_of = address_of
        self._after_call = after_call

    def call(self, name: str, address: int, arguments: list[tuple[Type, bytes]], returns: Type) -> bytes:
        if not self._settings.may_call:
            raise EvaluationError("Cannot call functions in the program: may-call-functions is off.")
        if self._entry is None:
            raise TargetError("Cannot call functions: the program's entry point is unknown.")
        if self._inferior.exit_event is not None or self._inferior.run is Run.EXITED:
            raise TargetError("You can't do that without a process to debug.")
        request = CallRequest(name, address, tuple(arguments), returns)
        inferior = self._inferior
        # A breakpoint's condition is judged while the other threads run: they are held for
        # the call (gdb's scheduler-locking during calls) and go on after it returns.
        in_condition = inferior.run is Run.RUNNING
        held = [t for t in inferior.threads.values() if t.tid != self._tid and t.running and not t.gone]
        if in_condition:
            inferior._stop_others(self._tid)
        try:
            call = FunctionCall(inferior, self._tid, self._entry, self._settings, report=not in_condition)
            data = call.run(request).data
        except OSError as error:  # memory or registers the kernel refused
            raise EvaluationError(f"Cannot call {name}: {error.strerror}") from None
        finally:
            self._after_call()
        if in_condition:  # the tracer resumes them once the condition is judged (tracer.py)
            waiting = {stop.thread_id for stop in inferior.pending}
            inferior.parked.extend(t for t in held if not (t.gone or t.running or t.tid in waiting))
        return data

    def allocate(self, data: bytes) -> int:
        """gdb's allocate_space_in_inferior: the program's own malloc gives the memory."""
        malloc = self._address_of("malloc")
        if malloc is None:
            raise TargetError('evaluation of this expression requires the program to have a function "malloc".')
        size = BaseType("unsigned long", 8, Encoding.UNSIGNED)
        pointer = BaseType("unsigned long", 8, Encoding.UNSIGNED)
        raw = self.call("malloc", malloc, [(size, max(len(data), 1).to_bytes(8, "little"))], pointer)
        address = int.from_bytes(raw[:8], "little")
        if address == 0:
            raise TargetError("No memory available to program: call to malloc failed")
        self._inferior.memory.write(address, data)
        return address

    def address_of(self, symbol: str) -> int | None:
        return self._address_of(symbol)

    def name_of(self, address: int) -> str:
        name = self._symbol_at(address)
        return name if name is not None else f"at 0x{address:#x}"  # gdb's words, doubled 0x too
