"""The thread that waits for a stub's stop replies, so the engine's thread never blocks on
a running program: one per connection (a thread per resume cost 90 us), woken with the
process to wait for, handing each reply to the engine's thread and going on waiting while
the program runs again."""

from __future__ import annotations

import functools
import logging
import queue
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
    ) -> None:
        """`call` runs work on the engine's thread; `handled` takes a stop reply there
        (True: the program runs again); `lost` is told the link broke; `planned` says
        whether a step plan waits for the stop."""
        self._call, self._handled, self._lost, self._planned = call, handled, lost, planned
        self.waiting = False  # a wait is under way: the stop replies are taken here
        self._wake: queue.SimpleQueue[RemoteProcess | None] | None = None

    def start(self, process: RemoteProcess) -> None:
        if self.waiting:
            return  # the wait that handed on this stop goes on
        self.waiting = True
        if self._wake is None:
            self._wake = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(self._wake,), name="aliceserver-remote-wait",
                             daemon=True).start()  # fmt: skip
        self._wake.put(process)

    def stop(self) -> None:
        wake, self._wake = self._wake, None
        if wake is not None:
            wake.put(None)  # it ends once it has handed on what it waits for now

    def _serve(self, wake: queue.SimpleQueue[RemoteProcess | None]) -> None:
        while (process := wake.get()) is not None:
            self._wait(process)

    def _wait(self, process: RemoteProcess) -> None:
        """Block for each stop reply, handle it on the engine's thread."""
        while True:
            try:
                reply = process.next_reply()
            except (RemoteConnectionError, OSError) as error:
                self._call(functools.partial(self._lost, process, str(error)))
                return
            except RemoteError as error:  # stop replies we cannot read: the stub's state is unknown
                log.warning("remote stop: %s", error)
                process.client.connection.abandon(
                    str(error)
                )  # its loss is told: no front end waits on
                self._call(functools.partial(self._lost, process, str(error)))
                return
            except TargetError:
                self.waiting = False
                return
            try:
                process.prefetch_stop(reply, planned=self._planned())
            except (RemoteConnectionError, OSError):
                pass  # the next request tells the engine
            if not self._call(functools.partial(self._handled, process, reply)):
                return
