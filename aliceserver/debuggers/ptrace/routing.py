"""Where the engine's execution control goes: the live process (live.py) or, while a
stub is connected, the remote one (remote/session.py). The engine's IDebugger methods,
the source level's Stepping (StepControl) and Locations (AddressBreakpoints) reach their
backend through these, so neither backend knows of the other."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.model import (
    BreakpointInfo,
    LaunchConfig,
    ProcessInfo,
    Registers,
    ThreadInfo,
    VectorRegisters,
)
from aliceserver.debuggers.ptrace.breakpoints import Breakpoints
from aliceserver.debuggers.ptrace.coretarget import CoreFiles
from aliceserver.debuggers.ptrace.live import LiveSession
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.remote.session import RemoteSession
from aliceserver.debuggers.target import RemoteConnected
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.source.stepping import Control, StepPlan


class Execution:
    """The live process's lifecycle and execution control, from either backend."""

    def __init__(self, access: ProcessAccess, live: LiveSession, remote: RemoteSession, cores: CoreFiles) -> None:
        self._access = access
        self._cores = cores
        self._call = access.run_on_engine
        self._live = live
        self._remote = remote

    @property
    def _remote_held(self) -> bool:
        return self._remote.connected

    # --- RemoteTargets (debuggers/target.py) ------------------------------------------
    def connect_remote(self, target: str, extended: bool, program: str | None) -> RemoteConnected:
        def go() -> RemoteConnected:
            if self._access.inferior is not None:
                raise TargetError("A program is being debugged already.")
            self._cores.close_core()
            return self._remote.connect(target, extended, program)

        return self._call(go)

    def disconnect_remote(self) -> None:
        self._call(self._remote.disconnect)

    def monitor(self, command: str) -> str:
        return self._remote.monitor(command)

    def refuse_over_remote(self) -> None:
        """What the engine does only over ptrace (gcore, call tracing, syscall/signal/
        library catchpoints), refused as gdb's tcomplain words a target that lacks an
        operation."""
        connection = self._remote.connection
        if connection is not None:
            kind = "extended-remote" if connection.extended else "remote"
            raise TargetError(f"You can't do that when your target is `{kind}'")

    # --- the process ------------------------------------------------------------------
    @property
    def process(self) -> ProcessInfo | None:
        if self._remote.info is not None:
            return self._remote.info
        return self._live.process

    def launch(self, config: LaunchConfig) -> ProcessInfo:
        if self._remote_held and not config.symbols_only:
            return self._call(lambda: self._remote.run(config))
        return self._live.launch(config)

    def attach(self, pid: int) -> ProcessInfo:
        if self._remote_held:
            return self._call(lambda: self._remote.attach(pid))
        return self._live.attach(pid)

    def detach(self) -> None:
        if self._remote_held:
            self._call(self._remote.detach)
        else:
            self._live.detach()

    def kill(self) -> None:
        if self._remote.info is not None:
            self._call(self._remote.kill)
        else:
            self._live.kill()

    def close(self) -> None:
        self._call(self._remote.close)

    def is_running(self) -> bool:
        return self._remote.is_running() if self._remote_held else self._live.is_running()

    def resume(self, thread_id: int | None = None) -> None:
        if self._remote_held:
            self._call(lambda: self._remote.resume(thread_id))
        else:
            self._live.resume(thread_id)

    def step_instruction(self, thread_id: int) -> None:
        if self._remote_held:
            self._call(lambda: self._remote.step_instruction(thread_id))
        else:
            self._live.step_instruction(thread_id)

    def interrupt(self) -> None:
        if self._remote_held:
            self._remote.interrupt()  # ^C goes from any thread while the program runs
        else:
            self._live.interrupt()

    def threads(self, *, details: bool = True) -> list[ThreadInfo]:
        if self._remote_held:
            if self._remote.is_running():
                return self._remote.threads()  # no packet: the stub takes only ^C now
            return self._call(self._remote.threads)
        return self._live.threads(details=details)

    # --- StepControl (source/steps.py) ------------------------------------------------
    def plan_start(self, thread_id: int) -> tuple[Control, int]:
        if self._remote_held:
            return self._remote.plan_start(thread_id)
        return self._live.plan_start(thread_id)

    def run_plan(self, plan: StepPlan, pc: int, *, alone: bool) -> None:
        if self._remote_held:
            self._remote.run_plan(plan, pc, alone=alone)
        else:
            self._live.run_plan(plan, pc, alone=alone)

    def take_call_return(self, thread_id: int) -> tuple[Registers, VectorRegisters] | None:
        # kept by calls/driver.py in the CallSettings both backends share
        return self._live.take_call_return(thread_id)


class AddressTraps:
    """The AddressBreakpoints (source/services.py) of the backend held."""

    def __init__(self, breakpoints: Breakpoints, remote: RemoteSession) -> None:
        self._breakpoints = breakpoints
        self._remote = remote

    def insert_address_breakpoint(
        self, address: int, temporary: bool, enabled: bool, condition: BreakpointCondition | None,
        *, at_instruction: bool = False,
    ) -> BreakpointInfo:  # fmt: skip
        if self._remote.connected:
            return self._remote.traps.insert_address_breakpoint(address, temporary, enabled, condition)
        return self._breakpoints.insert_address_breakpoint(address, temporary, enabled, condition,
                                                           at_instruction=at_instruction)  # fmt: skip

    def forget_address_breakpoint(self, ident: int) -> None:
        if self._remote.connected:
            self._remote.traps.forget_address_breakpoint(ident)
        else:
            self._breakpoints.forget_address_breakpoint(ident)

    def code_unmapped(self, address: int) -> None:
        if self._remote.connected:
            self._remote.traps.code_unmapped(address)
        else:
            self._breakpoints.code_unmapped(address)
