"""RemoteSession: a process behind a stub as the engine's live process (the RemoteTargets
capability of debuggers/target.py), an object the engine composes beside its ptrace one.

It connects and disconnects, runs and attaches through an extended stub, resumes, steps
and interrupts, and turns each stop reply into the engine's events: a user's breakpoint,
a step plan's move (source/stepping.py), the dynamic loader's trap (the engine's reaction
to a new library), a watchpoint. RSP is all-stop: while the program runs only ^C may be
sent; the engine's thread, where every other packet goes in order, waits for the stop
reply between commands and takes it there (waiter.py; a waiter thread where it cannot).

Breakpoints are the engine's logical ones (ptrace/traps.py's TrapTable, pure bookkeeping,
one numbering for every backend) placed with Z0; a trap's `inserted` stays False, since
the stub hides its own breakpoints from memory reads (nothing to mask).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import threading
from dataclasses import dataclass
from signal import SIGINT
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.events import (
    Continued,
    Event,
    Exited,
    ProcessStarted,
    Stopped,
    StopReason,
    ThreadExited,
    ThreadStarted,
)
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import (
    LaunchConfig,
    ProcessInfo,
    SignalPolicy,
    StepKind,
    ThreadInfo,
    ThreadState,
)
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.remote import signals
from aliceserver.debuggers.remote.errors import RemoteError
from aliceserver.debuggers.remote.plancontrol import Move, PlanControl
from aliceserver.debuggers.remote.solibevents import LibraryChange, LibraryStops
from aliceserver.debuggers.remote.traps import RemoteTraps
from aliceserver.debuggers.remote.waiter import StopWaiter
from aliceserver.debuggers.remote.watches import RemoteWatches
from aliceserver.debuggers.target import (
    CONNECTION_CLOSED,
    NOT_RUNNING,
    RemoteConnected,
    RemoteTimeouts,
)
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.process import RemoteProcess
    from aliceserver.debuggers.remote.stops import StopReply
    from aliceserver.debuggers.remote.stublink import StubLink
    from aliceserver.debuggers.source.stepping import Control, StepPlan

log = logging.getLogger(__name__)


@dataclass(slots=True)
class RemoteHooks:
    """What the session asks of the engine that composes it."""

    run_on_engine: Callable[[Callable[[], object]], object]
    events: EventSource
    traps: TrapTable
    # symbols, the loader's trap, the user's traps; the libraries announced (ModuleLoaded)
    new_process: Callable[[RemoteProcess, str | None], list[str]]
    forget_stop_state: Callable[[], None]
    policy: Callable[[int], SignalPolicy]
    record_exit: Callable[[int | None, int | None], None]  # gdb's $_exitcode, $_exitsignal
    # Work for the engine's thread after what it does now, not waited for (a broken link
    # found in the middle of a command is told once that command is done)
    post_on_engine: Callable[[Callable[[], object]], None] | None = None
    # A stop reply's `library`: the libraries the stub lists are read again (gdb goes on)
    library_event: Callable[[int], None] | None = None
    library_change: Callable[[], LibraryChange] | None = None  # what the last event changed
    # At a stop told (its thread's pc), what front ends ask next: made in this handoff
    reported: Callable[[int, int], object] | None = None  # (thread, pc)
    # The engine thread's wait between commands (tracer.py idle_wait): stop replies read there
    idle_on_engine: Callable[[Callable[[int], None] | None], None] | None = None


class RemoteSession:
    def __init__(self, hooks: RemoteHooks) -> None:
        self._hooks = hooks
        self._events = hooks.events
        self._traps = hooks.traps
        self.traps = RemoteTraps(hooks.traps, hooks.events, self.live)
        self.process: RemoteProcess | None = None
        self.connection: RemoteConnected | None = None
        self.info: ProcessInfo | None = None  # the process, as IDebugger.process tells it
        self._program: str | None = None  # the local copy the front end named
        self._plan: StepPlan | None = None
        self._move: Move = ("continue", None)  # the last resume, to repeat
        self._known_threads: list[int] = []
        self.watches = RemoteWatches(self._traps)
        self.library_stops = LibraryStops(hooks.library_change)  # catch load, stop-on-solib-events
        self.control = PlanControl(self._issue, self._require_live, self._traps, self.traps)  # a plan's moves
        self._libraries: list[str] = []
        # takes the stop replies while the program runs
        self._waiter = StopWaiter(self._call, self._handled, self._connection_lost, lambda: self._plan is not None,
                                  hooks.idle_on_engine)
        self._at_stop: Callable[[], None] | None = None  # kill or detach, once it stops
        self.judging = False  # a stop's breakpoint conditions are being judged
        self._resumed = False  # a resume went to the stub since the last stop reported
        self._forgot = False  # a resume forgot the stop state: its stop need not again

    def _call(self, fn: Callable[[], object]) -> object:
        return self._hooks.run_on_engine(fn)

    # --- connecting ----------------------------------------------------------------------
    @property
    def connected(self) -> bool:
        return self.process is not None

    def live(self) -> RemoteProcess | None:
        """The process to read through, when the stub debugs one."""
        process = self.process
        return process if process is not None and process.live else None

    def connect(self, target: str, extended: bool, program: str | None,
                timeouts: RemoteTimeouts) -> RemoteConnected:  # fmt: skip
        if self.process is not None:
            raise TargetError("Already connected to a remote target; disconnect first.")
        # Imported here: the client and its sockets cost 3 MB in every session, most local.
        from aliceserver.debuggers.remote.process import RemoteProcess

        process = RemoteProcess.connect(target, extended=extended, timeout=_reply_limit(timeouts),
                                        connect_timeout=timeouts.connect, auto_retry=timeouts.auto_retry)
        process.on_event = self._events.put
        self.process, self._program = process, program
        process.client.connection.on_closed = functools.partial(self._link_broken, process)
        if not process.live:  # extended-remote and no process yet
            self.connection = RemoteConnected(target, extended, None, None)
            return self.connection
        try:
            stop = process.last_stop()
            self._start(attached=process.stub_attached())
        except BaseException:
            self._drop_connection()
            raise
        threads = tuple(process.thread_ids())
        self._known_threads = list(threads)
        libraries = tuple(self._libraries)
        self.connection = RemoteConnected(target, extended, self.info, stop, threads, libraries)
        return self.connection

    def _start(self, *, attached: bool) -> None:
        """A process the stub debugs now: announce it, load its symbols (the engine)."""
        process = self.process
        assert process is not None
        program = self._program or process.executable()
        self.info = ProcessInfo(process.pid, program, attached=attached)
        threads = process.thread_ids()
        stop = process.last_stop()
        # gdb adds the stop's thread silently (the pid's, where the stub names it so) and
        # announces the others
        main = process.pid if process.pid in threads else stop.thread_id if stop is not None else threads[0]
        self._events.put(ProcessStarted(process.pid, program, attached=attached, main_thread=main))
        for tid in threads:
            if tid != main:
                self._events.put(ThreadStarted(tid))
        self._libraries = self._hooks.new_process(process, self._program)
        self.watches.place_all(process)

    def set_timeouts(self, timeouts: RemoteTimeouts) -> None:
        """`set remotetimeout` while connected: each wait for a reply from now on (gdb
        reads the setting at every wait, not only on connecting)."""
        process = self.process
        if process is not None:
            process.client.connection.timeout = _reply_limit(timeouts)

    def catch_libraries(self, wanted: bool, gate: Callable[[Stopped], bool] | None) -> None:
        """Report the loader's events as library stops, each let through by `gate`."""
        self.library_stops.wanted, self.library_stops.gate = wanted, gate

    def disconnect(self) -> None:
        """gdb's `disconnect`: the stub keeps the program; we forget it."""
        if self.process is None:
            raise TargetError("No remote target is connected.")
        self._end_process(None)
        self._drop_connection()

    def _drop_connection(self) -> None:
        process, self.process, self.connection = self.process, None, None
        self.info = None
        self._waiter.stop()
        self._drop_traps()
        if process is not None:
            process.close()

    def monitor(self, command: str) -> str:
        process = self._require_connection()
        return str(self._call(lambda: process.client.monitor(command)))

    def stub_services(self) -> StubLink | None:
        """The stub's OS tables and files (gdb's info os, remote get/put/delete)."""
        from aliceserver.debuggers.remote.stublink import StubLink

        return None if self.process is None else StubLink(self.process.client, self._call)

    def _require_connection(self) -> RemoteProcess:
        if self.process is None:
            raise TargetError('"monitor" command not supported by this target.')
        return self.process

    def close(self) -> None:
        """The session ends: a program we started is killed, an attached one left."""
        process = self.process
        if process is None:
            return
        try:
            if process.live and not process.running:
                if self.info is not None and self.info.attached:  # as gdb: an attached one is left
                    process.detach()
                else:
                    process.kill()
        except (TargetError, OSError) as error:
            log.info("closing the remote session: %s", error)
        self._drop_connection()

    def connection_is_extended(self) -> bool:
        return self.process is not None and self.process.extended

    # --- extended remote: run and attach ------------------------------------------------
    def run(self, config: LaunchConfig) -> ProcessInfo:
        process = self._require_extended("run")
        if process.live:
            raise TargetError("a program is already being debugged; kill or detach it first")
        self._program = config.program
        process.run(config.program if config.remote_program is None else config.remote_program, config.args)
        self._start(attached=False)
        self._known_threads = process.thread_ids()
        assert self.info is not None
        return self.info

    def attach(self, pid: int) -> ProcessInfo:
        process = self._require_extended("attach")
        if process.live:
            raise TargetError("a program is already being debugged; kill or detach it first")
        stop = process.attach(pid)
        self._program = None
        self._start(attached=True)
        self._known_threads = process.thread_ids()
        assert self.info is not None and self.connection is not None
        # As on connecting: the stop is told (remote_connection), not published
        self.connection = dataclasses.replace(self.connection, process=self.info, stop=stop,
                                              thread_ids=tuple(self._known_threads),
                                              libraries=tuple(self._libraries))  # fmt: skip
        return self.info

    def _require_extended(self, what: str) -> RemoteProcess:
        process = self.process
        assert process is not None
        if not process.extended:
            raise TargetError(f'The "remote" target does not support "{what}".  '
                              'Try "help target" or "continue".')  # fmt: skip
        return process

    # --- the end of the process ------------------------------------------------------------
    def detach(self) -> None:
        process = self._require_live()
        if self._later(process, self.detach):
            return
        self._hooks.forget_stop_state()
        self._drop_traps()
        process.detach()
        self._end_process(None)
        if not process.extended:
            self._drop_connection()

    def kill(self) -> None:
        process = self._require_live()
        if self._later(process, self.kill):
            return
        self._hooks.forget_stop_state()
        process.kill()
        self._end_process(process.exit_event, recorded=False)  # gdb's kill sets no $_exit*
        if not process.extended:
            self._drop_connection()

    def _later(self, process: RemoteProcess, then: Callable[[], None]) -> bool:
        """A running program takes only ^C: stop it, and do `then` at its stop (True)."""
        if not process.running:
            return False
        self._at_stop = then
        process.interrupt()
        return True

    def _end_process(self, exited: Exited | None, *, recorded: bool = True) -> None:
        """Forget the process (its traps, plan, threads); `exited`: report its end last,
        and (`recorded`) keep its code or the signal that killed it in gdb's $_exit*."""
        self._plan = None
        self.control.placed = []
        self.traps.drop_internal()
        self.info = None
        self._known_threads = []
        if exited is not None:
            if recorded:
                self._hooks.record_exit(exited.code, exited.signal)
            self._events.put(exited)

    def _drop_traps(self) -> None:
        """Our breakpoints out of the program (it goes on without us)."""
        process = self.process
        if process is None or not process.live or process.running:
            return
        for address in list(process.breakpoints.inserted):
            try:
                process.remove_breakpoint(address)
            except (TargetError, OSError) as error:
                log.info("removing the breakpoint at %#x: %s", address, error)
        self.watches.remove_all(process)

    def _require_live(self) -> RemoteProcess:
        process = self.process
        if process is None or not process.live:
            raise TargetError(NOT_RUNNING)
        return process

    def require_stopped(self) -> RemoteProcess:
        process = self._require_live()
        if process.running:
            raise TargetError("The program is running; interrupt it first.")
        return process

    # --- execution ----------------------------------------------------------------------
    def is_running(self) -> bool:
        process = self.process
        return process is not None and process.live and process.running

    def _ready_to_run(self) -> RemoteProcess:
        """Stopped, and the watches the stub would not take yet in (gdb inserts them as
        the program resumes, and refuses the resume in its words where it cannot)."""
        process = self.require_stopped()
        self.watches.insert_pending(process)
        return process

    def resume(self, thread_id: int | None, *, jumped: int | None = None) -> None:
        self._ready_to_run()
        self._forget_stop_state()
        self._events.put(Continued(thread_id, all_threads=thread_id is None))
        self._issue(("continue", thread_id), jumped=jumped)

    def step_instruction(self, thread_id: int) -> None:
        self._ready_to_run()
        self._forget_stop_state()
        self._events.put(Continued(thread_id, all_threads=False))
        self._issue(("step", thread_id))

    def _forget_stop_state(self) -> None:
        """Once per move: again at its stop would drop what the engine keeps one stop more."""
        self._hooks.forget_stop_state()
        self._forgot = True

    def interrupt(self) -> None:
        process = self.process
        if process is not None and process.running:
            process.interrupt()

    def _issue(self, move: Move, *, jumped: int | None = None) -> None:
        """Resume as `move` says and have the waiter take the stop (`jumped`: a thread a
        jump moved, whose breakpoint at the pc is hit, not stepped over; once)."""
        process = self._require_live()
        self._move = move
        self._resumed = True
        kind, tid = move
        if kind == "step":
            assert tid is not None
            process.step(tid)
        elif kind == "range":
            assert tid is not None
            process.step_range(tid, *self.control.range)
        else:
            process.resume(tid, jumped=jumped)
        self._waiter.start(process)

    def _handled(self, process: RemoteProcess, reply: StopReply) -> bool:
        """On the engine's thread: the stop reply's event, reported or resumed past; True
        when the program runs again (the waiter goes on waiting)."""
        if not self._forgot:  # a condition or a plan reads this stop afresh
            self._hooks.forget_stop_state()
        self._forgot = False
        try:
            event = process.take(reply)
        except (RemoteError, ValueError) as error:
            # No event to tell, and the stub's state unknown: the link is given up (its
            # loss is told), never a front end left waiting for a stop
            log.warning("remote stop: %s", error)
            self._waiter.waiting = False
            process.client.connection.abandon(f"A stop reply we cannot take: {error}")
            return False
        then, self._at_stop = self._at_stop, None
        if then is not None and isinstance(event, Stopped):  # kill or detach asked meanwhile
            self._waiter.waiting = False
            self._plan = None
            self.control.drop_traps()
            try:
                then()
            except TargetError as error:  # the link broke: its loss is told instead
                log.info("at the stop: %s", error)
            return False
        if isinstance(event, Exited):
            self._waiter.waiting = False
            self._end_process(event)
            if not process.extended:
                self._drop_connection()
            return False
        self.judging = True  # a condition's call into the program leaves the report to us
        try:
            report = self._judge(process, event)
        except Exception as error:  # a reply read wrong (TargetError, ValueError...): the stop as it came
            log.warning("remote stop at %s: %s", event.address, error)
            report = event
        finally:
            self.judging = False
        if report is None:
            return process.running
        self._waiter.waiting = False
        if process.client.connection.closed:
            return False  # the link broke as the stop was judged: its loss is told instead
        try:
            process.prefetch_report()  # a plan's stops asked for nothing: its last one now
        except (TargetError, OSError):
            pass  # the thread list's request tells the engine
        self._publish(process, report)
        return False

    def publish_stop(self, process: RemoteProcess, stop: Stopped) -> None:
        """A stop that ended a call into the program early (remote/calls.py)."""
        self._publish(process, stop)

    def process_exited(self, process: RemoteProcess, exited: Exited) -> None:
        """The program ended during a call into it (remote/calls.py)."""
        self._end_process(exited)
        if not process.extended:
            self._drop_connection()

    def _link_broken(self, process: RemoteProcess, why: str) -> None:
        """The link to `process`'s stub broke (on any thread, maybe in the middle of a
        command): the session ends its process once that command is done."""
        lost = functools.partial(self._connection_lost, process, why, not self._resumed)
        post = self._hooks.post_on_engine
        if post is not None:
            post(lost)
        else:
            threading.Thread(target=self._call, args=(lost,), name="aliceserver-remote-lost", daemon=True).start()

    def _connection_lost(self, process: RemoteProcess, why: str, before_resume: bool = False) -> None:
        self._waiter.waiting = False
        if self.process is not process:
            return
        log.info("remote connection lost: %s", why)
        pid = process.pid
        self._end_process(None)
        self._drop_connection()
        self._events.put(Exited(pid, None, signal_name=CONNECTION_CLOSED, before_resume=before_resume))

    def _publish(self, process: RemoteProcess, stop: Stopped) -> None:
        """A stop to report: the threads that came and went first, then the stop."""
        process.reported(stop)  # the stop frames are made of, from now on
        try:
            now = process.thread_ids()
        except TargetError:
            now = self._known_threads
        # As gdb: the thread the stop names first (its stop reply adds it), then the list's.
        events: list[Event] = [ThreadStarted(tid) for tid in sorted(now, key=lambda tid: tid != stop.thread_id)
                               if tid not in self._known_threads]  # fmt: skip
        events += [ThreadExited(tid) for tid in self._known_threads if tid not in now]
        self._known_threads = list(now)
        for event in events:
            self._events.put(event)
        if self._hooks.reported is not None:  # what fails here is told when it is asked for
            with contextlib.suppress(AliceError):
                self._hooks.reported(stop.thread_id, process.general_registers(stop.thread_id)[process.arch.pc])
        self._events.put(stop)
        self._resumed = False

    # --- a stop: report it, or go on -------------------------------------------------------
    def _judge(self, process: RemoteProcess, stop: Stopped) -> Stopped | None:
        """What to report of `stop` (None: the program was resumed past it)."""
        plan = self._plan
        trap = self._traps.by_address.get(stop.address if stop.address is not None else 0)
        if stop.reason is StopReason.STEP and trap is not None and plan is not None:
            hit = self.traps.hit(stop.thread_id, trap, user_only=True)
            if hit is not None:
                return hit
        told = self.told(process, stop)
        if told is None and stop.reason is StopReason.WATCHPOINT:
            landed = self._landed(stop)
            if landed is not None and landed.reason is StopReason.STEP:
                return self._judge(process, landed)
            told = landed
        if told is None:
            self._issue(self._move)
            return None
        if plan is None:
            return told
        return self._continue_plan(plan, told)

    def _landed(self, stop: Stopped) -> Stopped | None:
        """A data trap passed over (a value written unchanged, the front end's gate) fires
        after its instruction: where that instruction ended the move (a single step, a
        range left, a trap it has not run yet), that is the move's stop, as gdb's; None:
        the move goes on (repeated, a trap at the pc would be stepped over)."""
        kind, _ = self._move
        pc = stop.address if stop.address is not None else 0
        start, end = self.control.range
        if kind == "step" or (kind == "range" and not start <= pc < end):
            return Stopped(StopReason.STEP, stop.thread_id, address=pc)
        trap = self._traps.by_address.get(pc)
        return self.traps.hit(stop.thread_id, trap) if trap is not None else None

    def told(self, process: RemoteProcess, stop: Stopped) -> Stopped | None:
        """`stop` judged: our ^C as gdb tells it, a breakpoint's conditions and counts, a
        watchpoint's change, the signal's policy; None when the program is to go on (a
        call into the program, remote/calls.py, judges its stops here too)."""
        reply = process.last_reply
        if stop.reason is StopReason.PAUSE and reply is not None and reply.signal == signals.GDB_SIGNAL_INT:
            # our ^C, as gdb tells it over a stub (not passed on: it was ours)
            return Stopped(StopReason.SIGNAL, stop.thread_id, signal=SIGINT, signal_name="SIGINT",
                           description="Interrupt", address=stop.address)  # fmt: skip
        trap = self._traps.by_address.get(stop.address if stop.address is not None else 0)
        before = self.library_stops.seen()
        if stop.reason is StopReason.BREAKPOINT and trap is not None:
            hit = self.traps.hit(stop.thread_id, trap)  # the loader's trap runs its event
            return hit or self.library_stops.stop(stop.thread_id, stop.address, before)
        if stop.reason is StopReason.WATCHPOINT:
            return self.watches.judge(process, stop)
        if stop.reason is StopReason.LIBRARY and self._hooks.library_event is not None:
            self._hooks.library_event(stop.thread_id)
            return self.library_stops.stop(stop.thread_id, stop.address, before)
        if stop.reason in (StopReason.SIGNAL, StopReason.CRASH) and stop.signal is not None:
            policy = self._hooks.policy(stop.signal)
            if not policy.stop:
                if not policy.pass_to_program:
                    process.drop_pending_signal(stop.thread_id)
                return None
        return stop

    def _continue_plan(self, plan: StepPlan, stop: Stopped) -> Stopped | None:
        self.control.drop_traps()
        if stop.reason is not StopReason.STEP:
            self._plan = None  # a breakpoint, a signal...: it wins over the step
            return stop
        if stop.watches_left and plan.kind is not StepKind.OUT:
            # A watched frame returned here: gdb stops, and only `finish` (which ends here
            # anyway) tells its own story beside it (as ptrace/step_plans.py).
            self._plan = None
            return dataclasses.replace(stop, reason=StopReason.WATCHPOINT_SCOPE, breakpoint_ids=stop.watches_left)
        try:
            result = plan.on_stop(stop)
        except Exception:  # a plan must never wedge the session: report where we are
            log.exception("step plan failed")
            result = stop
        if result is not None:
            self.control.drop_traps()
            self._plan = None
            if stop.watches_left:
                result = dataclasses.replace(result, watches_left=stop.watches_left)
        return result

    # --- StepControl (source/steps.py); the plan's Control is remote/plancontrol.py --------
    def plan_start(self, thread_id: int) -> tuple[Control, int]:
        process = self._ready_to_run()
        return self.control, process.general_registers(thread_id)[process.arch.pc]

    def run_plan(self, plan: StepPlan, pc: int, *, alone: bool) -> None:
        self.require_stopped()
        self._plan = plan
        immediate = plan.start(pc)
        if immediate is not None:
            self._plan = None
            self.control.drop_traps()
            self._events.put(immediate)

    # --- threads ------------------------------------------------------------------------
    def threads(self) -> list[ThreadInfo]:
        process = self.live()
        if process is None:
            return []
        if process.running:
            return [ThreadInfo(tid, "", ThreadState.RUNNING, None) for tid in self._known_threads]
        core = process.last_reply.core if process.last_reply is not None else None
        return [ThreadInfo(tid, process.thread_name(tid), ThreadState.STOPPED,
                           process.general_registers(tid)[process.arch.pc], core, process.thread_details(tid))
                for tid in process.thread_ids()]  # fmt: skip


def _reply_limit(timeouts: RemoteTimeouts) -> float | None:
    """The link's wait for a reply: gdb's three tries of `remotetimeout` (None: for ever)."""
    from aliceserver.debuggers.remote.connection import RETRANSMITS

    return None if timeouts.reply is None else timeouts.reply * RETRANSMITS
