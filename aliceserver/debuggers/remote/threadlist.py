"""The threads of the stopped process, asked of the stub once per stop: their wire ids
(with the process), names, and the thread a stop reply that names none stopped."""

from __future__ import annotations

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

    def forget(self) -> None:
        """On a resume: threads come and go while the program runs."""
        self._refs = None

    def refs(self) -> list[ThreadRef]:
        if self._refs is None:
            infos = self.client.threads()
            self._refs = [info.ref for info in infos]
            self._names = {info.ref.tid: info.name for info in infos}
        return self._refs

    def ref(self, tid: int) -> ThreadRef:
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
