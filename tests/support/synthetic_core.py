"""A small core written by our writer from a made-up process: two threads, three mappings
(one file-backed, one unreadable guard page), no live process needed."""

from __future__ import annotations

import struct
from pathlib import Path

from aliceserver.debuggers.core.records import PrPsInfo, registers_to_bytes
from aliceserver.debuggers.core.writer import CoreImage, MemoryMapping, ThreadImage, write_core

STACK, STACK_SIZE = 0x7FFF0000, 0x3000
DATA, DATA_SIZE = 0x600000, 0x2000
GUARD = 0x700000
SIGINFO = struct.pack("<iiiiQ", 11, 0, 1, 0, 0xDEAD).ljust(128, b"\0")


def memory_of(address: int) -> int:
    """The byte our made-up process holds at `address`."""
    return (address * 7 + (address >> 8)) & 0xFF


def read_memory(address: int, size: int) -> bytes:
    if not any(
        start <= address < start + length
        for start, length in ((STACK, STACK_SIZE), (DATA, DATA_SIZE))
    ):
        raise OSError(5, "Input/output error")
    return bytes(memory_of(a) for a in range(address, address + size))


def make_core(path: Path, mapped_file: Path) -> CoreImage:
    """Write the synthetic core at `path`; `mapped_file` backs the DATA mapping."""
    mapped_file.write_bytes(bytes(range(256)) * 64)
    registers = [
        registers_to_bytes(
            {"rip": 0x401000, "rsp": STACK + 0x100, "rax": 1, "eflags": 0x246, "cs": 0x33}
        ),
        registers_to_bytes({"rip": 0x401010, "rsp": STACK + 0x2000, "rax": 2, "fs_base": 0x7000}),
    ]
    fpregs = bytes(range(256)) * 2
    image = CoreImage(
        PrPsInfo(
            100, "synthetic", "synthetic --flag", ppid=1, pgrp=100, sid=100, uid=1000, gid=1000
        ),
        [ThreadImage(100, registers[0], fpregs, None, SIGINFO, 11), ThreadImage(101, registers[1])],
        [
            MemoryMapping(DATA, DATA + DATA_SIZE, "rw-p", 0x1000, 42, str(mapped_file)),
            MemoryMapping(GUARD, GUARD + 0x1000, "---p", 0, 0, ""),
            MemoryMapping(STACK, STACK + STACK_SIZE, "rw-p", 0, 0, "[stack]"),
        ],
        read_memory,
        struct.pack("<QQQQ", 9, 0x401000, 0, 0),  # AT_ENTRY, AT_NULL
    )
    write_core(str(path), image)
    return image
