"""Connection over a scripted channel: acks, retransmission, bad checksums, notifications,
time limits and a dead peer."""

from __future__ import annotations

from collections import deque

import pytest

from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.connection import Connection
from aliceserver.debuggers.remote.errors import RemoteConnectionError, RemoteError, RemoteTimeout


class ScriptedChannel:
    """Answers each write with the next scripted bytes; None in the script: the peer closes."""

    def __init__(self, answers: list[bytes | None]) -> None:
        self.answers: deque[bytes | None] = deque(answers)
        self.written: list[bytes] = []
        self.inbox = b""

    def write(self, data: bytes) -> None:
        self.written.append(data)
        if data in (packets.ACK, packets.NAK) and not self.answers:
            return
        if self.answers and data not in (packets.ACK,):
            answer = self.answers.popleft()
            if answer is None:
                self.inbox = b"<closed>"
            else:
                self.inbox += answer

    def read(self, timeout: float | None) -> bytes:
        if self.inbox == b"<closed>":
            raise RemoteConnectionError("Remote connection closed")
        data, self.inbox = self.inbox, b""
        return data

    def close(self) -> None:
        pass


def test_a_nak_makes_the_packet_go_again() -> None:
    channel = ScriptedChannel([b"-", b"+" + packets.frame(b"OK")])
    assert Connection(channel).request(b"Hg0") == b"OK"
    assert channel.written == [packets.frame(b"Hg0"), packets.frame(b"Hg0"), packets.ACK]


def test_a_bad_checksum_is_refused_and_the_reply_read_again() -> None:
    channel = ScriptedChannel([b"+$OK#00", packets.frame(b"OK")])
    assert Connection(channel).request(b"?") == b"OK"
    assert channel.written == [packets.frame(b"?"), packets.NAK, packets.ACK]


def test_three_refusals_are_an_error() -> None:
    channel = ScriptedChannel([b"-", b"-", b"-"])
    with pytest.raises(RemoteError, match="three"):
        Connection(channel).send(b"g")


def test_without_acks_nothing_is_acknowledged_and_notifications_wait() -> None:
    channel = ScriptedChannel(
        [packets.frame(b"Stop:T05", notification=True) + packets.frame(b"OK")]
    )
    connection = Connection(channel)
    connection.acks = False
    assert connection.request(b"vStopped") == b"OK"
    assert channel.written == [packets.frame(b"vStopped")]
    assert list(connection.notifications) == [b"Stop:T05"]


def test_a_silent_stub_times_out() -> None:
    connection = Connection(ScriptedChannel([b""]), timeout=0.05)
    with pytest.raises(RemoteTimeout):
        connection.request(b"?")


def test_a_closed_peer_is_a_connection_error_every_time_after() -> None:
    connection = Connection(ScriptedChannel([None]))
    with pytest.raises(RemoteConnectionError):
        connection.request(b"?")
    with pytest.raises(RemoteConnectionError):
        connection.receive()


def test_a_posted_packet_goes_with_the_next_one_and_its_reply_is_taken_first() -> None:
    channel = ScriptedChannel([packets.frame(b"E01") + packets.frame(b"T05")])
    connection = Connection(channel)
    connection.acks = False
    answers: list[bytes] = []
    connection.post(b"Z0,1000,1", answers.append)
    assert channel.written == []  # nothing written yet: it waits for the packet after it
    assert connection.request(b"vCont;c") == b"T05"
    assert answers == [b"E01"]
    assert channel.written == [packets.frame(b"Z0,1000,1") + packets.frame(b"vCont;c")]


def test_with_acks_a_posted_packet_is_answered_at_once() -> None:
    channel = ScriptedChannel([b"+" + packets.frame(b"OK")])
    answers: list[bytes] = []
    Connection(channel).post(b"z0,1000,1", answers.append)
    assert answers == [b"OK"]


def test_a_reply_instead_of_an_ack_is_an_old_one_acknowledged_and_dropped() -> None:
    """The stub sends its last reply again until it has our `+` (ours was lost): the copy
    is acknowledged and dropped, then comes the `+` for our packet and its own reply."""
    channel = ScriptedChannel([packets.frame(b"old") + b"+" + packets.frame(b"new")])
    assert Connection(channel).request(b"qC") == b"new"
    assert channel.written == [packets.frame(b"qC"), packets.ACK, packets.ACK]


