"""LiveSession: the live process's lifecycle and its execution control, for the engine.

It launches or attaches the program, detaches or kills it, forgets it when it ends (and
reaps the children we stopped tracing), and resumes, steps and interrupts it; each through
the tracer thread (tracer.py), which it tells which process to wait for. What a new image
needs (symbols, the loader's trap, the user's traps) is the engine's: `load_image`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import select
import signal as sig
import time
from typing import TYPE_CHECKING, Callable

from aliceserver import foreground
from aliceserver.debuggers.calls.settings import CallSettings
from aliceserver.debuggers.events import ATTACHED, Continued, ProcessStarted, Stopped, StopReason
from aliceserver.debuggers.eventsource import EventSource
from aliceserver.debuggers.model import (
    ForkFollow,
    LaunchConfig,
    ProcessInfo,
    Registers,
    SignalPolicy,
    StdioMode,
    ThreadInfo,
    ThreadState,
    VectorRegisters,
)
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.breakpoints import Breakpoints
from aliceserver.debuggers.ptrace.coretarget import CoreFiles
from aliceserver.debuggers.ptrace.inferior import Inferior
from aliceserver.debuggers.ptrace.launcher import resolve_program, spawn_stopped
from aliceserver.debuggers.ptrace.output import OutputPump
from aliceserver.debuggers.ptrace.patched_breakpoints import JumpPatches
from aliceserver.debuggers.ptrace.procinfo import ThreadFiles, thread_name_and_core
from aliceserver.debuggers.ptrace.startup import seize_launched, seize_threads
from aliceserver.debuggers.ptrace.state import ProcessAccess
from aliceserver.debuggers.ptrace.tracee import Run, Tracee
from aliceserver.debuggers.ptrace.tracer import Tracer
from aliceserver.debuggers.ptrace.traps import TrapTable
from aliceserver.debuggers.ptrace.watch import WatchSlots
from aliceserver.debuggers.source.stopcache import StopCache
from aliceserver.errors import AliceError, ProtocolError, TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.source.dollars import SessionDollars
    from aliceserver.debuggers.source.stepping import Control, StepPlan

log = logging.getLogger(__name__)


def _file_identity(path: str) -> tuple[int, ...] | None:
    """What tells a rebuilt program file from the one a process was started from."""
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


class LiveSession:
    """The live process (`ProcessAccess.inferior`, mirrored in `Tracer.inferior` for the
    loop) from launch or attach to its end. It is also the StepControl (source/steps.py)
    stepping plans run by."""

    def __init__(
        self, tracer: Tracer, access: ProcessAccess, *, libc: binding.Libc, events: EventSource, traps: TrapTable,
        watches: WatchSlots, breakpoints: Breakpoints, cores: CoreFiles, dollars: SessionDollars,
        stop_cache: StopCache, call_settings: CallSettings, policy: Callable[[int], SignalPolicy],
        load_image: Callable[[Inferior, bool], None], forget_stop_state: Callable[[], None],
        announce_image: Callable[[], None] = lambda: None,
    ) -> None:  # fmt: skip
        self._tracer = tracer
        self._access = access
        self._libc = libc
        self._events = events
        self._traps = traps
        self._watches = watches
        self._breakpoints = breakpoints
        self._cores = cores
        self._dollars = dollars
        self._stop_cache = stop_cache
        self._call_settings = call_settings
        self._policy = policy
        self._load_image = load_image  # the engine's reaction to a new image (at_launch)
        self._announce_image = announce_image  # its news of the image again (a held process taken)
        self._held_file: tuple[int, ...] | None = None  # the program file a probe was started from
        self.jump_patches = JumpPatches(access)  # breakpoints judged in the program
        breakpoints.jump_patches = self.jump_patches
        self._forget_stop_state = forget_stop_state
        self.before_report: Callable[[Stopped], None] = lambda stop: None  # each inferior's
        self._process: ProcessInfo | None = None
        self._pump: OutputPump | None = None
        self._stdin: int | None = None
        self._strays: list[int] = []  # children we stopped tracing, not yet reaped
        self._thread_files: ThreadFiles | None = None  # the inferior's threads' /proc files

    def _set_inferior(self, inferior: Inferior | None) -> None:
        self._tracer.inferior = self._access.inferior = inferior
        if self._thread_files is not None:
            self._thread_files.close()
            self._thread_files = None
        if inferior is not None:  # its threads' comm files opened as they start (procinfo)
            self._thread_files = inferior.thread_files = ThreadFiles(inferior.pid)

    @property
    def process(self) -> ProcessInfo | None:
        inferior, info = self._access.inferior, self._process
        if inferior is None:
            return self._cores.info  # a core file's, if one is open
        if info is None:
            return None
        if info.pid != inferior.pid:  # followed a fork child
            self._process = info = dataclasses.replace(info, pid=inferior.pid)
        return info

    # --- start ------------------------------------------------------------------------
    def launch(self, config: LaunchConfig) -> ProcessInfo:
        return self._tracer.call(lambda: self._launch(config))

    def _launch(self, config: LaunchConfig) -> ProcessInfo:
        taken = self._take_held(config)
        if taken is not None:
            return taken
        if self._access.inferior is not None:
            raise TargetError("a program is already being debugged; kill or detach it first")
        self._cores.close_core()  # gdb's run: the live process replaces the core
        problem = config.unusable()
        if problem is not None:
            raise ProtocolError(f"launch: {problem}")
        program = resolve_program(config.program, config.cwd)
        if self._pump is not None:
            self._pump.close()
            self._pump = None
        spawned = spawn_stopped(config, program)
        pipes = {"stdout": spawned.stdout, "stderr": spawned.stderr}
        try:
            seize_launched(self._libc, spawned.pid, spawned.stderr, spawned.execs)
        except BaseException:
            for fd in (spawned.stdin, spawned.stdout, spawned.stderr):
                if fd is not None:
                    os.close(fd)
            raise
        if config.stdio is StdioMode.PIPES:
            self._pump = OutputPump(self._events, {k: v for k, v in pipes.items() if v is not None})
        self._stdin = spawned.stdin  # PIPES and INHERIT_OUTPUT: held open, so reads wait
        self._access.launch_config = config
        inferior = self._new_inferior(spawned.pid, attached=False)
        started = inferior.threads[spawned.pid]
        started.event_stop = started.launched = True  # held at its exec's event stop
        self._process = ProcessInfo(spawned.pid, program, attached=False)
        self._held_file = _file_identity(program) if config.symbols_only else None
        self._events.put(ProcessStarted(spawned.pid, program, attached=False))
        self._load_image(inferior, True)
        return self._process

    def _take_held(self, config: LaunchConfig) -> ProcessInfo | None:
        """The process held for its symbols (LaunchConfig.symbols_only) as the one `config`
        starts, where it was started with that very config from the same file and never
        ran: announced as just started, with no second exec, kill or symbol read (the
        MI's `break` then `run`). A held process that differs gives way to a fresh one."""
        inferior, held, info = self._access.inferior, self._access.launch_config, self._process
        if inferior is None or held is None or info is None or not held.symbols_only or config.symbols_only:
            return None
        first = inferior.threads.get(inferior.pid)
        if (dataclasses.replace(held, symbols_only=False, relocated=False, kept_libraries=()) != config or len(inferior.threads) != 1
                or first is None or not first.launched or _file_identity(info.program) != self._held_file):
            self._kill()  # its Exited: a probe's, which no front end tells
            return None
        self._access.launch_config, self._held_file = config, None  # no link-time view now
        self._forget_stop_state()
        self._events.put(ProcessStarted(inferior.pid, info.program, attached=False))
        self._announce_image()
        return info

    def _new_inferior(self, pid: int, *, attached: bool) -> Inferior:
        config = self._access.launch_config
        inferior = Inferior(
            self._libc, pid, attached=attached, events=self._events, traps=self._traps,
            watches=self._watches, policy=self._policy, flush_output=self._flush_output,
            on_exec=lambda inf: self._load_image(inf, False),
            follow_child=bool(config and config.follow_fork is ForkFollow.CHILD),
        )  # fmt: skip
        inferior.catch = set(self._breakpoints.catch)
        if config is not None and config.shares_terminal and not attached:
            inferior.terminal, inferior.terminal_group = foreground.installed(), pid
        inferior.jump_patches = self.jump_patches
        inferior.before_report = self.before_report
        self._set_inferior(inferior)
        return inferior

    def _flush_output(self) -> None:
        if self._pump is not None:
            self._pump.flush()

    def attach(self, pid: int) -> ProcessInfo:
        return self._tracer.call(lambda: self._attach(pid))

    def _attach(self, pid: int) -> ProcessInfo:
        if self._access.inferior is not None:
            raise TargetError("a program is already being debugged; kill or detach it first")
        if pid <= 0 or not os.path.isdir(f"/proc/{pid}/task"):
            raise TargetError("ptrace: No such process.", pid=pid)  # (gdb's words)
        if pid == os.getpid():
            raise TargetError("I refuse to debug myself!", pid=pid)
        self._cores.close_core()
        held = self._access.launch_config
        if held is not None and held.symbols_only:  # a symbol probe's: this is no held copy, whose
            self._access.launch_config = None  # lookups see the program alone (gdb before run)
        seized = seize_threads(self._libc, pid)
        inferior = self._new_inferior(pid, attached=True)
        inferior.threads = {tid: Tracee(tid, running=True) for tid in seized}
        inferior.run = Run.RUNNING
        inferior.stop_all()
        try:
            program = os.readlink(f"/proc/{pid}/exe")
        except OSError:
            program = "?"
        self._process = ProcessInfo(pid, program, attached=True)
        self._events.put(ProcessStarted(pid, program, attached=True))
        self._load_image(inferior, False)
        leader = inferior.threads.get(pid)  # absent when the leader is a zombie
        address = inferior.pc_or_none(leader) if leader is not None else None
        self._events.put(Stopped(StopReason.PAUSE, pid, address=address, description=ATTACHED))
        return self._process

    # --- end --------------------------------------------------------------------------
    def detach(self) -> None:
        self._tracer.call(self._detach)

    def _detach(self) -> None:
        inferior = self._access.require()
        self._forget_stop_state()
        if inferior.run is Run.RUNNING:
            inferior.stop_all()
        self.jump_patches.lift_all(inferior)
        inferior.detach()
        if inferior.terminal is not None:  # it runs on in the background, as gdb leaves it
            inferior.terminal.take()
        # A SIGSTOP of ours (the command handoff) may still be pending: delivered after the
        # detach, it would leave the program stopped (state T) with nobody to resume it.
        with contextlib.suppress(ProcessLookupError):
            os.kill(inferior.pid, sig.SIGCONT)
        self._drop_internal_breakpoints()
        for trap in self._traps.by_address.values():
            trap.inserted = False
        self._close_stdin()
        self._set_inferior(None)

    def kill(self) -> None:
        self._tracer.call(self._kill)

    def _kill(self) -> None:
        inferior = self._access.require()
        self._forget_stop_state()
        try:
            os.kill(inferior.pid, sig.SIGKILL)
        except ProcessLookupError:
            pass
        inferior.reap_all()
        self.finish(inferior, killed=True)

    def finish(self, inferior: Inferior, *, killed: bool = False) -> None:
        """The process is gone: report it and forget it (on the tracer thread)."""
        if self._pump is not None:
            self._pump.flush()
        if inferior.terminal is not None:
            inferior.terminal.take()
        inferior.memory.close()
        self.jump_patches.forget()
        for trap in self._traps.by_address.values():
            trap.inserted = False
        self._drop_internal_breakpoints()
        self._close_stdin()
        self._strays += inferior.strays
        self._set_inferior(None)
        # Reported last: a front end that hears of the exit finds no process (and may
        # start one at once, as the MI console does to read symbols for `print` after it).
        if inferior.exit_event is not None:
            if not killed:  # gdb's kill sets neither $_exitcode nor $_exitsignal
                self._dollars.record_exit(inferior.exit_event.code, inferior.exit_event.signal)
            self._events.put(inferior.exit_event)

    def close(self) -> None:
        """Detach an attached program, kill a launched one, and end the tracer thread."""
        if self._tracer.closed:
            return
        try:
            self._tracer.call(self._end_session)
        except AliceError as error:
            log.warning("closing the session: %s", error)
        self._tracer.closed = True
        self._cores.close_core()
        self._tracer.stop()
        if self._pump is not None:
            self._pump.close()
            self._pump = None
        self._close_stdin()

    def _end_session(self) -> None:
        inferior = self._access.inferior
        if inferior is not None:
            if inferior.attached:
                self._detach()
            else:
                self._kill()
        self._reap_strays(patience=2.0)

    def _reap_strays(self, patience: float) -> None:
        """Collect the exit status of children we stopped tracing, waiting at most `patience`.

        A pidfd becomes readable when its process ends, so the wait needs no polling.
        """
        deadline = time.monotonic() + patience
        for pid in list(self._strays):
            try:
                pidfd = os.pidfd_open(pid)
            except ProcessLookupError:
                pidfd = -1
            try:
                if pidfd >= 0:
                    select.select([pidfd], [], [], max(0.0, deadline - time.monotonic()))
                done, _ = self._libc.waitpid(pid, binding.WNOHANG | binding.WNOTHREAD)
            except ChildProcessError:
                done = pid
            finally:
                if pidfd >= 0:
                    os.close(pidfd)
            if done:
                self._strays.remove(pid)

    def _drop_internal_breakpoints(self) -> None:
        for bp in list(self._traps.by_id.values()):
            if bp.internal:
                trap = self._traps.remove(bp.id)
                if not trap.logical:
                    self._traps.drop_trap(trap.address)

    def _close_stdin(self) -> None:
        fd, self._stdin = self._stdin, None
        if fd is not None:
            os.close(fd)

    # --- execution --------------------------------------------------------------------
    def is_running(self) -> bool:
        inferior = self._access.inferior
        return inferior is not None and inferior.run is Run.RUNNING

    def resume(self, thread_id: int | None = None, *, jumped: int | None = None) -> None:
        def go() -> None:
            inferior = self._access.require_stopped()
            self._forget_stop_state()
            if thread_id is not None:
                inferior.thread(thread_id)
            if jumped is not None:
                moved = inferior.thread(jumped)
                moved.jumped, moved.deferred_hit = True, False
            inferior.locked = thread_id
            self._events.put(Continued(thread_id, all_threads=thread_id is None))
            self.jump_patches.before_continue(inferior)
            inferior.resume(thread_id)

        self._tracer.call(go)

    def step_instruction(self, thread_id: int) -> None:
        def go() -> None:
            inferior = self._access.require_stopped()
            inferior.thread(thread_id)
            self._forget_stop_state()
            self._events.put(Continued(thread_id, all_threads=False))
            self.jump_patches.before_step(inferior)
            inferior.step(thread_id)

        self._tracer.call(go)

    def interrupt(self) -> None:
        def go() -> None:
            inferior = self._access.require()
            if inferior.run is Run.RUNNING:
                inferior.interrupt()

        self._tracer.call(go)

    def stopped_thread(self, thread_id: int) -> tuple[Inferior, Tracee]:
        """For conditions, at each hit (conditions.py): no call more than needed."""
        inferior = self._access.inferior
        if inferior is None:
            raise TargetError("The program is not being run.")
        t = inferior.thread(thread_id)
        if t.running:
            raise TargetError(f"Thread {thread_id} is running.")
        return inferior, t

    def threads(self, *, details: bool = True) -> list[ThreadInfo]:
        inferior = self._access.inferior
        if inferior is not None and inferior.run is Run.STOPPED:
            known = self._stop_cache.known_threads(inferior, details)  # see StopCache: no handoff
            if known is None and details:
                known = _lone_thread(inferior)
            if known is not None:
                return known

        def go() -> list[ThreadInfo]:
            inferior = self._access.inferior
            if inferior is None:
                return self._cores.threads()
            files = self._thread_files
            if files is None or files.pid != inferior.pid:  # a new process, or a fork's child followed
                if files is not None:
                    files.close()
                files = self._thread_files = inferior.thread_files = ThreadFiles(inferior.pid)
            listed = None if details else self._stopped_listing(inferior, files)
            if listed is not None:
                return listed
            result = []
            for t in sorted(inferior.threads.values(), key=lambda t: t.tid):
                state = inferior.state_of(t)
                if state is ThreadState.EXITED:
                    continue
                pc = inferior.pc_or_none(t) if state is ThreadState.STOPPED and details else None
                name, core = files.name_and_core(t.tid) if details else (files.name(t.tid), None)
                result.append(ThreadInfo(t.tid, name, state, pc, core))
            files.keep_only({info.tid for info in result})
            if inferior.run is Run.STOPPED:
                self._stop_cache.remember_threads(inferior, result, details)
            return result

        return self._tracer.call(go)

    def _stopped_listing(self, inferior: Inferior, files: ThreadFiles) -> list[ThreadInfo] | None:
        """DAP's list at a stop, names alone, read in one pass (ThreadFiles.listing); None
        while a thread runs (one resumed alone): go() gives each its state then."""
        tracees = inferior.threads
        if inferior.run is not Run.STOPPED or any(t.running for t in tracees.values()):
            return None
        result = files.listing([tid for tid in sorted(tracees) if not tracees[tid].gone])
        self._stop_cache.remember_threads(inferior, result, False)
        return result

    # --- StepControl (source/steps.py): a stepping plan run by the inferior ---------------
    def plan_start(self, thread_id: int) -> tuple[Control, int]:
        inferior = self._access.require_stopped()
        return inferior, int(inferior.regs(inferior.thread(thread_id)).rip)

    def run_plan(self, plan: StepPlan, pc: int, *, alone: bool) -> None:
        inferior = self._access.require_stopped()
        inferior.locked = plan.tid if alone else None
        self.jump_patches.before_step(inferior)
        inferior.start_plan(plan, pc)

    def take_call_return(self, thread_id: int) -> tuple[Registers, VectorRegisters] | None:
        return self._call_settings.returned.pop(thread_id, None)


def _lone_thread(inferior: Inferior) -> list[ThreadInfo] | None:
    """The one thread of a stopped process whose registers are read, listed on the caller's
    thread from its stat file: MI's *stopped asks for its core at each stop, and a handoff
    to the tracer costs twice the read. None where the tracer must list them."""
    try:
        (t,) = inferior.threads.values()
    except (ValueError, RuntimeError):  # several threads, or one added meanwhile
        return None
    if t.gone or t.running or not t.regs_valid:
        return None
    name, core = thread_name_and_core(inferior.pid, t.tid)
    return [ThreadInfo(t.tid, name, ThreadState.STOPPED, int(t.regs.rip), core)]
