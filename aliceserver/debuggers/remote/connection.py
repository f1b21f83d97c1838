"""The link to a stub: a byte stream (TCP `HOST:PORT`, or the stdin/stdout of a command
as gdb's `target remote | COMMAND`), with acks and retransmission until QStartNoAckMode,
a time limit on every wait, and `^C` sent out of band. A closed peer, a broken pipe or a
silent stub is a typed error (errors.py), never a hang."""

from __future__ import annotations

import logging
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections import deque
from typing import Callable, NoReturn, Protocol

from aliceserver.debuggers.remote import packets, replyshape
from aliceserver.debuggers.remote.errors import RemoteConnectionError, RemoteError, RemoteTimeout

wire = logging.getLogger("aliceserver.wire")

DEFAULT_TIMEOUT = 10.0  # seconds for an answer to a request (gdb's `remotetimeout` is 2)
RETRANSMITS = 3  # gdb tries a packet three times before it gives up
RETRY_PAUSE = 0.1  # between tries of a refused TCP connection (gdb polls ten times a second)
COMMUNICATION_ERROR = "Remote communication error.  Target disconnected."  # gdb's, before strerror


class Channel(Protocol):
    def write(self, data: bytes) -> None: ...

    def read(self, timeout: float | None) -> bytes:
        """What arrived, waiting at most `timeout` seconds (None: for ever); b"" at the
        deadline; RemoteConnectionError once the peer is gone."""
        ...

    def close(self) -> None: ...


