"""x86 debug registers: DR0-DR3 hold addresses, DR7 enables and shapes them, DR6 says who fired."""

from __future__ import annotations

from aliceserver.debuggers.model import WatchKind
from aliceserver.errors import TargetError

SLOTS = 4
_RW_BITS = {WatchKind.WRITE: 0b01, WatchKind.READ_WRITE: 0b11}
_LEN_BITS = {1: 0b00, 2: 0b01, 8: 0b10, 4: 0b11}


def check_watch(address: int, size: int) -> None:
    if size not in _LEN_BITS:
        raise TargetError(f"a hardware watchpoint covers 1, 2, 4 or 8 bytes, not {size}")
    if address % size:
        raise TargetError(f"a {size}-byte hardware watchpoint needs an address aligned to {size}")


def dr7_value(slots: list[tuple[int, int, WatchKind] | None]) -> int:
    """DR7 for the given slots, each (address, size, kind) or None (free)."""
    value = 0
    for index, slot in enumerate(slots):
        if slot is None:
            continue
        _, size, kind = slot
        value |= 1 << (index * 2)  # local enable
        value |= (_RW_BITS[kind] | (_LEN_BITS[size] << 2)) << (16 + index * 4)
    return value


def fired_slots(dr6: int) -> list[int]:
    return [index for index in range(SLOTS) if dr6 & (1 << index)]
