"""Running a call into the stopped program (gdb's infcall), over any live backend.

The calling thread's registers are saved, the ABI's plan (plan.py) applied, and the thread
alone resumed (gdb's scheduler-locking during calls: the others stay stopped) until it
returns to the program's entry point (AT_ENTRY), where a trap waits for as long as the
call runs. Like gdb, which returns to the entry point too: it is code of the main
executable, always mapped and executable, and it runs once, before main, so no thread of
the program ever reaches it but the call returning. The value is collected where the ABI
leaves it, and the registers put back exactly. A backend does the execution (CallThread):
ptrace/infcall.py over ptrace, remote/calls.py through a stub.

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

from collections.abc import Callable, Mapping
from typing import NoReturn, Protocol

from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.calls.plan import CallPlan, CallRequest, plan_call, returned_bytes
from aliceserver.debuggers.calls.settings import CallSettings, SavedRegisters
from aliceserver.debuggers.events import CALL_LEFT_STOPPED, Stopped, StopReason
from aliceserver.debuggers.model import Registers, VectorRegisters
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding, Type
from aliceserver.errors import TargetError


class CallAbandoned(EvaluationError):
    """The call stopped before returning (a breakpoint, a signal, the time limit, an exit)."""


class CallThread(Protocol):
    """What a backend does for one call on one stopped thread."""

    @property
    def arch(self) -> Architecture: ...

    @property
    def pid(self) -> int: ...

    @property
    def tid(self) -> int: ...

    def general(self) -> Mapping[str, int]:
        """The thread's general registers now, by gdb name."""
        ...

    def vectors(self) -> VectorRegisters | None: ...

    def floats(self) -> Mapping[int, bytes]:
        """Float/vector registers by DWARF number (aarch64's v0-v31)."""
        ...

    def read_memory(self, address: int, size: int) -> bytes: ...

    def save(self) -> SavedRegisters: ...

    def restore(self, saved: SavedRegisters) -> None:
        """Every register as saved, and the signal the thread was to get."""
        ...

    def apply(self, plan: CallPlan) -> None:
        """Memory and registers as the plan says; a signal the thread was about to get
        waits for the end of the call."""
        ...

    def plant_return_trap(self, address: int, ours: Callable[[int], bool], on_hit: Callable[[int], None]) -> int:
        """An internal temporary trap at `address` for the thread `ours` accepts, reported
        as CALL_RETURNED when hit later; its id."""
        ...

    def drop_return_trap(self, ident: int) -> None: ...

    def run_until_return(self, plan: CallPlan, name: str, timeout: float) -> Stopped | None:
        """Resume the thread alone; None when it returned to the plan's return address with
        the plan's stack pointer, else the stop that ended the call early (a PAUSE stop
        described "timeout" past `timeout` seconds). CallAbandoned when the program exits."""
        ...

    def report(self, stop: Stopped) -> None:
        """Publish the stop that ended a call early."""
        ...


