"""OutputBuffer: cursors, a bounded ring with a dropped count, tails, stream filters."""

from __future__ import annotations

from aliceserver.adapters.agent.output import OutputBuffer


def test_read_from_cursor_returns_what_is_new() -> None:
    buffer = OutputBuffer()
    buffer.append("stdout", "hello\n")
    first = buffer.read(0, 100)
    assert (first.text, first.cursor, first.next_cursor, first.dropped, first.more) == (
        "hello\n", 0, 6, 0, 0
    )
    buffer.append("stderr", "oops\n")
    second = buffer.read(first.next_cursor, 100)
    assert second.text == "oops\n"
    assert second.next_cursor == 11 == buffer.end


def test_a_small_max_chars_leaves_the_rest_for_the_next_read() -> None:
    buffer = OutputBuffer()
    buffer.append("stdout", "abcdef")
    buffer.append("stdout", "ghij")
    part = buffer.read(0, 4)
    assert (part.text, part.next_cursor, part.more) == ("abcd", 4, 6)
    rest = buffer.read(part.next_cursor, 100)
    assert rest.text == "efghij"


def test_the_ring_drops_the_oldest_characters_and_counts_them() -> None:
    buffer = OutputBuffer(capacity=10)
    buffer.append("stdout", "0123456789")
    buffer.append("stdout", "abcde")
    part = buffer.read(0, 100)
    assert part.dropped == 5
    assert part.text == "56789abcde"
    assert part.cursor == 5
    assert buffer.read(part.next_cursor, 100).text == ""


def test_a_write_larger_than_the_ring_keeps_its_end() -> None:
    buffer = OutputBuffer(capacity=4)
    buffer.append("stdout", "abcdefgh")
    part = buffer.read(0, 100)
    assert (part.text, part.dropped, part.end) == ("efgh", 4, 8)


def test_streams_can_be_filtered() -> None:
    buffer = OutputBuffer()
    buffer.append("stdout", "out1\n")
    buffer.append("stderr", "err1\n")
    buffer.append("console", "log1\n")
    assert buffer.read(0, 100, frozenset({"stderr"})).text == "err1\n"
    assert buffer.read(0, 100, frozenset({"stdout", "console"})).text == "out1\nlog1\n"


def test_tail_gives_the_last_lines() -> None:
    buffer = OutputBuffer()
    buffer.append("stdout", "one\ntwo\n")
    buffer.append("stdout", "three\nfour\n")
    tail = buffer.tail(1000, lines=2)
    assert tail.text == "three\nfour\n"
    assert tail.more == len("one\ntwo\n")  # kept characters before the tail
    assert tail.cursor == 8
    assert buffer.tail(1000, lines=0).text == ""
    assert buffer.tail(1000, lines=10).text == "one\ntwo\nthree\nfour\n"
    assert buffer.tail(3).text == "ur\n"
