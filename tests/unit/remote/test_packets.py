"""RSP framing: escapes, run-length, checksums and the stream decoder, with round trips."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.packets import Ack, Decoder, Notification, Packet


def test_checksum_and_frame_of_a_known_packet() -> None:
    # gdb's manual: `$g#67`; the sum of 'O','K' is 0x9a.
    assert packets.frame(b"g") == b"$g#67"
    assert packets.frame(b"OK") == b"$OK#9a"
    assert packets.frame(
        b"Stop:T05", notification=True
    ) == b"%Stop:T05#" + b"%02x" % packets.checksum(b"Stop:T05")


def test_escape_covers_the_four_framing_bytes() -> None:
    assert packets.escape(b"a#b$c}d*e") == b"a}\x03b}\x04c}]d}\x0ae"
    assert packets.unescape(b"a}\x03b}\x04c}]d}\x0ae") == b"a#b$c}d*e"


def test_run_length_as_the_manual_shows() -> None:
    # "0* " is '0' and 0x20 - 29 = 3 more: "0000".
    assert packets.run_length_decode(b"0* ") == b"0000"
    assert packets.run_length_decode(b'ab*"c') == b"a" + b"b" * 6 + b"c"


def test_a_run_with_nothing_to_repeat_is_refused() -> None:
    with pytest.raises(packets.FramingError):
        packets.run_length_decode(b"*!")
    with pytest.raises(packets.FramingError):
        packets.unescape(b"abc}")


@given(st.binary(max_size=300))
def test_escape_round_trip(data: bytes) -> None:
    escaped = packets.escape(data)
    assert not set(escaped) & set(b"#$*")
    assert packets.unescape(escaped) == data


@given(st.binary(max_size=300))
def test_run_length_round_trip_through_a_frame(data: bytes) -> None:
    body = packets.run_length_encode(packets.escape(data))
    assert not set(body) & set(b"#$")  # a count never reads as framing
    (item,) = Decoder().feed(packets.frame(body))
    assert isinstance(item, Packet) and item.valid
    assert packets.unescape(item.body) == data


@given(st.lists(st.sampled_from(b"0aF}"), min_size=1, max_size=200).map(bytes))
def test_runs_shrink_the_body(data: bytes) -> None:
    body = packets.run_length_encode(packets.escape(data))
    assert packets.unescape(packets.run_length_decode(body)) == data
    assert len(body) <= len(packets.escape(data))


@given(st.binary(min_size=1, max_size=100), st.integers(1, 255))
def test_a_corrupted_checksum_is_reported(data: bytes, delta: int) -> None:
    body = packets.escape(data)
    framed = bytearray(packets.frame(body))
    wrong = (packets.checksum(body) + delta) & 0xFF
    framed[-2:] = b"%02x" % wrong
    (item,) = Decoder().feed(bytes(framed))
    assert isinstance(item, Packet) and not item.valid


@given(st.lists(st.binary(max_size=40), max_size=6), st.integers(1, 7))
def test_the_decoder_reassembles_a_stream_cut_anywhere(bodies: list[bytes], cut: int) -> None:
    stream = b"".join(b"+" + packets.frame(packets.escape(body)) for body in bodies)
    decoder = Decoder()
    found = []
    for start in range(0, len(stream), cut):
        found += decoder.feed(stream[start : start + cut])
    replies = [packets.unescape(item.body) for item in found if isinstance(item, Packet)]
    assert replies == bodies
    assert sum(isinstance(item, Ack) for item in found) == len(bodies)


def test_noise_is_skipped_and_notifications_kept() -> None:
    found = Decoder().feed(b"\x03junk-" + packets.frame(b"Stop:T05", notification=True) + b"$OK#9a")
    assert found == [Ack(False), Notification(b"Stop:T05"), Packet(b"OK")]


def test_hex_reads_unavailable_registers_as_zero() -> None:
    assert packets.from_hex(b"xxxx0102") == b"\0\0\x01\x02"
    assert packets.hex_bytes(b"\x01\xff") == b"01ff"
