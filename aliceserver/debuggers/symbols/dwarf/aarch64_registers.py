"""gdb's AArch64 registers by name, as `$name` reads them (aarch64-tdep.c, the core
feature of its target description): x0-x30 as long, their w0-w30 halves as uint32_t,
$pc a code pointer, $sp a data pointer, $lr x30, $cpsr, $fpsr and $fpcr ints. `$fp` is no
register there but gdb's frame base (get_frame_base_address, from its prologue analysis:
unwind.frame_base), which the evaluator computes. The
SIMD registers come as gdb's unions (aarch64_vnv_type and its kin): $v0 (every lane view),
$q0, $d0, $s0, $h0 and $b0 (the low 16, 8, 4, 2 and 1 bytes of v0, as unsigned, signed
and, where there is one, float)."""

from __future__ import annotations

from aliceserver.debuggers.arch.aarch64 import CPSR, FPCR, FPSR, V0
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    Member,
    PointerType,
    StructType,
    Type,
    VoidType,
)
from aliceserver.debuggers.symbols.dwarf.x86_registers import RegisterSpec, code_pointer

_PC, _SP, _LR = 32, 31, 30
# w0-w30 by numbers of their own: read as x's low half, written zero-extended into x (as
# aarch64-tdep.c's pseudo_write), where a view at x's offset 0 would keep x's upper half
W0 = 0x30000
FRAME_BASE = "fp"  # gdb's user register: the frame's base address, not x29


def lookup(name: str) -> RegisterSpec | None:
    """`$name` on AArch64 Linux, or None (then it is a convenience variable)."""
    if name == "pc":
        return RegisterSpec(name, _PC, code_pointer)
    if name == "sp":
        return RegisterSpec(name, _SP, data_pointer)
    if name == "lr":
        return RegisterSpec(name, _LR, _long)
    if name in ("cpsr", "fpsr", "fpcr"):  # gdb 13's descriptions give them no type: int
        word = {"cpsr": CPSR, "fpsr": FPSR, "fpcr": FPCR}[name]
        return RegisterSpec(name, word, lambda: BaseType("int", 4, Encoding.SIGNED))
    number = _number(name[1:], 30)
    if name[:1] == "x" and number is not None:
        return RegisterSpec(name, number, _long)
    if name[:1] == "w" and number is not None:
        return RegisterSpec(name, W0 + number, lambda: BaseType("uint32_t", 4, Encoding.UNSIGNED))
    lane = _SIMD_VIEWS.get(name[:1])
    vector = _number(name[1:], 31)
    if lane is not None and vector is not None:
        if lane == 16 and name[0] == "v":
            return RegisterSpec(name, V0 + vector, _vnv)
        return RegisterSpec(name, V0 + vector, lambda: _scalar_view(lane))
    return None


# gdb's SIMD views of v0-v31: the lane width each letter stands for
_SIMD_VIEWS = {"v": 16, "q": 16, "d": 8, "s": 4, "h": 2, "b": 1}
# The members of gdb's view of a lane of each width: (name, type name, encoding)
_LANE_MEMBERS: dict[int, tuple[tuple[str, str, Encoding], ...]] = {
    16: (("u", "uint128_t", Encoding.UNSIGNED), ("s", "int128_t", Encoding.SIGNED)),
    8: (("f", "double", Encoding.FLOAT), ("u", "uint64_t", Encoding.UNSIGNED), ("s", "int64_t", Encoding.SIGNED)),
    4: (("f", "float", Encoding.FLOAT), ("u", "uint32_t", Encoding.UNSIGNED), ("s", "int32_t", Encoding.SIGNED)),
    2: (("bf", "bfloat16", Encoding.FLOAT), ("f", "half", Encoding.FLOAT), ("u", "uint16_t", Encoding.UNSIGNED),
        ("s", "int16_t", Encoding.SIGNED)),
    1: (("u", "uint8_t", Encoding.UNSIGNED), ("s", "int8_t", Encoding.SIGNED)),
}  # fmt: skip
_TAGS = {16: "vnq", 8: "vnd", 4: "vns", 2: "vnh", 1: "vnb"}


def _union(tag: str, size: int, members: list[Member]) -> StructType:
    union = StructType("union", f"__gdb_builtin_type_{tag}", size)
    union.members = members
    return union


def _scalar_view(width: int) -> Type:
    """$q0, $d0, $s0, $h0, $b0: one lane's views."""
    members = [Member(name, BaseType(type_name, width, encoding), 0)
               for name, type_name, encoding in _LANE_MEMBERS[width]]  # fmt: skip
    return _union(_TAGS[width], width, members)


def _vnv() -> Type:
    """$v0: the 16 bytes as lanes of each width, each as arrays of its views."""
    lanes = []
    for letter, width in (("d", 8), ("s", 4), ("h", 2), ("b", 1), ("q", 16)):
        count = 16 // width
        members = [Member(name, ArrayType(BaseType(type_name, width, encoding), count, vector=True), 0)
                   for name, type_name, encoding in _LANE_MEMBERS[width]]  # fmt: skip
        lanes.append(Member(letter, _union(_TAGS[width], 16, members), 0))
    return _union("vnv", 16, lanes)


def data_pointer() -> Type:
    return PointerType(VoidType())


def _number(digits: str, last: int) -> int | None:
    """The register number `digits` spell (decimal, no leading zero), if at most `last`."""
    if not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
        return None
    number = int(digits)
    return number if number <= last else None


def _long() -> Type:
    return BaseType("long", 8, Encoding.SIGNED)