def test_a_packet_with_no_ack_is_sent_again() -> None:
    channel = ScriptedChannel([b"", b"+" + packets.frame(b"OK")])
    assert Connection(channel, timeout=0.3).request(b"Hg0") == b"OK"
    assert channel.written == [packets.frame(b"Hg0"), packets.frame(b"Hg0"), packets.ACK]


def test_a_copy_of_a_reply_no_request_is_owed_is_dropped() -> None:
    channel = ScriptedChannel([packets.frame(b"1234") * 2, packets.frame(b"5678")])
    connection = Connection(channel)
    connection.acks = False
    assert connection.request(b"m1000,2") == b"1234"
    assert connection.request(b"m1002,2") == b"5678"  # not the copy of the first


def test_a_copy_among_posted_replies_that_does_not_fit_the_next_is_dropped() -> None:
    """A stop's reads posted together: a copy of the thread list's reply where the
    registers' is awaited, and a copy of the registers' where a memory line's is, are the
    stub's duplicates (not of the shape awaited), not the answers."""
    threads, registers, line = b"l<threads/>", b"00" * 300, b"ab" * 256
    channel = ScriptedChannel([b"".join(packets.frame(body) for body in
                                        (threads, threads, registers, registers, line, b"OK"))])  # fmt: skip
    connection = Connection(channel)
    connection.acks = False
    answers: list[bytes] = []
    for body in (b"qXfer:threads:read::0,fff", b"g", b"m1000,100"):
        connection.post(body, answers.append)
    assert connection.request(b"Z0,2000,1") == b"OK"
    assert answers == [threads, registers, line]


def test_a_reply_that_fits_is_taken_even_as_the_same_as_the_one_before() -> None:
    channel = ScriptedChannel([packets.frame(b"1234") + packets.frame(b"1234") + packets.frame(b"OK")])
    connection = Connection(channel)
    connection.acks = False
    answers: list[bytes] = []
    connection.post(b"m1000,2", answers.append)
    connection.post(b"m2000,2", answers.append)  # the same bytes there
    assert connection.request(b"z0,2000,1") == b"OK"
    assert answers == [b"1234", b"1234"]


def test_settling_through_one_posted_reply_leaves_those_after_it_to_the_next_request() -> None:
    """A stop's thread list is read while the registers and the stack line asked after it
    are still on their way: they are taken first by the next request, in order."""
    channel = ScriptedChannel([b"".join(packets.frame(body) for body in (b"l<threads/>", b"00" * 8, b"OK"))])
    connection = Connection(channel)
    connection.acks = False
    threads: list[bytes] = []
    registers: list[bytes] = []
    took_threads = threads.append  # the very callable posted
    connection.post(b"qXfer:threads:read::0,fff", took_threads)
    connection.post(b"g", registers.append)
    connection.flush()
    connection.settle(through=took_threads)
    assert threads == [b"l<threads/>"] and registers == []
    assert connection.request(b"Z0,2000,1") == b"OK"
    assert registers == [b"00" * 8]


def test_a_broken_link_is_told_once_and_every_request_after_fails() -> None:
    told: list[str] = []

    class Broken(ScriptedChannel):
        def write(self, data: bytes) -> None:
            raise RemoteConnectionError("Remote communication error.  Target disconnected.: Broken pipe.")

    connection = Connection(Broken([]))
    connection.on_closed = told.append
    with pytest.raises(RemoteConnectionError, match="Broken pipe"):
        connection.request(b"?")
    with pytest.raises(RemoteConnectionError, match="Remote connection closed"):
        connection.request(b"?")
    assert told == ["Remote communication error.  Target disconnected.: Broken pipe."]


def test_a_silent_stub_closes_the_link() -> None:
    told: list[str] = []
    connection = Connection(ScriptedChannel([b""]), timeout=0.05)
    connection.acks = False
    connection.on_closed = told.append
    with pytest.raises(RemoteTimeout):
        connection.request(b"?")
    assert connection.closed and told == ["The remote stub did not answer in 0.05 s."]
