"""The wait for a stub's stop replies while the program runs, so the engine's thread never
blocks on a running program.

Where the engine's thread can wait for the link itself between commands (the tracer's
idle wait: a select on the link and its queue's wake-up pipe), each reply is read and
handled there, as gdb's one event loop does: no thread to wake and hand the stop over
(two handoffs per stop, each a scheduler wake-up under load). Otherwise (a link without
a file descriptor) a thread per connection waits (a thread per resume cost 90 us), woken
with the process to wait for, handing each reply to the engine's thread and going on
waiting while the program runs again."""

from __future__ import annotations

import functools
import logging
import queue
import select
import threading
from typing import TYPE_CHECKING, Callable

from aliceserver.debuggers.remote.errors import RemoteConnectionError, RemoteError
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.process import RemoteProcess
    from aliceserver.debuggers.remote.stops import StopReply

log = logging.getLogger(__name__)


class StopWaiter:
    def __init__(
        self,
        call: Callable[[Callable[[], object]], object],
        handled: Callable[[RemoteProcess, StopReply], bool],
        lost: Callable[[RemoteProcess, str], None],
        planned: Callable[[], bool],
        idle: Callable[[Callable[[int], None] | None], None] | None = None,
    ) -> None:
        """`call` runs work on the engine's thread; `handled` takes a stop reply there
        (True: the program runs again); `lost` is told the link broke; `planned` says
        whether a step plan waits for the stop; `idle` sets the engine thread's idle wait
        (ptrace/tracer.py's idle_wait), where it has one."""
        self._call, self._handled, self._lost, self._planned = call, handled, lost, planned
        self._idle = idle
        self.waiting = False  # a wait is under way: the stop replies are taken here
        self._wake: queue.SimpleQueue[RemoteProcess | None] | None = None
        self._process: RemoteProcess | None = None  # waited for on the engine's thread

    def start(self, process: RemoteProcess) -> None:
        """On the engine's thread, a resume just sent: wait for its stop."""
        if self.waiting:
            return  # the wait that handed on this stop goes on
        self.waiting = True
        if self._idle is not None and process.client.connection.fileno() is not None:
            self._process = process
            self._idle(self._wait_idle)
            return
        if self._wake is None:
            self._wake = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(self._wake,), name="aliceserver-remote-wait",
                             daemon=True).start()  # fmt: skip
        self._wake.put(process)

    def stop(self) -> None:
        if self._process is not None and self._idle is not None:
            self._process = None
            self._idle(None)
        wake, self._wake = self._wake, None
        if wake is not None:
            wake.put(None)  # it ends once it has handed on what it waits for now

    def _serve(self, wake: queue.SimpleQueue[RemoteProcess | None]) -> None:
        while (process := wake.get()) is not None:
            self._wait(process)

    def _wait(self, process: RemoteProcess) -> None:
        """Block for each stop reply, handle it on the engine's thread."""
        while self._take(process):
            pass

    def _wait_idle(self, wake: int) -> None:
        """The engine's thread, no command waiting: the stop reply taken if it came (or
        what came of it read), else back once `wake` or the link is readable."""
        process = self._process
        if process is None or not self.waiting or process.client.connection.closed:
            self._end_idle()
            return
        connection = process.client.connection
        try:
            if not process.stop_arrived():
                link = connection.fileno()
                assert link is not None
                if link not in select.select([link, wake], [], [])[0]:
                    return  # a command: the loop runs it and comes back
                connection.pump()
                if not process.stop_arrived():
                    return  # a part of it, or the stub's output
        except (RemoteConnectionError, OSError) as error:
            self._end_idle()
            self._call(functools.partial(self._lost, process, str(error)))
            return
        except RemoteError as error:
            self._end_idle()
            self._unreadable(process, error)
            return
        if not self._take(process):
            self._end_idle()

    def _end_idle(self) -> None:
        if self._process is not None and self._idle is not None:
            self._process = None
            self._idle(None)

    def _unreadable(self, process: RemoteProcess, error: RemoteError) -> None:
        """Stop replies we cannot read: the stub's state is unknown, the link given up
        (its loss is told: no front end waits on)."""
        log.warning("remote stop: %s", error)
        process.client.connection.abandon(str(error))
        self._call(functools.partial(self._lost, process, str(error)))

    def _take(self, process: RemoteProcess) -> bool:
        """The next stop reply read and handled on the engine's thread; True while the
        program runs again after it."""
        try:
            reply = process.next_reply()
        except (RemoteConnectionError, OSError) as error:
            self._call(functools.partial(self._lost, process, str(error)))
            return False
        except RemoteError as error:
            self._unreadable(process, error)
            return False
        except TargetError:
            self.waiting = False
            return False
        try:
            process.prefetch_stop(reply, planned=self._planned())
        except (RemoteConnectionError, OSError):
            pass  # the next request tells the engine
        return bool(self._call(functools.partial(self._handled, process, reply)))
