"""The OS tables' readings that do not depend on the machine: a stub's <osdata> document
(values stripped as gdb's XML reader strips them, nothing for empty or broken data) and
/proc/net's addresses (32-bit words in this machine's byte order)."""

from __future__ import annotations

import socket
import sys

import pytest

from aliceserver.debuggers import osdata


def test_a_stubs_document_gives_items_in_order() -> None:
    xml = (b'<osdata type="processes">\n<item><column name="pid">1</column><column name="user"> root </column>'
           b'<column name="command">a &amp; b</column></item>\n<item><column name="pid">2</column>'
           b'<column name="user"></column><column name="command">[kthreadd]</column></item></osdata>\n')  # fmt: skip
    assert osdata.parse(xml) == [[("pid", "1"), ("user", "root"), ("command", "a & b")],
                                 [("pid", "2"), ("user", ""), ("command", "[kthreadd]")]]  # fmt: skip
    assert osdata.parse(b'<osdata type="msg">\n</osdata>\n') == []


@pytest.mark.parametrize("xml", [b"", b"  \n", b"<osdata><item>"])
def test_no_data_or_broken_data_is_none(xml: bytes) -> None:
    assert osdata.parse(xml) is None


@pytest.mark.skipif(sys.byteorder != "little", reason="/proc/net's words are in the host's order")
def test_proc_net_addresses() -> None:
    assert osdata.proc_net_address(socket.AF_INET, "0100007F") == "127.0.0.1"
    assert osdata.proc_net_address(socket.AF_INET6, "00000000000000000000000001000000") == "::1"
    assert osdata.proc_net_address(socket.AF_INET6, "0000000000000000FFFF00000100007F") == "::ffff:127.0.0.1"


def test_unknown_kind_is_none_and_types_list_every_kind() -> None:
    assert osdata.native("nosuch") is None
    kinds = osdata.native("")
    assert kinds is not None and [item[0][1] for item in kinds] == [name for name, _, _, _ in osdata.TYPES]
