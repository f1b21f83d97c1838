"""The tracer thread: its loop, the calls handed to it and waited for, and its CPU.

Linux accepts ptrace requests only from the thread that attached, so one thread issues
them all; other threads hand it Commands (`Tracer.call`). While the program runs, the
tracer blocks in waitpid (only its own tracees: __WNOTHREAD); to make it look at a new
command, the caller sends the program a SIGSTOP, which the tracer recognises and swallows.
Nothing polls."""

from __future__ import annotations

import logging
import os
import queue
import signal
import threading
from typing import TYPE_CHECKING, Callable, TypeVar

from aliceserver import affinity
from aliceserver.debuggers.events import Exited
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.startup import WAIT_ONE
from aliceserver.debuggers.ptrace.tracee import Run
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior

log = logging.getLogger(__name__)

T = TypeVar("T")

# No command takes this long on the tracer thread; past it, say so instead of hanging.
COMMAND_PATIENCE = 60.0


class Command:
    """One call to run on the tracer thread. A bare lock, held until the call is done, is
    the caller's wait: every front-end request makes a few of these, and a Future costs
    three times as much."""

    __slots__ = ("fn", "done", "result", "error")

    def __init__(self, fn: Callable[[], object]) -> None:
        self.fn = fn
        self.done = threading.Lock()
        self.done.acquire()
        self.result: object = None
        self.error: BaseException | None = None

    def run(self, then: Callable[[], None] = lambda: None) -> None:
        """`fn()`, then `then()` (work it posted), and only then is its caller released."""
        try:
            self.result = self.fn()
        except BaseException as error:  # handed to the caller's thread
            self.error = error
        finally:
            then()
            self.done.release()


def pin_to_one_cpu() -> None:
    """Keep the tracer thread on one CPU.

    Each stop hands control from the program to the tracer and back. When both sit on the
    same CPU that handoff is a plain context switch; across CPUs it costs wake-up IPIs and
    the kernel's wait for the stopped task to leave its CPU, three times the whole cost of
    a breakpoint hit here (measured: 13k vs 39k hits/s). A program we launch inherits the
    CPU (posix_spawn from this thread); an attached one keeps its own.
    """
    current = os.sched_getaffinity(0)
    if len(current) > 1 and not affinity.pin_current_thread(affinity.session_cpu()):
        log.debug("tracer stays unpinned")