class FunctionCall:
    """One call on one thread: set up, run, collect or abandon."""

    def __init__(self, thread: CallThread, return_address: int, settings: CallSettings, *, report: bool = True) -> None:
        self.thread = thread
        self.return_address = return_address
        self.settings = settings
        # A stop ending the call early is reported here, except in a breakpoint's condition:
        # there the breakpoint's own stop reports it, after the condition's error (gdb 13
        # reports both, the call's stop first; one stop keeps every front end's run whole).
        self.report = report

    def run(self, request: CallRequest) -> bytes:
        """The bytes of the value returned (empty for void)."""
        thread = self.thread
        saved = thread.save()
        try:
            plan = plan_call(thread.arch, request, thread.general(), self.return_address)
            thread.apply(plan)
            trap = self._plant_return_trap(plan, saved)
        except BaseException:  # a register or memory refused: the thread as it was
            thread.restore(saved)
            raise
        stop = thread.run_until_return(plan, request.name, self.settings.timeout)
        if stop is None:
            data = returned_bytes(thread.arch, request.returns, plan, thread.general(), thread.vectors,
                                  thread.floats, thread.read_memory)  # fmt: skip
            thread.drop_return_trap(trap)
            thread.restore(saved)
            return data
        self._abandon(stop, request.name, trap, saved, plan.sp_after_return)

    def _plant_return_trap(self, plan: CallPlan, saved: SavedRegisters) -> int:
        """The trap where the call returns. Left in place when the call stops early: when
        the function returns later, it puts the thread's state back (gdb's dummy frame)."""
        thread, settings, sp_after_return = self.thread, self.settings, plan.sp_after_return
        sp = thread.arch.sp

        def ours(hit: int) -> bool:
            return hit == thread.tid and thread.general()[sp] == sp_after_return

        def finished(hit: int) -> None:  # a call left stopped has returned: silently undo it
            vectors = thread.vectors() or VectorRegisters({}, (), (), ())
            settings.returned[hit] = (Registers(dict(thread.general())), vectors)
            thread.restore(saved)
            if ident in settings.frames:
                settings.frames.remove(ident)
            settings.dummies.pop((thread.pid, sp_after_return), None)

        ident = thread.plant_return_trap(plan.return_address, ours, finished)
        return ident

    def _abandon(self, stop: Stopped, name: str, trap: int, saved: SavedRegisters, sp_after_return: int) -> NoReturn:
        thread = self.thread
        signaled = stop.reason in (StopReason.SIGNAL, StopReason.CRASH)
        if signaled and self.settings.unwind_on_signal:
            thread.drop_return_trap(trap)
            thread.restore(saved)
            raise CallAbandoned(
                "The program being debugged was signaled while in a function called from GDB.\n"
                "GDB has restored the context to what it was before the call.\n"
                'To change this behavior use "set unwindonsignal off".\n'
                "Evaluation of the expression containing the function\n"
                f"({name}) will be abandoned."
            )
        self.settings.frames.append(trap)
        self.settings.dummies[(thread.pid, sp_after_return)] = saved
        if self.report:
            thread.report(stop)
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


def exited_message(name: str) -> str:
    return (
        "The program being debugged exited while in a function called from GDB.\n"
        "Evaluation of the expression containing the function\n"
        f"({name}) will be abandoned."
    )


class ProgramCaller:
    """The evaluator's `calls` (expr/calls.py FunctionCaller) on one stopped thread; a
    backend's subclass runs the call (`_run`)."""

    def __init__(
        self,
        settings: CallSettings,
        entry: int | None,
        symbol_at: Callable[[int], str | None],
        address_of: Callable[[str], int | None],
        write_memory: Callable[[int, bytes], None],
        after_call: Callable[[], None],
    ) -> None:
        self._settings = settings
        self._entry = entry
        self._symbol_at = symbol_at
        self._address_of = address_of
        self._write_memory = write_memory
        self._after_call = after_call

    def _run(self, request: CallRequest, return_address: int) -> bytes:
        raise NotImplementedError

    def call(self, name: str, address: int, arguments: list[tuple[Type, bytes]], returns: Type) -> bytes:
        if not self._settings.may_call:
            raise EvaluationError("Cannot call functions in the program: may-call-functions is off.")
        if self._entry is None:
            raise TargetError("Cannot call functions: the program's entry point is unknown.")
        try:
            return self._run(CallRequest(name, address, tuple(arguments), returns), self._entry)
        except OSError as error:  # memory or registers the system refused
            raise EvaluationError(f"Cannot call {name}: {error.strerror}") from None
        finally:
            self._after_call()

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
        self._write_memory(address, data)
        return address

    def address_of(self, symbol: str) -> int | None:
        return self._address_of(symbol)

    def name_of(self, address: int) -> str:
        name = self._symbol_at(address)
        return name if name is not None else f"at 0x{address:#x}"  # gdb's words, doubled 0x too

