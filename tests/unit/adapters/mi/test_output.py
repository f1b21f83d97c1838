"""c-strings and MI values as gdb writes and reads them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.adapters.mi.output import (
    CStringError,
    Results,
    c_string,
    read_c_string,
    record,
    stream,
    value,
)
from tests.support.mi_grammar import parse_record


def test_escapes_like_gdb() -> None:
    assert c_string('say "hi"\n\tgrüß') == r'"say \"hi\"\n\tgr\303\274\303\237"'
    assert c_string("a\033b\007c\001d\\") == r'"a\033b\ac\001d\\"'  # ESC in octal, never \e
    assert c_string(b"\x7f\xff\r\x0b\x0c\x08") == r'"\177\377\r\v\f\b"'


@given(st.binary())
def test_round_trip_of_any_bytes(data: bytes) -> None:
    text = c_string(data)
    assert text.isascii() and all(" " <= ch <= "~" for ch in text)
    assert read_c_string(text) == (data, len(text))
    assert parse_record("~" + text).kind == "console"


@given(st.text(st.characters(max_codepoint=0x7F)) | st.text(st.characters(blacklist_categories=("Cs",))))
def test_text_is_written_as_its_utf8_bytes(text: str) -> None:
    """Plain ASCII text takes a shorter way than the byte table: both write the same."""
    assert c_string(text) == c_string(text.encode("utf-8"))


@given(st.text())
def test_round_trip_of_any_text(text: str) -> None:
    decoded, _ = read_c_string(c_string(text))
    assert decoded == text.encode("utf-8", "surrogateescape")


def test_reader_accepts_gdb_escapes() -> None:
    assert read_c_string(r'"\e[0m\101\7x"') == (b"\x1b[0mA\x07x", 14)
    for bad in ('"open', r'"\q"', "no quote", '"ends with \\'):
        with pytest.raises(CStringError):
            read_c_string(bad)


def test_values_tuples_lists_and_duplicate_keys() -> None:
    assert value({"a": "1", "b": ["x", {"c": "2"}]}) == '{a="1",b=["x",{c="2"}]}'
    assert value(Results([("frame", {"level": "0"}), ("frame", {"level": "1"})], as_list=True)) == \
        '[frame={level="0"},frame={level="1"}]'
    assert value(Results([("thread-id", "1"), ("thread-id", "2")])) == '{thread-id="1",thread-id="2"}'
    assert value([]) == "[]" and value({}) == "{}"
    assert record("^", "done", [("value", "3")], "12") == '12^done,value="3"'
    assert record("*", "running", [("thread-id", "all")]) == '*running,thread-id="all"'
    assert stream("&", "x\n") == '&"x\\n"'


@given(st.dictionaries(st.sampled_from(["func", "file", "value"]), st.text(), max_size=3))
def test_a_tuples_text_fields_are_written_as_c_strings(fields: dict[str, str]) -> None:
    """A tuple quotes plain text itself: any text comes out as c_string writes it."""
    expected = ",".join(f"{key}={c_string(text)}" for key, text in fields.items())
    assert value(fields) == "{" + expected + "}"
    assert value({"frame": fields}) == "{frame={" + expected + "}}"