class Tracer:
    """The tracer thread: it runs the Commands other threads hand it, and while the program
    runs it blocks in waitpid for its tracees and hands each status to the inferior.

    `inferior` is the live process (the session sets it); the loop reads it, the lock and
    the queue as plain attributes at each event."""

    def __init__(self, libc: binding.Libc) -> None:
        self._libc = libc
        self._commands: queue.SimpleQueue[Command | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._in_wait = False
        # While no ptrace tracee runs: a wait for a stub's replies (remote/waiter.py) the
        # loop makes in place of blocking on the queue, so that a stop reply is taken on
        # this thread, not read on another and handed here; a command wakes it by the pipe.
        self._idle: Callable[[int], None] | None = None
        self._in_idle = False
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        self._posted: list[Callable[[], object]] = []  # on the tracer thread, by `post`
        self.inferior: Inferior | None = None
        self.closed = False
        self._on_exit: Callable[[Inferior], None] = lambda inferior: None
        self._thread = threading.Thread(target=self._loop, name="aliceserver-tracer", daemon=True)

    def start(self, on_exit: Callable[[Inferior], None]) -> None:
        """Run the thread; `on_exit` is told of the process's end, on it."""
        self._on_exit = on_exit
        self._thread.start()

    def stop(self) -> None:
        """End the thread (after the commands already queued)."""
        self.closed = True
        self._enqueue(None)
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=10)

    def call(self, fn: Callable[[], T]) -> T:
        """`fn()` run on the tracer thread; the program, if it runs, is woken to take it."""
        if threading.current_thread() is self._thread:
            return fn()
        if self.closed:
            raise TargetError("the debugger session is closed")
        command = Command(fn)
        with self._lock:
            self._enqueue(command)
            inferior = self.inferior
            if inferior is not None and inferior.unwritten is not None:
                inferior.unwritten.abandon()  # our caller may be the console it waits for
            if self._in_wait and inferior is not None and not inferior.wake_sent:
                inferior.wake_sent = True
                try:
                    os.kill(inferior.pid, signal.SIGSTOP)
                except ProcessLookupError:
                    pass  # it is exiting; the tracer wakes on the exit
        if not command.done.acquire(timeout=COMMAND_PATIENCE):
            log.error("the tracer thread did not answer within %s s", COMMAND_PATIENCE)
            raise TargetError("the debugger engine did not answer; the session may be stuck")
        if command.error is not None:
            raise command.error
        return command.result  # type: ignore[return-value]

    def post(self, fn: Callable[[], object]) -> None:
        """`fn()` run on the tracer thread once the command it runs now is done, before
        that command's caller goes on (from another thread: queued, not waited for). For
        work that must not run in the middle of a command, as a stub's loss found there."""
        if threading.current_thread() is self._thread:
            self._posted.append(fn)
        elif not self.closed:
            self._enqueue(Command(fn))  # it wakes no running ptrace inferior: a stub's only

    def idle_wait(self, wait: Callable[[int], None] | None) -> None:
        """While no ptrace tracee runs and no command waits, the loop calls `wait(fd)`
        instead of blocking on the queue: it waits for its own input or for `fd` (readable
        once a command comes), and handles what came (None: the queue alone again)."""
        self._idle = wait
        if threading.current_thread() is not self._thread:
            self._wake()

    def _enqueue(self, command: Command | None) -> None:
        self._commands.put(command)
        self._wake()

    def _wake(self) -> None:
        if self._in_idle:
            try:
                os.write(self._wake_write, b"!")
            except OSError:
                pass  # full: it is woken already

    def _idle_once(self, wait: Callable[[int], None]) -> None:
        with self._lock:
            self._in_idle = self._commands.empty()
        if self._in_idle:
            try:
                wait(self._wake_read)
            except Exception:
                log.exception("tracer: waiting for a stub")
            finally:
                with self._lock:
                    self._in_idle = False
                try:
                    os.read(self._wake_read, 4096)  # the wake-ups sent till now
                except BlockingIOError:
                    pass
        self._run_posted()

    def _run_posted(self) -> None:
        while self._posted:
            fn = self._posted.pop(0)
            try:
                fn()
            except Exception:
                log.exception("work posted on the tracer thread")

    def _loop(self) -> None:
        pin_to_one_cpu()
        while True:
            inferior = self.inferior
            with self._lock:
                waiting = (
                    inferior is not None and inferior.run is Run.RUNNING and inferior.any_running()
                )
                self._in_wait = waiting and self._commands.empty()
            idle = self._idle
            if not waiting and idle is not None:
                self._idle_once(idle)
                if self._commands.empty():
                    continue
            if not self._in_wait:
                command = self._commands.get() if not waiting else self._commands.get_nowait()
                if command is None:
                    os.close(self._wake_read)  # nothing writes once the loop is not idle
                    os.close(self._wake_write)
                    return
                command.run(self._run_posted)
                continue
            try:
                tid, status = self._libc.waitpid(-1, WAIT_ONE)
            except ChildProcessError:
                tid, status = 0, 0
            with self._lock:
                self._in_wait = False
            assert inferior is not None
            try:
                if tid:
                    inferior.handle(tid, status)
                else:
                    inferior.exit_event = inferior.exit_event or Exited(inferior.pid, None)
                if inferior.parked:
                    self._drain_commands()
                    if self.inferior is inferior and inferior.run is Run.RUNNING:
                        inferior.unpark()
            except Exception:
                log.exception("tracer: handling status %#x of %d", status, tid)
            if inferior.exit_event is not None and self.inferior is inferior:
                self._on_exit(inferior)
            self._run_posted()

    def _drain_commands(self) -> None:
        while True:
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                return
            if command is None:
                self._commands.put(None)  # close() asked: let the loop see it
                return
            command.run(self._run_posted)
