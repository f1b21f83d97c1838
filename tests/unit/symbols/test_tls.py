"""Finding a library's TLS fields in a link_map by its PT_TLS values, and its block."""

from __future__ import annotations

import struct

import pytest

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.tls import TlsSegment, TlsSlot, block_address, find_tls_slot

SEGMENT = TlsSegment(vaddr=0x3DE8, filesz=0x10, memsz=0x28, align=8)
BIAS = 0x7FFF_F7FB_0000


def memory(words: dict[int, int], size: int = 0x2000) -> bytearray:
    data = bytearray(size)
    for at, value in words.items():
        struct.pack_into("<Q", data, at, value & (1 << 64) - 1)
    return data


def reader(data: bytearray, base: int):  # type: ignore[no-untyped-def]
    def read(address: int, size: int) -> bytes:
        if not base <= address <= base + len(data) - size:
            raise EvaluationError(f"Cannot access memory at address {address:#x}")
        return bytes(data[address - base : address - base + size])

    return read


def link_map(offset: int, tls_offset: int, modid: int) -> bytearray:
    """A link_map whose TLS fields start at `offset` (glibc 2.36: 1104)."""
    fields = [SEGMENT.vaddr + BIAS, SEGMENT.filesz, SEGMENT.memsz, SEGMENT.align, 0,
              tls_offset, modid]  # fmt: skip
    return memory({offset + 8 * i: value for i, value in enumerate(fields)})


@pytest.mark.parametrize("offset", [0x450, 0x398, 0x800])
def test_the_fields_are_found_wherever_the_release_put_them(offset: int) -> None:
    data = link_map(offset, tls_offset=0x80, modid=2)
    assert find_tls_slot(reader(data, 0x10000), 0x10000, SEGMENT, BIAS) == TlsSlot(2, 0x80)


def test_a_module_without_static_tls_goes_through_the_dtv() -> None:
    data = link_map(0x450, tls_offset=-1, modid=3)  # FORCED_DYNAMIC_TLS_OFFSET
    slot = find_tls_slot(reader(data, 0x10000), 0x10000, SEGMENT, BIAS)
    assert slot == TlsSlot(3, None)
    tcb, dtv = 0x1000, 0x1800
    thread = memory({tcb + 8: 0x20000 + dtv, dtv - 16: 4, dtv + 16 * 3: 0x55550000})
    assert block_address(reader(thread, 0x20000), 0x20000 + tcb, slot) == 0x55550000
    unallocated = memory({tcb + 8: 0x20000 + dtv, dtv - 16: 4, dtv + 16 * 3: -1})
    with pytest.raises(EvaluationError):
        block_address(reader(unallocated, 0x20000), 0x20000 + tcb, slot)


def test_static_tls_is_below_the_thread_pointer() -> None:
    assert block_address(reader(bytearray(8), 0), 0x7000_1000, TlsSlot(2, 0x80)) == 0x7000_0F80


def test_no_match_before_the_loader_assigned_a_module_id() -> None:
    data = link_map(0x450, tls_offset=0, modid=0)
    assert find_tls_slot(reader(data, 0x10000), 0x10000, SEGMENT, BIAS) is None
