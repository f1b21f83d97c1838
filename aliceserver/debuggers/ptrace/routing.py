"""Where the engine's execution control goes: the live process (live.py) or, while a
stub is connected, the remote one (remote/session.py). The engine's IDebugger methods
(execution, user breakpoints and watchpoints), the source level's Stepping (StepControl)
and Locations (AddressBreakpoints) reach their backend through these, so neither backend
knows of the other."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.base import BreakpointCondition
from aliceserver.debuggers.calls.settings import CallSettings
from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import (
    BreakpointInfo,
    CatchKind,
    LaunchConfig,
    ProcessInfo,
    Registers,
    StackFrame,
    ThreadInfo,
    VectorRegisters,
    WatchKind,
    WatchpointInfo,
    WatchScope,
)
from aliceserver.debuggers.ptrace.breakpoints import Breakpoints
from aliceserver.debuggers.ptrace.coretarget import CoreFiles
from aliceserver.debuggers.ptrace.libraries import LibraryTracker
from aliceserver.debuggers.ptrace.live import LiveSession
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.remote.session import RemoteSession
from aliceserver.debuggers.remote.watches import scope_return_address
from aliceserver.debuggers.symbols.dwarf.names import Demangler, natural_name
from aliceserver.debuggers.symbols.process import ProcessSymbols
from aliceserver.debuggers.target import RemoteConnected, RemoteTimeouts
from aliceserver.debuggers.targetregisters import TargetRegister
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.calls.driver import ProgramCaller
    from aliceserver.debuggers.source.stepping import Control, StepPlan
    from aliceserver.debuggers.source.stopcache import StopCache


class Execution:
    """The live process's lifecycle and execution control, from either backend."""

    def __init__(self, access: ProcessAccess, live: LiveSession, remote: RemoteSession, cores: CoreFiles,
                 stop_cache: StopCache | None = None) -> None:  # fmt: skip
        self._access = access
        self._stop_cache = stop_cache  # the remote stop's thread list, read without a handoff
        self._cores = cores
        self._call = access.run_on_engine
        self._live = live
        self._remote = remote

    @property
    def _remote_held(self) -> bool:
        return self._remote.connected

    # --- RemoteTargets (debuggers/target.py) ------------------------------------------
    def connect_remote(self, target: str, extended: bool, program: str | None,
                       timeouts: RemoteTimeouts) -> RemoteConnected:  # fmt: skip
        def go() -> RemoteConnected:
            if self._access.inferior is not None:
                raise TargetError("A program is being debugged already.")
            self._cores.close_core()
            return self._remote.connect(target, extended, program, timeouts)

        return self._call(go)

    def disconnect_remote(self) -> None:
        self._call(self._remote.disconnect)

    def monitor(self, command: str) -> str:
        return self._remote.monitor(command)

    def target_registers(self) -> tuple[TargetRegister, ...]:
        process = self._remote.live()  # a native process has its architecture's alone
        if process is None:
            return ()
        # (imported here: the register types' XML parser serves remote targets only)
        from aliceserver.debuggers.remote.regtypes import type_class

        types = process.description.types
        return tuple(TargetRegister(r.name, r.bitsize, r.type, r.group, r.feature, type_class(types, r.type))
                     for r in process.description.registers)  # fmt: skip

    def read_target_register(self, thread_id: int, name: str) -> bytes:
        def read() -> bytes:
            process = self._remote.live()
            if process is None:
                raise TargetError("No registers.")
            return process.read_register(thread_id, name)

        return self._access.run_on_engine(read)

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

    def resume(self, thread_id: int | None = None, *, jumped: int | None = None) -> None:
        if self._remote_held:
            self._call(lambda: self._remote.resume(thread_id, jumped=jumped))
        else:
            self._live.resume(thread_id, jumped=jumped)

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
            cache, process = self._stop_cache, self._remote.process
            known = None if cache is None else cache.known_threads(process)  # see StopCache
            return known if known is not None else self._call(self._remote_threads)
        return self._live.threads(details=details)

    def _remote_threads(self) -> list[ThreadInfo]:
        """The stub's threads at this stop, kept for the stop (MI's *stopped asks, then
        -thread-info: each a handoff to the tracer thread and back)."""
        found = self._remote.threads()
        if self._stop_cache is not None and not self._remote.is_running():
            self._stop_cache.remember_threads(self._remote.process, found)
        return found

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


