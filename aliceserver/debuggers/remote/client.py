"""A session with a stub over a Connection: qSupported negotiation, no-ack mode, requests
and their error replies, qXfer objects read in chunks, the thread list, the `Hg` thread,
and the wait for a stop reply (with the `O` console output that comes before it)."""

from __future__ import annotations

import logging
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from dataclasses import dataclass

from aliceserver.debuggers.remote import packets, replyshape, stops, threadids
from aliceserver.debuggers.remote.connection import Connection
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported
from aliceserver.debuggers.remote.threadids import ThreadRef

log = logging.getLogger(__name__)

# What we offer (gdb 13 offers these and more): the stub then reports breakpoint kinds
# in its stops, speaks multiprocess thread ids, and gives its x86 register description.
OFFER = (b"qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+;no-resumed+;"
         b"xmlRegisters=i386")  # fmt: skip
DEFAULT_PACKET_SIZE = 400  # what gdb assumes of a stub that names none
_XFER_HEADROOM = 32  # the `m`/`l` and escapes of a qXfer reply, within the packet size
_INVALID_STOP_REPLIES = 3  # passed over while a stop is awaited; more: the stub is broken


@dataclass(frozen=True, slots=True)
class ThreadInfo:
    ref: ThreadRef
    name: str = ""
    core: int | None = None


