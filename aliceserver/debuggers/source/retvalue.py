"""A function's return value right after it returns, read where its architecture's ABI
puts it (debuggers/arch: SysV x86-64 in sysv.py, AAPCS64 in aapcs64.py)."""

from __future__ import annotations

from typing import Callable, Mapping

from aliceserver.debuggers.arch.base import Architecture, ReturnLocation
from aliceserver.debuggers.arch.registry import X86_64_ARCH
from aliceserver.debuggers.arch.sysv import _classes
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.symbols.dwarf.types import ArrayType, StructType, Type, strip

__all__ = ["_classes", "read_return_value", "return_bytes", "return_value_of"]

ReadRegister = Callable[[str], "bytes | None"]  # a register's bytes by gdb name, or None


def read_return_value(
    location: ReturnLocation, size: int, read_register: ReadRegister, byte_order: str = "little"
) -> tuple[bytes | None, int | None]:
    """(the value's bytes, or None where a register is unknown) and (its memory address,
    where the ABI returns it in memory)."""
    if location.in_memory:
        if location.address_register is None:
            return None, None
        data = read_register(location.address_register)
        return None, None if data is None else int.from_bytes(data, "little")
    if not location.pieces:
        return None, None
    value = b""
    for piece in location.pieces:
        data = read_register(piece.register)
        if data is None:
            return None, None
        value += data[: piece.size]
    return value.ljust(size, b"\0")[: max(size, len(value))], None


def return_value_of(
    t: Type, arch: Architecture, registers: Mapping[str, int], floats: Mapping[int, bytes]
) -> tuple[bytes | None, int | None]:
    """return_bytes for any architecture: the general registers by name, the others (v0-v3
    on aarch64) by DWARF number from `floats` (a target's float_registers)."""

    def read_register(name: str) -> bytes | None:
        if name in registers:
            return registers[name].to_bytes(arch.pointer_size, arch.byte_order)
        number = arch.register_number(name)
        return None if number is None else floats.get(number)

    t = strip(t)
    return read_return_value(arch.return_location(t), t.size, read_register)


def return_bytes(
    t: Type,
    registers: Mapping[str, int],
    vectors: VectorRegisters | None,
    arch: Architecture = X86_64_ARCH,
) -> tuple[bytes | None, int | None]:
    """(the value's bytes, or None) and (its memory address, for large aggregates), from a
    thread's general registers and its x87/SSE registers (x86-64)."""

    t = strip(t)
    aggregate = isinstance(t, (StructType, ArrayType))

    def read_register(name: str) -> bytes | None:
        if name in registers:
            return registers[name].to_bytes(8, "little")
        if name.startswith("xmm"):
            if vectors is not None:
                return vectors.xmm[int(name[3:])]
            return bytes(16) if aggregate else None  # a struct's SSE eightbyte reads as zeroes
        if name.startswith("st"):
            return None if vectors is None else vectors.st[int(name[2:])]
        return bytes(8)  # a general register the set lacks reads as zero

    location = arch.return_location(t)
    return read_return_value(location, t.size, read_register)
