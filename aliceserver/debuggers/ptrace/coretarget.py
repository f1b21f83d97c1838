"""Opening a core file in the engine (the CoreTargets capability of debuggers/target.py),
an object the engine composes: the core becomes the engine's ProcessTarget in place of a
live process, the source level reads through it unchanged, and what needs a live process
is refused in gdb's words."""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.events import (
    ModuleLoaded,
    ProcessStarted,
    Stopped,
    StopReason,
    ThreadStarted,
)
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import FaultInfo, ProcessInfo, ThreadInfo, ThreadState
from aliceserver.debuggers.ptrace.libraries import FileMapping
from aliceserver.debuggers.signals import (
    CRASH_SIGNALS,
    fault_description,
    signal_description,
    signal_name,
)
from aliceserver.debuggers.source.services import EngineServices
from aliceserver.debuggers.target import CoreOpened
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:  # the core reader is imported when a core is opened
    from aliceserver.debuggers.core.process import CoreProcess
    from aliceserver.debuggers.core.reader import CoreFile
    from aliceserver.debuggers.ptrace.libraries import LibraryTracker

log = logging.getLogger(__name__)


class CoreFiles:
    def __init__(
        self, engine: EngineServices, events: EventSource, tracker: LibraryTracker, *,
        live: Callable[[], bool], new_source_symbols: Callable[[], None],
    ) -> None:  # fmt: skip
        self._engine = engine
        self._events = events
        self._tracker = tracker
        self._live = live  # whether a live process is debugged (a core then is refused)
        self._new_source_symbols = new_source_symbols
        self.current: CoreProcess | None = None  # the core debugged in place of a live process
        self.info: ProcessInfo | None = None  # its process, as IDebugger.process tells it

    def open_core(self, core: str, program: str | None = None) -> CoreOpened:
        return self._engine.run_on_engine(lambda: self._open_core(core, program))

    def _open_core(self, path: str, program: str | None) -> CoreOpened:
        if self._live():
            raise TargetError("A program is being debugged already.")
        from aliceserver.debuggers.core.reader import open_core

        opened = open_core(path)
        try:
            return self._take_core(opened, program)
        except BaseException:
            opened.close()
            raise

    def _take_core(self, opened: CoreFile, program: str | None) -> CoreOpened:
        if not opened.threads:
            raise TargetError(f'"{opened.path}": no threads in the core file')
        executable = program or opened.executable_path
        if executable is None or not os.path.isfile(executable):
            raise TargetError("The core file does not name its program; give it with `file PROG`.")
        warnings = list(opened.warnings)
        if program is not None:
            warnings += opened.executable_warnings(program)
        self.close_core()
        stop = _signal_stop(opened)
        from aliceserver.debuggers.core.process import CoreProcess

        target = CoreProcess(opened, os.path.abspath(executable), stop)
        self._engine.forget_stop_state()
        self.current = target
        self.info = info = ProcessInfo(target.pid, target.executable(), attached=False)
        self._new_source_symbols()
        try:
            files = [FileMapping(f.start, f.end, f.path) for f in opened.mapped_files]
            loaded, _ = self._tracker.start(target.pid, target.auxv(), target.executable(), files, live=False)
            linked, _ = self._tracker.sync()  # the link map, read from the core's memory
            self._tracker.symbols.order_as_linked()  # as gdb lists a core's: the loader last
            warnings += self._tracker.take_warnings()
        except (AliceError, OSError) as error:
            log.warning("no symbols for the core's program: %s", error)
            loaded, linked = [], []
        self._events.put(ProcessStarted(target.pid, target.executable(), attached=False))
        for tid in target.thread_ids():
            if tid != target.pid:
                self._events.put(ThreadStarted(tid, pointer=target.general_registers(tid).get("fs_base") or None))
        modules = loaded[:1] + linked + loaded[1:]  # the link map's order (the loader last), as gdb lists them
        for module in modules:
            self._events.put(ModuleLoaded(module))
        # No Stopped event: the program is not stopped by us but dead; each front end tells
        # of the signal as its debugger does on opening a core (gdb prints no *stopped).
        arguments = opened.process.arguments if opened.process is not None else None
        libraries = tuple(module.path for module in modules if not module.is_main)
        return CoreOpened(info, stop, tuple(target.thread_ids()), arguments, tuple(warnings), libraries)

    def threads(self) -> list[ThreadInfo]:
        core = self.current
        if core is None:
            return []
        return [ThreadInfo(tid, "", ThreadState.STOPPED, core.general_registers(tid)["rip"], None)
                for tid in core.thread_ids()]  # fmt: skip

    def close_core(self) -> None:
        """Forget the core (gdb's `core-file` without a file, or a `run`)."""
        core, self.current = self.current, None
        if core is not None:
            core.close()
            self._engine.forget_stop_state()
            self.info = None


def _signal_stop(core: CoreFile) -> Stopped:
    """The signal that ended the program, as a live stop on it would report it."""
    thread = core.threads[0]
    signo = thread.signal or (core.siginfo.signo if core.siginfo else 0)
    pc = thread.registers.get("rip")
    if not signo:  # a gcore of a stopped program: no signal
        return Stopped(StopReason.PAUSE, thread.tid, address=pc)
    info = thread.siginfo or core.siginfo
    fault = None
    if signo in CRASH_SIGNALS and info is not None:
        fault = FaultInfo(info.fault_address if info.code > 0 else None, info.code,
                          fault_description(signo, info.code))  # fmt: skip
    reason = StopReason.CRASH if signo in CRASH_SIGNALS else StopReason.SIGNAL
    return Stopped(reason, thread.tid, signal=signo, signal_name=signal_name(signo),
                   description=signal_description(signo), address=pc, fault=fault)  # fmt: skip
