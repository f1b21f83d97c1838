"""qXfer:libraries:read (gdb's library-list.dtd), read as gdb's solib-target reads it."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.remote.errors import RemoteError
from aliceserver.debuggers.remote.libraries import ListedLibrary, parse_listed


def test_segments_and_sections_are_read_per_library() -> None:
    document = b"""<library-list version="1.0">
      <library name="/lib/libfoo.so"><segment address="0x7f0000001000"/></library>
      <library name="C:\\bar.dll"><section address="0x10001000"/><section address="0x10003000"/></library>
    </library-list>"""
    assert parse_listed(document) == (
        ListedLibrary("/lib/libfoo.so", segments=(0x7F0000001000,)),
        ListedLibrary("C:\\bar.dll", sections=(0x10001000, 0x10003000)),
    )


def test_an_empty_list_lists_nothing() -> None:
    assert parse_listed(b'<library-list version="1.0"/>') == ()


@pytest.mark.parametrize("document, words", [
    (b'<library-list><library name="a"><segment address="0x1"/><section address="0x2"/></library></library-list>',
     "Library list with both segments and sections"),
    (b'<library-list><library name="a"><segment address="zz"/></library></library-list>', "bad library entry"),
    (b"<library-list><library", "bad library list"),
])  # fmt: skip
def test_what_gdb_refuses_is_refused(document: bytes, words: str) -> None:
    with pytest.raises(RemoteError, match=words):
        parse_listed(document)
