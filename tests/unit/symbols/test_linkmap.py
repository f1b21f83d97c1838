"""r_debug / link_map: this process's own list through /proc/self/mem, and crafted memory."""

from __future__ import annotations

import os
import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.symbols import auxv
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.debuggers.symbols.linkmap import (
    DT_DEBUG,
    LinkMapEntry,
    RDebug,
    find_r_debug_from_dynamic,
    read_c_string,
    read_link_map,
    read_r_debug,
)
from aliceserver.errors import TargetError


class FakeMemory:
    """A ReadMemory over one block of bytes at `base`; anything else is unmapped."""

    def __init__(self, base: int, data: bytes) -> None:
        self.base = base
        self.data = bytearray(data)
        self.reads = 0

    def __call__(self, address: int, size: int) -> bytes:
        self.reads += 1
        start = address - self.base
        if start < 0 or start + size > len(self.data):
            raise TargetError(f"unmapped {address:#x}+{size}")
        return bytes(self.data[start : start + size])

    def put(self, address: int, payload: bytes) -> None:
        start = address - self.base
        self.data[start : start + len(payload)] = payload


def _node(l_addr: int, l_name: int, l_ld: int, l_next: int, l_prev: int) -> bytes:
    return struct.pack("<5Q", l_addr, l_name, l_ld, l_next, l_prev)


def _own_r_debug(memory: Any) -> tuple[int, RDebug]:
    vector = auxv.read_auxv(os.getpid())
    exe = ElfImage.load(os.readlink("/proc/self/exe"))
    if exe.dynamic_vaddr is None or exe.phdr_vaddr is None:
        pytest.skip("this python is statically linked")
    bias = vector[auxv.AT_PHDR] - exe.phdr_vaddr
    address = find_r_debug_from_dynamic(memory, exe.dynamic_vaddr + bias)
    assert address is not None
    return address, read_r_debug(memory, address)


def test_own_r_debug(self_memory: Any) -> None:
    _address, r_debug = _own_r_debug(self_memory)
    assert r_debug.version >= 1
    assert r_debug.state == "consistent"
    assert r_debug.ldbase == auxv.read_auxv(os.getpid())[auxv.AT_BASE]
    assert r_debug.brk != 0 and r_debug.map_addr != 0


def test_own_link_map_lists_libc(self_memory: Any, self_maps: dict[str, int]) -> None:
    _address, r_debug = _own_r_debug(self_memory)
    entries = read_link_map(self_memory, r_debug.map_addr)
    assert entries[0].name == ""  # the main program
    names = [os.path.basename(e.name) for e in entries]
    assert any(name.startswith("libc.so") for name in names), names
    ldbase = auxv.read_auxv(os.getpid())[auxv.AT_BASE]
    assert any(e.addr == ldbase for e in entries[1:])  # ld.so is on the list too
    for entry in entries[1:]:
        real = os.path.realpath(entry.name) if entry.name.startswith("/") else None
        if real is None or real not in self_maps:
            continue  # the vDSO, or a name that is not a path
        image = ElfImage.load(entry.name)
        assert entry.addr == self_maps[real] - (image.load_low & ~0xFFF), entry
        assert image.dynamic_vaddr is not None
        assert entry.ld == image.dynamic_vaddr + entry.addr


def test_read_c_string_across_chunks() -> None:
    text = b"/lib/" + b"x" * 700 + b".so"
    memory = FakeMemory(0x10F0, text + b"\0" + b"junk")
    assert read_c_string(memory, 0x10F0) == text.decode()
    assert read_c_string(memory, 0x10F0 + len(text)) == ""
    with pytest.raises(TargetError, match="terminator"):
        read_c_string(memory, 0x10F0, limit=100)


def test_read_c_string_keeps_undecodable_bytes() -> None:
    memory = FakeMemory(0x1000, b"/opt/\xff\xfe.so\0")
    name = read_c_string(memory, 0x1000)
    assert name.encode("utf-8", "surrogateescape") == b"/opt/\xff\xfe.so"


def test_read_c_string_unterminated_at_the_end_of_memory() -> None:
    memory = FakeMemory(0x1000, b"abc")
    with pytest.raises(TargetError):
        read_c_string(memory, 0x1000)


