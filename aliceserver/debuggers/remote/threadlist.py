"""The threads of the stopped process, asked of the stub once per stop: their wire ids
(with the process), names, and the thread a stop reply that names none stopped."""

from __future__ import annotations

from typing import Callable

from aliceserver.debuggers.remote import threadids
from aliceserver.debuggers.remote.client import RemoteClient
from aliceserver.debuggers.remote.errors import RemoteError
from aliceserver.debuggers.remote.threadids import ThreadRef
from aliceserver.errors import TargetError


class ThreadList:
    def __init__(self, client: RemoteClient) -> None:
        self.client = client
        self._refs: list[ThreadRef] | None = None
        self._names: dict[int, str] = {}
        self._stopped: ThreadRef | None = None  # the thread the stop reply named
        self._asked: bytes | None = None  # the reply to the list's prefetch, not read yet
        # The last whole list's reply and what it said: most stops' list is the last one's,
        # and its XML costs more to read than to compare
        self._last: tuple[bytes, list[threadids.ThreadRef], dict[int, str]] | None = None
        self._generation = 0  # a resume makes a prefetch's late answer stale
        self._taker: Callable[[bytes], None] | None = None  # takes the prefetch's answer

    def forget(self) -> None:
        """On a resume: threads come and go while the program runs."""
        self._refs = None
        self._stopped = None
        self._asked = None
        self._generation += 1

    def prefetch(self) -> None:
        """A stop just came: ask for the list now, so that the stub makes it while we hand
        the stop on and judge it (a stop reported takes the list, as gdb's). Its answer is
        read with the next reply and parsed only if the list is wanted."""
        if self._refs is not None or not self.client.supports("qXfer:threads:read"):
            return
        generation = self._generation

        def answered(reply: bytes) -> None:
            if generation == self._generation:
                self._asked = reply

        self._taker = answered
        self.client.connection.post(self.client.xfer_request("threads", "", 0), answered)  # the caller flushes

    def refs(self) -> list[ThreadRef]:
        if self._refs is None:
            self.client.connection.settle(through=self._taker)  # not the replies asked after it
            first, self._asked = self._asked, None
            if first is not None and self._last is not None and first == self._last[0]:
                _, refs, names = self._last
                self._refs, self._names = list(refs), dict(names)
                return self._refs
            infos = self.client.threads(first)
            self._refs = [info.ref for info in infos]
            self._names = {info.ref.tid: info.name for info in infos}
            if first is not None and first.startswith(b"l"):  # the whole list in that one reply
                self._last = (first, list(self._refs), dict(self._names))
        return self._refs

    def note(self, ref: ThreadRef) -> None:
        """The thread a stop reply named: its registers need no list (a plan's steps
        read them at every stop)."""
        self._stopped = ref

    def ref(self, tid: int) -> ThreadRef:
        if self._stopped is not None and self._stopped.tid == tid:
            return self._stopped
        for ref in self.refs():
            if ref.tid == tid:
                return ref
        raise TargetError(f"Unknown thread {tid}.")

    def name(self, tid: int) -> str:
        self.refs()
        return self._names.get(tid, "")

    def current(self) -> ThreadRef:
        """`qC`, else the first thread: for a stop reply that names no thread (`S`)."""
        reply = self.client.ask(b"qC")
        if reply.startswith(b"QC"):
            return threadids.parse(reply[2:])
        refs = self.refs()
        if not refs:
            raise RemoteError("The stub names no thread.")
        return refs[0]
