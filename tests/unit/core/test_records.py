"""Note payloads written and read back, the note framing, and the XSAVE normalisation."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.core.memory import CoreMemory, Region
from aliceserver.debuggers.core.records import (
    PRSTATUS_SIZE,
    MappedFile,
    PrPsInfo,
    PrStatus,
    decode_file_note,
    encode_file_note,
    encode_note,
    registers_to_bytes,
)
from aliceserver.debuggers.core.xsave import standard_xstate
from aliceserver.debuggers.symbols.elfheaders import iter_notes

_U64 = st.integers(0, (1 << 64) - 1)


@given(
    tid=st.integers(1, 1 << 22),
    signal=st.integers(0, 64),
    values=st.lists(_U64, min_size=27, max_size=27),
)
def test_prstatus_round_trip(tid: int, signal: int, values: list[int]) -> None:
    raw = struct.pack("<27Q", *values)
    status = PrStatus(tid, signal, raw, ppid=3, pgrp=4, sid=5)
    encoded = status.encode()
    assert len(encoded) == PRSTATUS_SIZE
    assert PrStatus.decode(encoded) == status


def test_prstatus_offsets_are_the_kernels() -> None:
    encoded = PrStatus(0x1234, 11, registers_to_bytes({"r15": 0xAA, "gs": 0xBB})).encode()
    assert struct.unpack_from("<h", encoded, 12)[0] == 11  # pr_cursig
    assert struct.unpack_from("<i", encoded, 32)[0] == 0x1234  # pr_pid
    assert struct.unpack_from("<Q", encoded, 112)[0] == 0xAA  # pr_reg[0]: r15
    assert struct.unpack_from("<Q", encoded, 112 + 26 * 8)[0] == 0xBB  # pr_reg[26]: gs


def test_prpsinfo_round_trip_and_truncation() -> None:
    info = PrPsInfo(42, "a" * 20, "prog " + "x" * 100, ppid=1, uid=7, gid=8, state="S")
    decoded = PrPsInfo.decode(info.encode())
    assert len(info.encode()) == 136
    assert decoded.name == "a" * 15 and decoded.arguments == ("prog " + "x" * 100)[:80]
    assert (decoded.pid, decoded.ppid, decoded.uid, decoded.gid, decoded.state) == (
        42,
        1,
        7,
        8,
        "S",
    )


@given(st.lists(st.tuples(st.integers(0, 1 << 40), st.integers(1, 1 << 20), st.integers(0, 1 << 20),
                          st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=30)), max_size=8))  # fmt: skip
def test_file_note_round_trip(entries: list[tuple[int, int, int, str]]) -> None:
    files = [
        MappedFile(start, start + size, page * 4096, name) for start, size, page, name in entries
    ]
    assert decode_file_note(encode_file_note(files)) == files


def test_file_note_that_overstates_its_count_is_refused() -> None:
    with pytest.raises(ValueError):
        decode_file_note(struct.pack("<QQ", 1000, 4096))


def test_notes_are_framed_with_four_byte_padding() -> None:
    data = encode_note("CORE", 1, b"abcde") + encode_note("LINUX", 0x202, b"")
    assert len(data) % 4 == 0
    notes = list(iter_notes(data))
    assert [(n.owner, n.type, n.desc) for n in notes] == [
        ("CORE", 1, b"abcde"),
        ("LINUX", 0x202, b""),
    ]
    with pytest.raises(ValueError):
        list(iter_notes(data[:20]))


def _amd_avx512_area(pkru: bool) -> bytes:
    """An XSAVE area as Zen 4 lays it out: AVX-512 right after AVX, 2432 bytes (+8 PKRU)."""
    area = bytearray(832 + 1600 + (8 if pkru else 0))
    area[464:472] = (0xE7 | (0x200 if pkru else 0)).to_bytes(8, "little")  # XCR0
    area[576:832] = b"\x11" * 256  # ymm upper halves
    area[832:896] = b"\x22" * 64  # k0-7
    area[896:1408] = b"\x33" * 512  # zmm0-15 upper halves
    area[1408:2432] = b"\x44" * 1024  # zmm16-31
    if pkru:
        area[2432:] = b"\x55" * 8
    return bytes(area)


@pytest.mark.parametrize("pkru", [False, True])
def test_xstate_moves_avx512_to_its_standard_offsets(pkru: bool) -> None:
    standard = standard_xstate(_amd_avx512_area(pkru))
    assert len(standard) == (2696 if pkru else 2688)  # what gdb 13 sizes from XCR0
    assert standard[576:832] == b"\x11" * 256 and standard[832:1088] == bytes(256)
    assert standard[1088:1152] == b"\x22" * 64 and standard[1152:1664] == b"\x33" * 512
    assert standard[1664:2688] == b"\x44" * 1024
    assert standard[2688:] == (b"\x55" * 8 if pkru else b"")
    assert standard_xstate(standard) == standard  # already standard: kept


def test_xstate_without_avx512_is_kept() -> None:
    area = bytearray(832)
    area[464:472] = (0x7).to_bytes(8, "little")
    assert standard_xstate(bytes(area)) == bytes(area)


def test_memory_layers_take_the_first_that_holds_an_address() -> None:
    first = Region(0x1000, 0x1010, 0, lambda offset, size: b"A" * size)
    second = Region(0x1000, 0x2000, 0, lambda offset, size: b"B" * size)
    empty_file = Region(
        0x3000, 0x3100, 0, lambda offset, size: b""
    )  # a file shorter than its mapping
    zeros = Region(0x3000, 0x3010, 0, lambda offset, size: bytes(size))
    memory = CoreMemory([[first], [second, empty_file], [zeros]])
    assert memory.read(0x100C, 8) == b"AAAABBBB"
    assert memory.read(0x3008, 8) == bytes(8)
    assert not memory.readable(0x3010) and memory.readable(0x1FFF)