class RemoteClient:
    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.features: dict[str, str] = {}  # qSupported: name -> "+", "-" or a value
        self.packet_size = DEFAULT_PACKET_SIZE
        self.vcont: frozenset[str] = frozenset()  # vCont? actions: c C s S t r
        self.on_output: Callable[[str], None] = lambda text: None
        self._general_thread: ThreadRef | None = None
        # optional packets the stub answered empty (P, p, Z0..Z4, qXfer:...): never sent
        # again on this connection, as gdb's packet configs go from auto to disabled
        self.refused: set[str] = set()

    # --- the handshake --------------------------------------------------------------
    def negotiate(self) -> None:
        """qSupported, then QStartNoAckMode where offered, then vCont?."""
        reply = self.connection.request(OFFER)
        for item in reply.decode("latin-1").split(";"):
            if not item:
                continue
            if item[-1] in "+-?" and "=" not in item:
                self.features[item[:-1]] = item[-1]
            else:
                name, _, value = item.partition("=")
                self.features[name] = value
        if "PacketSize" in self.features:
            self.packet_size = int(self.features["PacketSize"], 16)
        if (
            self.supports("QStartNoAckMode")
            and self.connection.request(b"QStartNoAckMode") == b"OK"
        ):
            self.connection.acks = False
        reply = self.request(b"vCont?")
        if reply.startswith(b"vCont"):
            self.vcont = frozenset(a for a in reply.decode().split(";")[1:] if a)

    def supports(self, feature: str) -> bool:
        return self.features.get(feature) == "+" and feature not in self.refused

    @property
    def multiprocess(self) -> bool:
        return self.supports("multiprocess")

    # --- requests ---------------------------------------------------------------------
    def request(self, body: bytes) -> bytes:
        """The reply to `body`, as it came (`E..` included)."""
        return self.connection.request(body)

    def ask(self, body: bytes) -> bytes:
        """The reply to `body`; `E NN`/`E.text` raise RemoteError, an empty reply (a
        request the stub does not know) RemoteUnsupported."""
        reply = self.connection.request(body)
        check(body, reply)
        return reply

    def ok(self, body: bytes) -> None:
        reply = self.ask(body)
        if reply != b"OK":
            raise RemoteError(f"Unexpected reply to {body[:40]!r}: {reply[:80]!r}.")

    def xfer_read(self, obj: str, annex: str = "", first: bytes | None = None) -> bytes:
        """A whole qXfer object, in chunks the packet size allows (`m`: more, `l`: last);
        `first`: the reply to the first chunk's request (xfer_request), asked already."""
        if not self.supports(f"qXfer:{obj}:read"):
            raise RemoteUnsupported(f"The stub offers no qXfer:{obj}:read.")
        data = bytearray()
        while True:
            body = self.xfer_request(obj, annex, len(data))
            if first is None:
                reply = self.request(body)
            else:
                reply, first = first, None
            if not reply:
                self.refused.add(f"qXfer:{obj}:read")
            check(body, reply)
            marker, body = reply[:1], packets.unescape(reply[1:])
            if marker not in (b"m", b"l"):
                raise RemoteError(f"Unexpected qXfer reply: {reply[:80]!r}.")
            data += body
            if marker == b"l" or not body:
                return bytes(data)

    def xfer_request(self, obj: str, annex: str, offset: int) -> bytes:
        chunk = max(self.packet_size - _XFER_HEADROOM, 64)
        return f"qXfer:{obj}:read:{annex}:{offset:x},{chunk:x}".encode()

    # --- threads ------------------------------------------------------------------
    def threads(self, first: bytes | None = None) -> list[ThreadInfo]:
        """qXfer:threads:read where offered (names and cores), else qfThreadInfo/qsThreadInfo;
        `first`: the reply to the list's first chunk, asked already."""
        if self.supports("qXfer:threads:read"):
            try:
                root = ElementTree.fromstring(self.xfer_read("threads", first=first))
            except ElementTree.ParseError as error:
                raise RemoteError(f"A bad thread list from the stub: {error}.") from None
            found = []
            for node in root.iter("thread"):
                core = node.get("core")
                found.append(ThreadInfo(threadids.parse(node.get("id", "0")), node.get("name", ""),
                                        int(core, 16) if core else None))  # fmt: skip
            return found
        refs: list[ThreadInfo] = []
        reply = self.ask(b"qfThreadInfo")
        while reply.startswith(b"m"):
            refs += [ThreadInfo(threadids.parse(part)) for part in reply[1:].split(b",") if part]
            reply = self.ask(b"qsThreadInfo")
        return refs

    def select_thread(self, ref: ThreadRef) -> None:
        """`Hg`: the thread that `g`, `G`, `p`, `P` and `m` read and write."""
        if ref != self._general_thread:
            self.ok(b"Hg" + ref.encode(self.multiprocess))
            self._general_thread = ref

    def stopped_in(self, ref: ThreadRef) -> None:
        """A stop reply named `ref`: an all-stop stub makes it the `Hg` thread (gdbserver's
        prepare_resume_reply, qemu's stop), so its registers need no `Hg` first."""
        self._general_thread = ref

    @property
    def general_thread(self) -> ThreadRef | None:
        """The `Hg` thread as far as we know (None: unknown since a resume)."""
        return self._general_thread

    def forget_thread(self) -> None:
        """After a resume the stub's `Hg` thread may have changed (gdbserver sets it to the
        stopped thread): select again before the next register access."""
        self._general_thread = None

    # --- stops ----------------------------------------------------------------------
    def wait_stop(self, timeout: float | None = None) -> stops.StopReply:
        """The stop reply of a resume (None: wait as long as the program runs); `O`
        packets before it go to `on_output`. A copy of the reply before it (a duplicate of
        the answer to a packet sent with the resume or before it) is passed over with gdb's
        warning, a few at most; other garbage is an error."""
        invalid = 0
        while True:
            reply = self.connection.receive(timeout)
            if _output(reply):
                self.on_output(packets.from_hex(reply[1:]).decode(errors="replace"))
                continue
            try:
                return stops.parse(reply)
            except RemoteError:
                invalid += 1
                copy = reply == self.connection.previous_reply and replyshape.some_answer(reply)
                if invalid > _INVALID_STOP_REPLIES or not copy:
                    raise
                log.warning("Invalid remote reply: %r", reply[:80])

    def stop_arrived(self) -> bool:
        """Whether the stop reply has come whole (`wait_stop` then takes it without
        waiting); `O` packets before it handed on meanwhile."""
        connection = self.connection
        while (body := connection.first_reply()) is not None:
            if not _output(body):
                return True  # (a stub's copy of an earlier reply: wait_stop passes it over)
            connection.receive()  # here already: no wait
            self.on_output(packets.from_hex(body[1:]).decode(errors="replace"))
        return False

    def resume(self, body: bytes, timeout: float | None = None) -> stops.StopReply:
        self.connection.send(body)
        self.forget_thread()
        return self.wait_stop(timeout)

    def monitor(self, command: str) -> str:
        """gdb's `monitor COMMAND` (qRcmd): the stub's `O` output, then OK."""
        self.connection.send(b"qRcmd," + packets.hex_bytes(command.encode()))
        said: list[str] = []
        while True:
            reply = self.connection.receive()
            if reply.startswith(b"O") and reply != b"OK":
                said.append(packets.from_hex(reply[1:]).decode(errors="replace"))
                continue
            if reply != b"OK":
                check(b"qRcmd", reply)
                said.append(packets.from_hex(reply).decode(errors="replace"))
            return "".join(said)

    def close(self) -> None:
        self.connection.close()


def check(body: bytes, reply: bytes) -> None:
    if not reply:
        raise RemoteUnsupported(f"The stub does not support {body[:40]!r}.")
    if reply.startswith(b"E") and (reply[1:2] == b"." or (len(reply) == 3 and reply[1:].isalnum())):
        message = (
            reply[2:].decode(errors="replace")
            if reply[1:2] == b"."
            else f"error {reply[1:].decode()}"
        )
        raise RemoteError(f"The stub refused {body[:40].decode(errors='replace')}: {message}.")


def _output(reply: bytes) -> bool:
    """An `O` packet: the program's or the stub's console output."""
    return reply.startswith(b"O") and len(reply) > 1 and not reply.startswith(b"OK")