class TcpChannel:
    def __init__(self, host: str, port: int, timeout: float | None = DEFAULT_TIMEOUT, *,
                 auto_retry: bool = False) -> None:  # fmt: skip
        """Connect within `timeout` (None: no limit); with `auto_retry` a refused connection
        is tried again until then, as gdb's `tcp auto-retry` (a stub still starting)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            try:
                self._socket = socket.create_connection((host, port), timeout=left)
                break
            except ConnectionRefusedError as error:
                if not auto_retry or (deadline is not None and time.monotonic() + RETRY_PAUSE > deadline):
                    raise RemoteConnectionError(f"{host}:{port}: {error.strerror or error}.") from None
                time.sleep(RETRY_PAUSE)
            except OSError as error:
                raise RemoteConnectionError(f"{host}:{port}: {error.strerror or error}.") from None
        self._socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def write(self, data: bytes) -> None:
        try:
            self._socket.sendall(data)
        except OSError as error:
            raise RemoteConnectionError(
                f"{COMMUNICATION_ERROR}: {error.strerror or error}."
            ) from None

    def read(self, timeout: float | None) -> bytes:
        self._socket.settimeout(timeout)
        try:
            data = self._socket.recv(65536)
        except TimeoutError:
            return b""
        except OSError as error:
            raise RemoteConnectionError(
                f"{COMMUNICATION_ERROR}: {error.strerror or error}."
            ) from None
        if not data:
            raise RemoteConnectionError("Remote connection closed")
        return data

    def fileno(self) -> int:
        return self._socket.fileno()

    def close(self) -> None:
        try:
            self._socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._socket.close()


class PipeChannel:
    """A command run by the shell, its stdin and stdout the link (its stderr stays ours,
    as under gdb). Closing ends the command if it has not ended by itself."""

    def __init__(self, command: str, *, stderr: int | None = None) -> None:
        try:
            self.process = subprocess.Popen(
                command, shell=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                start_new_session=True,
            )  # fmt: skip
        except OSError as error:
            raise RemoteConnectionError(f"{command}: {error.strerror or error}.") from None
        assert self.process.stdin is not None and self.process.stdout is not None
        self._in = self.process.stdin.fileno()
        self._out = self.process.stdout.fileno()

    def write(self, data: bytes) -> None:
        try:
            os.write(self._in, data)
        except OSError as error:  # BrokenPipeError: the command is gone
            raise RemoteConnectionError(
                f"{COMMUNICATION_ERROR}: {error.strerror or error}."
            ) from None

    def read(self, timeout: float | None) -> bytes:
        ready, _, _ = select.select([self._out], [], [], timeout)
        if not ready:
            return b""
        data = os.read(self._out, 65536)
        if not data:
            raise RemoteConnectionError("Remote connection closed")
        return data

    def fileno(self) -> int:
        return self._out

    def close(self) -> None:
        assert self.process.stdin is not None and self.process.stdout is not None
        # As gdb's pipe_close, the command is told to end (SIGTERM), here before its input
        # ends: `gdbserver --multi -` reopens stdio at the end of input and says so on the
        # stderr we share, hundreds of thousands of times a second, until it is killed. The
        # whole group: the shell may not have exec'd the command.
        if self.process.poll() is None:
            self._signal_group(signal.SIGTERM)
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            self.process.wait(timeout=1)
        except subprocess.TimeoutExpired:
            self._signal_group(signal.SIGKILL)
            self.process.wait()
        self._signal_group(signal.SIGKILL)  # nothing of it outlives the link

    def _signal_group(self, number: int) -> None:
        try:
            os.killpg(self.process.pid, number)
        except (ProcessLookupError, PermissionError):
            pass


def open_channel(target: str, timeout: float | None = DEFAULT_TIMEOUT, *, auto_retry: bool = False) -> Channel:
    """`HOST:PORT` (or `tcp:HOST:PORT`, `:PORT` for this machine) or `| COMMAND`; a TCP
    connection made within `timeout`, see TcpChannel."""
    if target.startswith("|"):
        return PipeChannel(target[1:].strip())
    spec = target.removeprefix("tcp:")
    host, sep, port = spec.rpartition(":")
    if not sep or not port.isdigit():
        raise RemoteConnectionError(f"{target}: not HOST:PORT nor | COMMAND.")
    return TcpChannel(host.strip("[]") or "localhost", int(port), timeout, auto_retry=auto_retry)


class Connection:
    """Packets over a Channel. One thread at a time receives; `interrupt` may be called
    from another while it waits for a stop."""

    def __init__(self, channel: Channel, timeout: float | None = DEFAULT_TIMEOUT) -> None:
        self.channel = channel
        self.timeout = timeout  # for a reply (None: for ever)
        self.acks = True  # until QStartNoAckMode is accepted
        self.notifications: deque[bytes] = deque()  # `%...` bodies, for a non-stop client
        self._decoder = packets.Decoder()
        self._pending: deque[packets.Received] = deque()
        self._send_lock = threading.Lock()
        self.closed = False
        # Told once, with why, when the link breaks (closed, reset, silent past the limit):
        # nothing more can be asked of the stub then.
        self.on_closed: Callable[[str], None] | None = None
        # Packets sent without waiting (post), whose replies come first, in order
        self._owed: deque[tuple[bytes, Callable[[bytes], None]]] = deque()
        self._unsent = b""  # posted packets, written with the next packet sent
        self._owed_unsent = 0  # how many of _owed are in _unsent (the last ones)
        self._last_reply: bytes | None = None
        self.previous_reply: bytes | None = None  # the one before the last: its copy is no reply

    # --- sending ------------------------------------------------------------------
    def send(self, body: bytes) -> None:
        """Send one packet; in ack mode wait for its `+`, sending it again on `-` or when
        none comes in a third of the time limit (as gdb does)."""
        framed = packets.frame(body)
        self._drop_stale()
        with self._send_lock:
            self._write(self._unsent + framed)  # posted packets go with it, in one write
            self._unsent, self._owed_unsent = b"", 0
        if not self.acks:
            return
        item = None
        for attempt in range(RETRANSMITS):
            if attempt:
                wire.debug("-> (again) %r", framed)
                with self._send_lock:
                    self._write(framed)
            each = None if self.timeout is None else self.timeout / RETRANSMITS
            item = self._next(packets.Ack, each, give_up=False)
            if isinstance(item, packets.Ack) and item.positive:
                return
        if item is None:
            self._time_out(self.timeout or 0.0)
        raise RemoteError("The stub refused the packet after three attempts.")

    def _drop_stale(self) -> None:
        """Replies no request is owed (a stub's duplicate, a late resend) would be taken
        for the next request's: dropped before it goes."""
        if self._owed or not any(isinstance(item, packets.Packet) for item in self._pending):
            return
        wire.debug("dropping stale replies: %r", [i for i in self._pending if isinstance(i, packets.Packet)])
        self._pending = deque(item for item in self._pending if not isinstance(item, packets.Packet))

    def post(self, body: bytes, on_reply: Callable[[bytes], None]) -> None:
        """Send `body` and go on without its reply: the stub answers packets in order, so
        the next `receive` takes it first and hands it to `on_reply` (which must not
        raise). A packet and the resume after it then cost one round trip, not two. With
        acks each packet waits for its `+` anyway: there the reply is taken at once."""
        if self.acks:
            on_reply(self.request(body))
            return
        self._drop_stale()
        with self._send_lock:  # the waiter's thread posts too (the thread list at a stop)
            self._unsent += packets.frame(body)
            self._owed.append((body, on_reply))
            self._owed_unsent += 1

    def interrupt(self) -> None:
        """`^C`: a running target stops and answers with a stop reply."""
        with self._send_lock:
            wire.debug("-> ^C")
            self._channel_write(packets.INTERRUPT)

    def _write(self, framed: bytes) -> None:
        wire.debug("-> %r", framed)
        self._channel_write(framed)

    def _channel_write(self, data: bytes) -> None:
        if self.closed:
            raise RemoteConnectionError("Remote connection closed")
        try:
            self.channel.write(data)
        except RemoteConnectionError as error:
            self._broken(str(error))
            raise

    # --- receiving ----------------------------------------------------------------
    def receive(self, timeout: float | None = -1.0) -> bytes:
        """The next reply's body (run-length expanded, still escaped); `timeout` None waits
        for ever (a running program), the default is the connection's limit."""
        self.flush()
        self.settle()
        return self._receive(self.timeout if timeout is not None and timeout < 0 else timeout)

    def flush(self) -> None:
        """Posted packets out now, for the stub to work on while we do something else."""
        if self._unsent:
            with self._send_lock:
                self._write(self._unsent)
                self._unsent, self._owed_unsent = b"", 0

    def settle(self, through: Callable[[bytes], None] | None = None) -> None:
        """The reply of every posted packet written so far handed on (or only up to the
        one `through` takes: a stop's thread list is told before its registers are read);
        those posted since (a breakpoint's removal) go with the next packet, no round trip
        of their own."""
        while len(self._owed) > self._owed_unsent:
            body, on_reply = self._owed.popleft()
            on_reply(self._answer(body, self.timeout))
            if on_reply is through:
                return

    def fileno(self) -> int | None:
        """The link's descriptor to wait on (select), where it has one."""
        fileno = getattr(self.channel, "fileno", None)
        return None if fileno is None or self.closed else int(fileno())

    def pump(self) -> None:
        """What the stub sent read (the link is readable: no wait) and decoded."""
        data = self._read(None)
        wire.debug("<- %r", data[:512])
        self._pending.extend(self._decoder.feed(data))

    def first_reply(self) -> bytes | None:
        """The body of the first whole reply read and not taken (None: none yet), once
        every posted packet's reply is taken: those come first."""
        owed = len(self._owed) - self._owed_unsent
        for item in self._pending:
            if isinstance(item, packets.Packet):
                if owed <= 0 or not item.valid:
                    return item.body
                owed -= 1
        return None

    def _receive(self, limit: float | None) -> bytes:
        while True:
            item = self._next(packets.Packet, limit)
            assert isinstance(item, packets.Packet)  # given up: never None
            if item.valid:
                if self.acks:
                    self._raw(packets.ACK)
                self.previous_reply, self._last_reply = self._last_reply, item.body
                return item.body
            if not self.acks:
                raise RemoteError(f"A reply with a bad checksum: {item.body[:64]!r}")
            wire.debug("bad checksum, asking again")
            self._raw(packets.NAK)

    def _answer(self, body: bytes, limit: float | None) -> bytes:
        """`body`'s reply: a copy of the reply before it (no acks: a stub's duplicate)
        passed over, a few at most."""
        reply = self._receive(limit)
        for _ in range(RETRANSMITS):
            if not replyshape.copy_of_previous(body, reply, self.previous_reply):
                break
            wire.debug("a copy of the reply before, dropped: %r", reply[:64])
            reply = self._receive(limit)
        return reply

    def request(self, body: bytes, timeout: float | None = -1.0) -> bytes:
        self.send(body)
        self.flush()
        self.settle()
        return self._answer(body, self.timeout if timeout is not None and timeout < 0 else timeout)

    def _raw(self, data: bytes) -> None:
        with self._send_lock:
            self._channel_write(data)

    def _next(
        self, want: type[packets.Ack] | type[packets.Packet], timeout: float | None, *, give_up: bool = True
    ) -> packets.Received | None:
        """The first pending item of type `want`: acks no one waits for are dropped and
        notifications queued. A reply that comes while an ack is awaited is an old one the
        stub sends again (it has not had our `+`, and resends for each byte it reads
        instead): acknowledged and dropped, as gdb does; its `+` for our packet, or our
        packet again, follows. None past `timeout` unless `give_up`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            while self._pending:
                item = self._pending[0]
                if isinstance(item, want):
                    return self._pending.popleft()
                if isinstance(item, packets.Packet) and item.valid:
                    wire.debug("a reply instead of an ack: acknowledged and dropped")
                    self._raw(packets.ACK)
                self._pending.popleft()
                if isinstance(item, packets.Notification):
                    self.notifications.append(item.body)
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                if not give_up:
                    return None
                self._time_out(timeout or 0.0)
            data = self._read(left)
            if data:
                wire.debug("<- %r", data[:512])
                self._pending.extend(self._decoder.feed(data))

    def _read(self, timeout: float | None) -> bytes:
        if self.closed:
            raise RemoteConnectionError("Remote connection closed")
        try:
            return self.channel.read(timeout)
        except RemoteConnectionError as error:
            self._broken(str(error))
            raise

    def abandon(self, why: str) -> None:
        """The stub said what leaves its state unknown: nothing more is asked of it."""
        self._broken(why)

    def _time_out(self, limit: float) -> NoReturn:
        # A late reply would be taken for the next request's: the link is done
        why = f"The remote stub did not answer in {limit:g} s."
        self._broken(why)
        raise RemoteTimeout(why)

    def _broken(self, why: str) -> None:
        if self.closed:
            return
        self.closed = True
        wire.debug("link lost: %s", why)
        if self.on_closed is not None:
            self.on_closed(why)

    def close(self) -> None:
        if not self.closed:
            self.closed = True
        self.channel.close()
