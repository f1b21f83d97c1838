"""One debug session for an agent: a debugger, its program's state, output and history.

A pump thread drains the session's subscription to the debugger's events into its state
(running, stopped, exited), its output buffer and a stop counter; tool calls wait on that
counter instead of reading the events themselves, so several tools (a `continue` waiting,
a `pause`) can act on one session at once.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aliceserver.adapters.agent.errors import ErrorCode, ToolError
from aliceserver.adapters.agent.output import OutputBuffer
from aliceserver.adapters.console.host_breakpoints import HostEntry
from aliceserver.adapters.console.hosted import HostedConsole
from aliceserver.adapters.gdbcommands.selection import CommandMemory
from aliceserver.adapters.mi.breakpoints import MiBreakpoint
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Event, Exited, Output, ProcessStarted, Stopped
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig, ProcessInfo
from aliceserver.debuggers.target import CoreOpened
from aliceserver.session.breakpoints import UserBreakpoint, UserBreakpoints
from aliceserver.session.runstate import RunPhase, RunState, WaitResult

if TYPE_CHECKING:  # the tracing library loads only when a session traces
    from aliceserver.tracing import Tracer, TraceStore

log = logging.getLogger(__name__)

_CONSOLE_PATIENCE = 0.5  # seconds the pump waits for the session to apply a stop to its console


State = RunPhase  # the agent's name for the session core's run phases
__all__ = ["DebugSession", "LocalsSnapshot", "State", "WaitResult", "WatchRecord"]


@dataclass(eq=False, slots=True)
class WatchRecord(UserBreakpoint):
    """debug_watch's watchpoint: the session core's record (its `location` the expression,
    its `watch_id` the engine's), numbered in the count debug_breakpoint's share."""

    access: str = "write"
    type: str = ""
    last_value: str = ""  # as formatted at insertion or at the last hit

    @property
    def expression(self) -> str:
        return self.location


@dataclass(slots=True)
class LocalsSnapshot:
    generation: int
    frame_key: tuple[int, str | None, int | None]  # thread, function, CFA
    values: dict[str, str] = field(default_factory=dict)


EventObserver = Callable[[str, Event], None]  # (session id, event), on the pump thread


class DebugSession:
    def __init__(
        self,
        ident: str,
        debugger: IDebugger,
        process: ProcessInfo,
        events: Subscription,
        observer: EventObserver | None = None,
    ) -> None:
        """`events`: the debugger's, subscribed before the launch or attach that made `process`."""
        self.id = ident
        self.debugger = debugger
        self._events = events
        self.process = process
        self.output = OutputBuffer()
        # An attach is followed by a Stopped(PAUSE): running until the pump has seen it.
        self.run = RunState(RunPhase.RUNNING if process.attached else RunPhase.NOT_STARTED)
        self.current_thread: int = process.pid
        self.current_frame = 0  # selected by debug_select; back to 0 at every stop
        self.launch_config: LaunchConfig | None = None  # for a restart
        self.core: str | None = None  # the core file a session opened by debug_core reads
        self.remote: str | None = None  # the stub's address, for a session of debug_connect
        self.project_root: str | None = None  # what @usercode trace patterns mean
        self.commands = CommandMemory()  # what the console's gdb commands remember (x's last address)
        self.console: HostedConsole | None = None  # gdb's console, made by debug_console
        self.tracer: Tracer | None = None  # set by the first debug_trace add
        self.trace_store: TraceStore | None = None
        self._observer = observer
        self.context_cursor = 0  # program output up to here was shown by a context reply
        self.breakpoints: UserBreakpoints[UserBreakpoint] = UserBreakpoints()  # by number
        self.watches: UserBreakpoints[WatchRecord] = UserBreakpoints(self.breakpoints.numbers)
        self.watches_left: list[WatchRecord] = []  # deleted at the last stop: their frame returned
        # Per thread: its locals at the stop before, and at the latest stop shown.
        self._locals: dict[int, tuple[LocalsSnapshot | None, LocalsSnapshot | None]] = {}
        self.created = time.time()
        # Serialises the tool calls that drive the engine; never held while waiting.
        self.lock = threading.RLock()
        self._pump = threading.Thread(target=self._run_pump, name=f"agent-{ident}", daemon=True)
        self._pump.start()

    # --- the event pump -------------------------------------------------------------
    def _run_pump(self) -> None:
        for event in self._events:  # until close ends the subscription
            try:
                self._apply(event)
            except Exception:  # a bad event must not kill the session's bookkeeping
                log.exception("session %s: cannot apply %r", self.id, event)

    def _apply(self, event: Event) -> None:
        tracer = self.tracer
        if tracer is not None:  # first: a crash is described while the program is stopped at it
            try:
                tracer.observe(event)
            except Exception:
                log.exception("session %s: the tracer failed on %r", self.id, event)
        if self._observer is not None:
            try:
                self._observer(self.id, event)
            except Exception:
                log.exception("session %s: the observer failed on %r", self.id, event)
        if self.console is not None:  # first: the console may be made while this event is applied
            self.console.post(event)
        if isinstance(event, Output):  # the debugger's warnings are console text
            self.output.append("console" if event.category == "warning" else event.category, event.text)
            return
        if isinstance(event, Stopped) and self._console_passes():
            return  # only the console's dprintfs: they printed, and the program goes on
        if isinstance(event, ProcessStarted):
            self.process = ProcessInfo(event.pid, event.program, event.attached)
            return
        if isinstance(event, Stopped):  # seen by a waiter together with the stop
            self.run.apply(event, lambda: self._take_stop(event))
        else:
            self.run.apply(event)
        if isinstance(event, Stopped):
            self._console_sees_stop()

    def _take_stop(self, stop: Stopped) -> None:
        self.watches_left = self.watches.owners(stop.watches_left, watch=True)
        for gone in self.watches_left:
            self.watches.discard(gone)
        self.current_thread = stop.thread_id
        self.current_frame = 0

    def _console_passes(self) -> bool:
        """Apply a stop to the console first: True when it was only at the console's
        dprintfs, which printed (into the output, as gdb's console) and resumed."""
        console = self.console
        if console is None or not self.lock.acquire(timeout=_CONSOLE_PATIENCE):
            return False
        try:
            printed = console.drain()
            if not console.passed_through:
                return False
            console.passed_through = False
            self.output.append("console", printed)
            return True
        except Exception:
            log.exception("session %s: the console failed on a stop", self.id)
            return False
        finally:
            self.lock.release()

    def _console_sees_stop(self) -> None:
        """A stop is applied to the console at once when the session is free (a temporary
        breakpoint is gone before the next resume), else at the console's next command."""
        console = self.console
        if console is None or not self.lock.acquire(timeout=_CONSOLE_PATIENCE):
            return
        try:
            console.drain()
        except Exception:  # the session's own state is applied already
            log.exception("session %s: the console failed on a stop", self.id)
        finally:
            self.lock.release()

    # --- running and waiting (the session core's RunState) ---------------------------
    @property
    def state(self) -> RunPhase:
        return self.run.phase

    @property
    def last_stop(self) -> Stopped | None:
        return self.run.last_stop

    @property
    def exited(self) -> Exited | None:
        return self.run.exited

    @property
    def generation(self) -> int:
        return self.run.generation

    def begin_run(self) -> int:
        """Mark the program running (before resuming it); the stop count to wait past."""
        return self.run.begin_run()

    def run_failed(self, previous: RunPhase, generation: int) -> None:
        """A resume was refused: go back to `previous` unless an event moved on meanwhile."""
        self.run.run_failed(previous, generation)

    def wait(self, generation: int, timeout: float) -> WaitResult:
        """Wait until the program stops or exits after stop count `generation`."""
        return self.run.wait(generation, timeout)

    def core_opened(self, path: str, opened: CoreOpened) -> None:
        """A core's program is stopped for good where it died; no Stopped event says so
        (the engine leaves that to each front end, as gdb prints no *stopped then)."""
        self.core = path
        self.run.stopped_at(opened.stop, lambda: self._take_stop(opened.stop))

    def remote_connected(self, target: str, stop: Stopped | None) -> None:
        """A stub's program stands where connecting found it (`stop`; None: the stub has
        just started it, held as a launch); no Stopped event says so, as for a core."""
        self.remote = target
        if stop is not None:
            self.run.stopped_at(stop, lambda: self._take_stop(stop))

    # --- breakpoints: debug_breakpoint's and the console's, one numbering ---------------
    def console_breakpoint(self, number: int) -> MiBreakpoint | None:
        """Location breakpoint `number` when it was made in debug_console."""
        console = self.console
        found = console.session.breakpoints.entries.get(number) if console is not None else None
        if found is None or isinstance(found, HostEntry) or found.is_watch or found.catch is not None:
            return None
        return found

    def breakpoint_number(self, location_id: int) -> int | None:
        """The user's number of the engine's location breakpoint `location_id`: one that
        debug_breakpoint or the console made (None for the session's own, run_to's)."""
        record = self.breakpoints.by_location_id(location_id)
        if record is not None:
            return record.number
        console = self.console
        entries = console.session.breakpoints.entries.values() if console is not None else ()
        return next((bp.number for bp in entries if not isinstance(bp, HostEntry)
                     and not bp.is_watch and bp.engine_id == location_id), None)  # fmt: skip

    # --- guards ---------------------------------------------------------------------
    def require_live(self) -> None:
        """Running needs a process: a core's program is dead (refused in gdb's words)."""
        if self.core is not None:
            raise ToolError(
                ErrorCode.NO_PROCESS,
                "The program is not being run.",
                f"session {self.id} reads the core file {self.core}: inspect it (debug_stack, "
                "debug_variables, debug_evaluate, debug_memory, debug_console); debug_launch runs the program",
            )

    def require_process(self) -> None:
        if self.state is State.EXITED:
            raise ToolError(
                ErrorCode.NO_PROCESS,
                f"session {self.id}: the program has exited ({self.exit_text()})",
                "debug_output shows what it printed; debug_launch starts it again; "
                "debug_stop ends the session",
            )

    def require_stopped(self, allow_not_started: bool = True) -> None:
        """Inspection needs a stopped program (held-at-start counts unless told)."""
        self.require_process()
        if self.state is State.RUNNING:
            raise ToolError(
                ErrorCode.NOT_STOPPED,
                f"session {self.id}: the program is running",
                "debug_pause stops it; debug_continue waits for the next stop",
            )
        if self.state is State.NOT_STARTED and not allow_not_started:
            raise ToolError(
                ErrorCode.NOT_STARTED,
                f"session {self.id}: the program is held before its first instruction",
                "set breakpoints (debug_breakpoint), then debug_continue",
            )

    def exit_text(self) -> str:
        exited = self.exited
        if exited is None:
            return "still running"
        if exited.code is not None:
            return f"exit code {exited.code}"
        return f"killed by {exited.signal_name or f'signal {exited.signal}'}"

    # --- locals history -------------------------------------------------------------
    def record_locals(self, snapshot: LocalsSnapshot) -> LocalsSnapshot | None:
        """Keep `snapshot` as this stop's locals of its thread; return that thread's locals
        at its previous stop when they were in the same frame."""
        thread = snapshot.frame_key[0]
        with self.run.lock:
            previous, current = self._locals.get(thread, (None, None))
            if current is not None and current.generation != snapshot.generation:
                previous = current
            self._locals[thread] = (previous, snapshot)
        if previous is not None and previous.frame_key == snapshot.frame_key:
            return previous
        return None

    # --- the end --------------------------------------------------------------------
    def close(self, detach: bool | None = None) -> None:
        """End the session: kill a launched program, detach from an attached one (or as told)."""
        try:
            if self.tracer is not None:  # its traps out first: a detached program runs on clean
                try:
                    self.tracer.close()
                except Exception:
                    log.exception("session %s: closing the tracer", self.id)
            if self.state is not State.EXITED and self.debugger.process is not None:
                if detach is True or (detach is None and self.process.attached):
                    self.debugger.detach()
                elif detach is False:
                    self.debugger.kill()
        finally:
            self.debugger.close()
            self._events.close()  # the pump applies what the engine said before, then ends
            self._pump.join(timeout=5)
            if self.trace_store is not None:
                self.trace_store.close()

