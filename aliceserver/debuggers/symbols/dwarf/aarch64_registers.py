"""gdb's AArch64 registers by name, as `$name` reads them (aarch64-tdep.c, the core
feature of its target description): x0-x30 as long, their w0-w30 halves as uint32_t,
$pc a code pointer, $sp a data pointer, $lr x30 and $cpsr an int. `$fp` is no register
there but gdb's frame base (get_frame_base_address: the caller's sp less the frame size its
prologue analysis finds), which is not computed yet: it is refused, never guessed. The
vector views ($v0, $d0, $s0... gdb's unions) are not offered yet: `$v0` is then a
convenience variable, as any name gdb does not know."""

from __future__ import annotations

from aliceserver.debuggers.arch.aarch64 import CPSR, FPCR, FPSR
from aliceserver.debuggers.symbols.dwarf.types import (
    BaseType,
    Encoding,
    FunctionType,
    PointerType,
    Type,
    VoidType,
)
from aliceserver.debuggers.symbols.dwarf.x86_registers import RegisterSpec

_PC, _SP, _LR = 32, 31, 30
FRAME_BASE = "fp"  # gdb's user register: the frame's base address, not x29


def lookup(name: str) -> RegisterSpec | None:
    """`$name` on AArch64 Linux, or None (then it is a convenience variable)."""
    if name == "pc":
        return RegisterSpec(
            name, _PC, lambda: PointerType(FunctionType(VoidType(), prototyped=False))
        )
    if name == "sp":
        return RegisterSpec(name, _SP, data_pointer)
    if name == "lr":
        return RegisterSpec(name, _LR, _long)
    if name in ("cpsr", "fpsr", "fpcr"):  # gdb 13's descriptions give them no type: int
        word = {"cpsr": CPSR, "fpsr": FPSR, "fpcr": FPCR}[name]
        return RegisterSpec(name, word, lambda: BaseType("int", 4, Encoding.SIGNED))
    number = _number(name[1:])
    if name[:1] == "x" and number is not None:
        return RegisterSpec(name, number, _long)
    if name[:1] == "w" and number is not None:
        return RegisterSpec(name, number, lambda: BaseType("uint32_t", 4, Encoding.UNSIGNED))
    return None


def data_pointer() -> Type:
    return PointerType(VoidType())


def _number(digits: str) -> int | None:
    if not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
        return None
    number = int(digits)
    return number if number <= 30 else None


def _long() -> Type:
    return BaseType("long", 8, Encoding.SIGNED)
