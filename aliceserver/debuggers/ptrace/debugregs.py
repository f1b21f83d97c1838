"""x86 debug registers: DR0-DR3 hold addresses, DR7 enables and shapes them, DR6 says who fired."""

from __future__ import annotations

from aliceserver.debuggers.model import WatchKind
from aliceserver.errors import TargetError

SLOTS = 4
_RW_BITS = {WatchKind.WRITE: 0b01, WatchKind.READ_WRITE: 0b11}
_LEN_BITS = {1: 0b00, 2: 0b01, 8: 0b10, 4: 0b11}


MAX_BYTES = SLOTS * 8  # what the four registers cover together


def pieces(address: int, size: int) -> list[tuple[int, int]]:
    """The aligned 1, 2, 4 and 8-byte pieces that cover [address, address + size) exactly,
    one register each, as gdb's x86 debug-register code splits a watch (a struct, an
    array, an unaligned int); TargetError when they are more than the registers."""
    if size <= 0:
        raise TargetError("a watchpoint needs at least one byte")
    out: list[tuple[int, int]] = []
    at, end = address, address + size
    while at < end and len(out) <= SLOTS:
        piece = next(n for n in (8, 4, 2, 1) if at % n == 0 and at + n <= end)
        out.append((at, piece))
        at += piece
    if len(out) > SLOTS:
        raise TargetError(
            f"{size} bytes at {address:#x} need more than the {SLOTS} debug registers"
        )
    return out


def pieces_of(regions: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """The pieces of several places one watch reads (`a + b`), all in the registers."""
    out = [piece for address, size in regions for piece in pieces(address, size)]
    if len(out) > SLOTS:
        raise TargetError(
            f"the {len(regions)} places it reads need more than the {SLOTS} debug registers"
        )
    return out


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
