"""DR7 encoding, checked against the bit layout in the Intel SDM (vol. 3, 17.2.4)."""

import pytest

from aliceserver.debuggers.model import WatchKind
from aliceserver.debuggers.ptrace import debugregs
from aliceserver.errors import TargetError


def test_dr7_for_one_write_watch_of_four_bytes_in_slot_zero() -> None:
    value = debugregs.dr7_value([(0x1000, 4, WatchKind.WRITE), None, None, None])
    assert value & 0b11 == 0b01  # L0 enabled
    assert (value >> 16) & 0b11 == 0b01  # R/W0 = write
    assert (value >> 18) & 0b11 == 0b11  # LEN0 = 4 bytes


def test_dr7_read_write_eight_bytes_in_slot_three() -> None:
    value = debugregs.dr7_value([None, None, None, (0x2000, 8, WatchKind.READ_WRITE)])
    assert value & 0xFF == 0b01 << 6
    assert (value >> 28) & 0b1111 == 0b1011  # LEN3 = 8 bytes (10), R/W3 = 11


def test_fired_slots_from_dr6() -> None:
    assert debugregs.fired_slots(0b1010) == [1, 3]
    assert debugregs.fired_slots(0x4000) == []  # BS (single step) only


@pytest.mark.parametrize("address,size,expected", [
    (0x1000, 4, [(0x1000, 4)]),
    (0x1000, 16, [(0x1000, 8), (0x1008, 8)]),  # a struct of two longs
    (0x1000, 12, [(0x1000, 8), (0x1008, 4)]),  # int[3]
    (0x1001, 4, [(0x1001, 1), (0x1002, 2), (0x1004, 1)]),  # an unaligned int
    (0x1000, 3, [(0x1000, 2), (0x1002, 1)]),
    (0x1004, 8, [(0x1004, 4), (0x1008, 4)]),
    (0x1000, 32, [(0x1000, 8), (0x1008, 8), (0x1010, 8), (0x1018, 8)]),
])  # fmt: skip
def test_a_watch_is_split_into_aligned_pieces_one_register_each(address: int, size: int,
                                                                expected: list[tuple[int, int]]) -> None:  # fmt: skip
    assert debugregs.pieces(address, size) == expected


@pytest.mark.parametrize("address,size", [(0x1000, 33), (0x1001, 32), (0x1000, 0)])
def test_more_than_four_pieces_are_refused(address: int, size: int) -> None:
    with pytest.raises(TargetError):
        debugregs.pieces(address, size)