def _two_node_memory(*, cycle: bool) -> FakeMemory:
    memory = FakeMemory(0x1000, bytes(0x400))
    memory.put(0x1000, _node(0, 0, 0x5000, 0x1100, 0))
    memory.put(0x1100, _node(0x7F00, 0x1200, 0x7F10, 0x1000 if cycle else 0, 0x1000))
    memory.put(0x1200, b"/lib/libc.so.6\0")
    return memory


def test_read_link_map_crafted() -> None:
    assert read_link_map(_two_node_memory(cycle=False), 0x1000) == [
        LinkMapEntry(addr=0, name="", ld=0x5000, node=0x1000),
        LinkMapEntry(addr=0x7F00, name="/lib/libc.so.6", ld=0x7F10, node=0x1100),
    ]


def test_read_link_map_stops_at_a_cycle() -> None:
    assert len(read_link_map(_two_node_memory(cycle=True), 0x1000)) == 2


def test_read_link_map_limit() -> None:
    memory = FakeMemory(0x1000, bytes(0x1000))
    for i in range(40):  # a long chain of distinct nodes
        address = 0x1000 + i * 40
        memory.put(address, _node(i, 0, 0, address + 40 if i < 39 else 0, 0))
    assert len(read_link_map(memory, 0x1000)) == 40
    assert len(read_link_map(memory, 0x1000, limit=5)) == 5
    assert read_link_map(memory, 0) == []


def test_read_link_map_unreadable_node() -> None:
    memory = _two_node_memory(cycle=False)
    memory.put(0x1100, _node(0x7F00, 0x1200, 0x7F10, 0xDEAD0000, 0x1000))
    with pytest.raises(TargetError):
        read_link_map(memory, 0x1000)


def test_read_r_debug_crafted_and_bad_state() -> None:
    memory = FakeMemory(0x2000, struct.pack("<iIQQIIQ", 1, 0, 0x3000, 0x4000, 1, 0, 0x5000))
    assert read_r_debug(memory, 0x2000) == RDebug(1, 0x3000, 0x4000, "add", 0x5000)
    memory.put(0x2018, struct.pack("<I", 7))
    with pytest.raises(TargetError, match="state"):
        read_r_debug(memory, 0x2000)
    with pytest.raises(TargetError):
        read_r_debug(memory, 0x2010)  # runs past the end


def test_find_r_debug_from_dynamic_crafted() -> None:
    dynamic = struct.pack("<8q", 1, 5, 12, 0x1000, DT_DEBUG, 0x7000, 0, 0)
    assert find_r_debug_from_dynamic(FakeMemory(0x3008, dynamic), 0x3008) == 0x7000
    not_yet = struct.pack("<6q", 1, 5, DT_DEBUG, 0, 0, 0)
    assert find_r_debug_from_dynamic(FakeMemory(0x3000, not_yet), 0x3000) is None
    static = struct.pack("<4q", 1, 5, 0, 0)
    assert find_r_debug_from_dynamic(FakeMemory(0x3000, static), 0x3000) is None
    with pytest.raises(TargetError):
        find_r_debug_from_dynamic(FakeMemory(0x3000, struct.pack("<2q", 1, 5)), 0x3000)


def test_find_r_debug_gives_up_on_an_endless_dynamic_section() -> None:
    memory = FakeMemory(0x10000, struct.pack("<2q", 1, 5) * 100_000)  # no DT_NULL in 1.6 MB
    assert find_r_debug_from_dynamic(memory, 0x10000) is None
    assert memory.reads < 1000


@settings(max_examples=300, deadline=None)
@given(
    st.binary(min_size=0, max_size=2048),
    st.integers(0, 2048),
    st.sampled_from([0x1000, 0x7FFF_F000, 2**64 - 4096]),
)
def test_read_link_map_random_memory(data: bytes, offset: int, base: int) -> None:
    memory = FakeMemory(base, data)
    try:
        entries = read_link_map(memory, base + offset, limit=64)
    except TargetError:
        return
    assert len(entries) <= 64
    assert all(isinstance(e.name, str) for e in entries)


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=0, max_size=1024), st.integers(0, 1024))
def test_r_debug_and_dynamic_random_memory(data: bytes, offset: int) -> None:
    memory = FakeMemory(0x4000, data)
    for parse in (read_r_debug, find_r_debug_from_dynamic):
        try:
            parse(memory, 0x4000 + offset)
        except TargetError:
            pass
