"""The code patterns gdb's amd64 prologue analysis recognises, on hand-assembled entries,
and the producer checks that decide which rule applies."""

from __future__ import annotations

import pytest

from aliceserver.debuggers.symbols.dwarf.prologue import (
    abbreviations_use_location_lists,
    frame_setup_length,
    gcc_version,
    is_llvm,
)

ENDBR64 = bytes.fromhex("f30f1efa")
PUSH_MOV = bytes.fromhex("554889e5")  # push %rbp; mov %rsp,%rbp
BODY = bytes.fromhex("c3")  # ret


@pytest.mark.parametrize(
    ("code", "length"),
    [
        (PUSH_MOV + BODY, 4),
        (ENDBR64 + PUSH_MOV + BODY, 8),
        (bytes.fromhex("55488bec") + BODY, 4),  # the other encoding of mov %rsp,%rbp
        # lea 0x8(%rsp),%r10; and $-16,%rsp; pushq -0x8(%r10): main realigning the stack
        (bytes.fromhex("4c8d542408 4883e4f0 41ff72f8") + PUSH_MOV, 17),
        # push %rbx; lea 0x10(%rsp),%rbx; and $-32,%rsp; pushq -0x8(%rbx)
        (bytes.fromhex("53 488d5c2410 4883e4e0 ff73f8") + PUSH_MOV, 17),
    ],
)
def test_frame_setups_are_skipped(code: bytes, length: int) -> None:
    assert frame_setup_length(code) == length


@pytest.mark.parametrize(
    "code",
    [
        BODY,
        bytes.fromhex("55") + BODY,  # push %rbp alone: frameless to gdb
        bytes.fromhex("53 4883ec10") + BODY,  # push %rbx; sub $16,%rsp
        bytes.fromhex("4c8d542408 4883e4f0 41ff73f8") + PUSH_MOV,  # pushes another reg
        b"",
    ],
)
def test_functions_without_a_frame_pointer_have_nothing_skipped(code: bytes) -> None:
    assert frame_setup_length(code) is None


def test_producers() -> None:
    assert gcc_version("GNU C17 12.2.0 -mtune=generic -march=x86-64 -g") == (12, 2)
    assert gcc_version("GNU C++17 4.4.7 -g") == (4, 4)
    assert gcc_version("GNU AS 2.40") == (2, 40)
    assert gcc_version("clang version 16.0.6") == (-1, -1)
    assert is_llvm("clang version 16.0.6") and is_llvm("clang LLVM (rustc version 1.70.0)")
    assert not is_llvm("GNU C17 12.2.0")


UNIT_V5 = bytes.fromhex("00000000 0500 01 08 00000000")
UNIT_V3 = bytes.fromhex("00000000 0300 00000000 08")


def _abbrev(*specs: tuple[int, int]) -> bytes:
    body = b"".join(bytes([a, f]) for a, f in specs)
    return bytes([1, 0x34, 0]) + body + b"\0\0" + b"\0"  # one DW_TAG_variable entry, end


def test_location_lists_are_found_in_the_abbreviations() -> None:
    assert abbreviations_use_location_lists(UNIT_V5, _abbrev((0x03, 0x08), (0x02, 0x17)))
    assert abbreviations_use_location_lists(UNIT_V5, _abbrev((0x02, 0x22)))  # loclistx
    assert not abbreviations_use_location_lists(UNIT_V5, _abbrev((0x02, 0x18)))  # exprloc
    assert not abbreviations_use_location_lists(UNIT_V5, _abbrev((0x02, 0x06)))  # a constant
    assert abbreviations_use_location_lists(UNIT_V3, _abbrev((0x02, 0x06)))  # v3 offsets
    assert not abbreviations_use_location_lists(UNIT_V5, _abbrev((0x40, 0x17)))  # a frame base's list
    assert abbreviations_use_location_lists(UNIT_V5, _abbrev((0x02, 0x17))[:4]) is None