class UserBreakpoints:
    """The user's breakpoints, watchpoints and catchpoints (IDebugger's) on the backend
    held: the stub's traps and watches while one is connected, else the live Breakpoints;
    what only ptrace can catch is refused over a stub."""

    def __init__(self, access: ProcessAccess, breakpoints: Breakpoints, remote: RemoteSession, run: Execution,
                 stack_trace: Callable[[int], list[StackFrame]]) -> None:  # fmt: skip
        self._call = access.run_on_engine
        self._breakpoints = breakpoints
        self._remote = remote
        self._run = run
        self._stack_trace = stack_trace  # a thread's frames, for a watch on locals

    def set_catchpoint(self, kind: CatchKind, enabled: bool) -> None:
        if enabled:
            self._run.refuse_over_remote()
        self._breakpoints.set_catchpoint(kind, enabled)

    def set_catch_events(self, *, syscalls: frozenset[int] | None, signals: frozenset[int],
                         gate: Callable[[Stopped], bool] | None, libraries: bool = False) -> None:  # fmt: skip
        if syscalls is not None or signals:
            self._run.refuse_over_remote()
        self._call(lambda: self._remote.catch_libraries(libraries, gate))  # the loader's events, over a stub
        self._breakpoints.set_catch_events(syscalls=syscalls, signals=signals, gate=gate, libraries=libraries)

    def insert_breakpoint(self, address: int, *, temporary: bool = False, enabled: bool = True,
                          condition: BreakpointCondition | None = None) -> BreakpointInfo:  # fmt: skip
        if self._remote.connected:
            return self._call(lambda: self._remote.traps.insert_address_breakpoint(address, temporary, enabled, condition))
        return self._breakpoints.insert_breakpoint(address, temporary=temporary, enabled=enabled, condition=condition)

    def remove_breakpoint(self, breakpoint_id: int) -> None:
        if self._remote.connected:
            self._call(lambda: self._remote.traps.forget_address_breakpoint(breakpoint_id))
        else:
            self._breakpoints.remove_breakpoint(breakpoint_id)

    def enable_breakpoint(self, breakpoint_id: int, enabled: bool) -> BreakpointInfo:
        if self._remote.connected:
            return self._call(lambda: self._remote.traps.enable_breakpoint(breakpoint_id, enabled))
        return self._breakpoints.enable_breakpoint(breakpoint_id, enabled)

    def insert_watchpoint(self, address: int, size: int, kind: WatchKind, scope: WatchScope | None = None, *,
                          more: tuple[tuple[int, int], ...] = (), software: bool = False) -> WatchpointInfo:  # fmt: skip
        """`more`: further places the watch reads (an expression's, watchchain.py);
        `software`: gdb's software watchpoint, compared after each single step."""
        if self._remote.connected and (more or software):
            raise TargetError("a watch on an expression that is not an lvalue, or a software watchpoint, "
                              "is not supported over a stub")
        if self._remote.connected:
            # a watch on locals is guarded where its frame returns to (remote/watches.py)
            returns = scope_return_address(self._stack_trace(scope.thread_id), scope) if scope else None
            return self._call(lambda: self._remote.watches.insert(self._remote.require_stopped(), address, size, kind,
                                                                  scope, returns))  # fmt: skip
        return self._breakpoints.insert_watchpoint(address, size, kind, scope, more=more, software=software)

    def remove_watchpoint(self, watchpoint_id: int) -> None:
        if self._remote.connected:
            self._call(lambda: self._remote.watches.remove(self._remote.live(), watchpoint_id))
        else:
            self._breakpoints.remove_watchpoint(watchpoint_id)

    def watchpoints(self) -> list[WatchpointInfo]:
        if self._remote.connected:
            return self._remote.watches.all()
        return self._breakpoints.watchpoints()


class ProgramCallers:
    """What runs `f(x)` in expressions (calls/driver.py) on a thread of the backend held."""

    def __init__(self, access: ProcessAccess, remote: RemoteSession, settings: CallSettings, tracker: LibraryTracker,
                 symbols: ProcessSymbols, forget_stop_state: Callable[[], None]) -> None:  # fmt: skip
        self._access = access
        self._remote = remote
        self._settings = settings
        self._tracker = tracker
        self._symbols = symbols
        self._demangler = Demangler()  # (libstdc++'s __cxa_demangle loaded at a first C++ name)
        self._forget_stop_state = forget_stop_state

    def for_thread(self, tid: int) -> ProgramCaller | None:
        """Over ptrace (infcall.py) or through a stub (remote/calls.py); None: no process,
        no calls."""
        def name_of(address: int) -> str | None:  # gdb's print name: a C++ one demangled, with parameters
            found = self._symbols.lookup_address(address)
            if found.name is None or found.offset != 0:
                return None
            return natural_name(found.name, self._demangler)

        inferior = self._access.inferior
        if inferior is not None:
            # infcall.py (with calls/driver.py and the ABI's plan): imported by a first call
            from aliceserver.debuggers.ptrace.infcall import ProcessCaller

            return ProcessCaller(inferior, tid, self._settings, self._tracker.entry, name_of,
                                 self._symbols.lookup_name, self._forget_stop_state)  # fmt: skip
        remote = self._remote.live()
        if remote is None:
            return None
        from aliceserver.debuggers.remote.calls import RemoteCaller  # with the stub's client

        return RemoteCaller(self._remote, remote, tid, self._settings, self._tracker.entry, name_of,
                            self._symbols.lookup_name, self._forget_stop_state)  # fmt: skip
