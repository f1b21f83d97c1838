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


@pytest.mark.parametrize("address,size", [(0x1001, 4), (0x1000, 3), (0x1004, 8)])
def test_bad_shapes_are_refused(address: int, size: int) -> None:
    with pytest.raises(TargetError):
        debugregs.check_watch(address, size)
