"""gdb's x86-64 registers by name, as `$name` reads them: where each lives and its type.

gdb's target description (features/i386/64bit-*.xml, amd64-tdep.c) gives every register a
type of its own: `$eflags` a flags type printed `[ PF ZF IF ]`, `$xmm0` the union vec128,
`$st0` the x87 extended float, `$eax`/`$ax`/`$al`/`$ah` pseudo registers over rax's low
bytes. A register is a number here: its DWARF number (x86-64 psABI) where it has one, else
one of ours from PRIVATE up (orig_rax, the x87 control words DWARF lacks, ymm, zmm), which the
frame context reads like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    FunctionType,
    Member,
    PointerType,
    StructType,
    Type,
    TypedefType,
    VoidType,
)

XMM0, ST0, MXCSR, FCTRL, FSTAT, XMM16, K0 = 17, 33, 64, 65, 66, 67, 118  # DWARF numbers
PRIVATE = 0x1000  # registers without a DWARF number
ORIG_RAX, FTAG, FISEG, FIOFF, FOSEG, FOOFF, FOP, PKRU = range(PRIVATE, PRIVATE + 8)
YMM0 = PRIVATE + 0x100  # ymm0-31: 32 bytes each
ZMM0 = PRIVATE + 0x200  # zmm0-31: 64 bytes each

_GENERAL = {"rax": 0, "rdx": 1, "rcx": 2, "rbx": 3, "rsi": 4, "rdi": 5, "rbp": 6, "rsp": 7,
            **{f"r{n}": n for n in range(8, 16)}, "rip": 16}  # fmt: skip
_SEGMENTS = {"es": 50, "cs": 51, "ss": 52, "ds": 53, "fs": 54, "gs": 55}
_X87_CONTROL = {"fctrl": FCTRL, "fstat": FSTAT, "ftag": FTAG, "fiseg": FISEG, "fioff": FIOFF,
                "foseg": FOSEG, "fooff": FOOFF, "fop": FOP}  # fmt: skip
# amd64-tdep.c's pseudo registers over the general ones' low bytes: (register, byte, size).
_LEGACY = ("ax", "bx", "cx", "dx")
_INDEX = ("si", "di", "bp", "sp")


def _pseudo() -> dict[str, tuple[str, int, int]]:
    found: dict[str, tuple[str, int, int]] = {}
    for r in _LEGACY:
        found.update({f"e{r}": (f"r{r}", 0, 4), r: (f"r{r}", 0, 2), f"{r[0]}l": (f"r{r}", 0, 1),
                      f"{r[0]}h": (f"r{r}", 1, 1)})  # fmt: skip
    for r in _INDEX:
        found.update({f"e{r}": (f"r{r}", 0, 4), f"{r}l": (f"r{r}", 0, 1)})
        if r != "sp":  # $sp is gdb's user register, the stack pointer
            found[r] = (f"r{r}", 0, 2)
    for n in range(8, 16):
        found.update({f"r{n}d": (f"r{n}", 0, 4), f"r{n}w": (f"r{n}", 0, 2), f"r{n}l": (f"r{n}", 0, 1)})
    return found


_PSEUDO = _pseudo()


class FlagsType(BaseType):
    """gdb's TYPE_CODE_FLAGS (i386_eflags, i386_mxcsr): an unsigned integer whose set bits
    print by name, `[ PF ZF IF ]`; arithmetic sees the integer."""

    def __init__(self, name: str, size: int, flags: tuple[tuple[int, str], ...],
                 widths: tuple[int, ...] = ()) -> None:  # fmt: skip
        super().__init__(name, size, Encoding.UNSIGNED)
        self.flags = flags
        self.widths = widths  # each flag's bits where some are wider than one (a description's)

    def describe(self, number: int) -> str:
        """gdb's val_print_type_code_flags: the set bits' names, a wider field as
        NAME=value; unnamed bits (eflags' bit 1) and bits no flag covers are not shown."""
        shown = []
        for index, (bit, name) in enumerate(self.flags):
            width = self.widths[index] if index < len(self.widths) else 1
            if name and width > 1:
                shown.append(f" {name}={number >> bit & ((1 << width) - 1)}")
            elif name and number >> bit & 1:
                shown.append(f" {name}")
        return "[" + "".join(shown) + " ]"


_EFLAGS = ((0, "CF"), (1, ""), (2, "PF"), (4, "AF"), (6, "ZF"), (7, "SF"), (8, "TF"), (9, "IF"),
           (10, "DF"), (11, "OF"), (14, "NT"), (16, "RF"), (17, "VM"), (18, "AC"), (19, "VIF"),
           (20, "VIP"), (21, "ID"))  # fmt: skip
_MXCSR_FLAGS = ((0, "IE"), (1, "DE"), (2, "ZE"), (3, "OE"), (4, "UE"), (5, "PE"), (6, "DAZ"),
                (7, "IM"), (8, "DM"), (9, "ZM"), (10, "OM"), (11, "UM"), (12, "PM"), (15, "FZ"))  # fmt: skip


@dataclass(frozen=True, slots=True)
class RegisterSpec:
    """`$name`: `size` bytes at byte `offset` of register `regno`, of type `make()`."""

    name: str
    regno: int
    make: Callable[[], Type]
    offset: int = 0


def is_pseudo(name: str) -> bool:
    """`$eax`, `$al`...: amd64-tdep.c's views of a general register's low bytes."""
    return name in _PSEUDO


def pseudo_view(name: str) -> tuple[str, int, int] | None:
    """(general register, first byte, size) of a view such as `$eax`, else None."""
    return _PSEUDO.get(name)


def lookup(name: str, avx512: Callable[[], bool], pkru: Callable[[], bool] = lambda: False) -> RegisterSpec | None:
    """gdb's register `name` on x86-64 Linux, or None (then `$name` is a convenience
    variable). AVX-512's registers and PKU's pkru exist only where the machine has them
    (asked only for names that need it: it reads the XSAVE area), as in gdb."""
    if name == "pkru":
        return RegisterSpec(name, PKRU, lambda: _int("uint32_t", 4, signed=False)) if pkru() else None
    if name in ("pc", "rip"):
        return RegisterSpec(name, 16, code_pointer)
    if name in ("sp", "fp", "rsp", "rbp"):
        return RegisterSpec(name, 7 if name in ("sp", "rsp") else 6, lambda: PointerType(VoidType()))
    if name in _GENERAL:
        return RegisterSpec(name, _GENERAL[name], lambda: _int("long", 8))
    if name in ("eflags", "ps"):
        return RegisterSpec(name, 49, lambda: FlagsType("i386_eflags", 4, _EFLAGS))
    if name in _SEGMENTS:
        return RegisterSpec(name, _SEGMENTS[name], lambda: _int("int32_t", 4))
    if name in ("fs_base", "gs_base"):
        return RegisterSpec(name, 58 if name == "fs_base" else 59, lambda: _int("long", 8))
    if name == "orig_rax":
        return RegisterSpec(name, ORIG_RAX, lambda: _int("long", 8))
    if name in _X87_CONTROL:
        return RegisterSpec(name, _X87_CONTROL[name], lambda: _int("int", 4))
    if name == "mxcsr":
        return RegisterSpec(name, MXCSR, lambda: FlagsType("i386_mxcsr", 4, _MXCSR_FLAGS))
    if name in _PSEUDO:
        base, offset, size = _PSEUDO[name]
        return RegisterSpec(name, _GENERAL[base], lambda: _int(f"int{8 * size}_t", size), offset)
    if name.startswith("ymm") and name.endswith("h"):  # gdb's raw ymmNh: ymmN's upper half
        number = _numbered(name[:-1])[1]
        if 0 <= number < (32 if number < 16 or avx512() else 0):
            return RegisterSpec(name, YMM0 + number, lambda: _int("uint128_t", 16, signed=False), 16)
        return None
    if name.startswith("zmm") and name.endswith("h"):  # gdb's raw zmmNh: zmmN's upper half
        number = _numbered(name[:-1])[1]
        if 0 <= number < 32 and avx512():
            return RegisterSpec(name, ZMM0 + number, _v2ui128, 32)
        return None
    kind, number = _numbered(name)
    if kind in ("xmm", "ymm", "zmm", "k") and (kind in ("zmm", "k") or number >= 16) and not avx512():
        return None
    limit = 32
    if kind == "st" and number < 8:
        return RegisterSpec(name, ST0 + number, _i387_ext)
    if kind == "xmm" and number < limit:
        return RegisterSpec(name, XMM0 + number if number < 16 else XMM16 + number - 16, _vec128)
    if kind == "ymm" and number < limit:
        return RegisterSpec(name, YMM0 + number, _vec256)
    if kind == "zmm" and number < 32:
        return RegisterSpec(name, ZMM0 + number, _vec512)
    if kind == "k" and number < 8:
        return RegisterSpec(name, K0 + number, lambda: _int("uint64_t", 8, signed=False))
    return None


def name_of(regno: int) -> str | None:
    """gdb's name of a vector, x87 or private register number (for writing it by name)."""
    for base, kind, count in ((XMM0, "xmm", 16), (ST0, "st", 8), (XMM16, "xmm1", 0), (YMM0, "ymm", 32),
                              (ZMM0, "zmm", 32), (K0, "k", 8)):  # fmt: skip
        if kind == "xmm1" and XMM16 <= regno < XMM16 + 16:
            return f"xmm{regno - XMM16 + 16}"
        if base <= regno < base + count:
            return f"{kind}{regno - base}"
    named = {MXCSR: "mxcsr", ORIG_RAX: "orig_rax", PKRU: "pkru", **{v: k for k, v in _X87_CONTROL.items()}}
    return named.get(regno)


def is_float_register(regno: int) -> bool:
    """Read from the FXSAVE/XSAVE areas, not the general registers (GETREGS)."""
    return XMM0 <= regno < 41 or regno in (MXCSR, FCTRL, FSTAT) or XMM16 <= regno < XMM16 + 16 \
        or K0 <= regno < K0 + 8 or (PRIVATE < regno < PRIVATE + 0x300 and regno != ORIG_RAX)


def _numbered(name: str) -> tuple[str, int]:
    kind = name.rstrip("0123456789")
    digits = name[len(kind):]
    if not digits or (len(digits) > 1 and digits[0] == "0"):
        return "", -1
    return kind, int(digits)


# --- gdb's register types (i386-tdep.c's i386_*_type, features/i386/64bit-sse.xml) -------
def _int(name: str, size: int, signed: bool = True) -> BaseType:
    return BaseType(name, size, Encoding.SIGNED if signed else Encoding.UNSIGNED)


def code_pointer() -> Type:
    """gdb's type of `$pc`, on every architecture: `void (*)()`."""
    return PointerType(FunctionType(VoidType(), prototyped=False))


def _i387_ext() -> Type:
    return BaseType("builtin_type_i387_ext", 10, Encoding.FLOAT)


def _elements() -> list[tuple[str, BaseType]]:
    """The element types of gdb's vector unions, in their order."""
    return [("bfloat16", BaseType("bfloat16", 2, Encoding.FLOAT)), ("half", BaseType("half", 2, Encoding.FLOAT)),
            ("float", BaseType("float", 4, Encoding.FLOAT)), ("double", BaseType("double", 8, Encoding.FLOAT)),
            ("int8", _int("int8_t", 1)), ("int16", _int("int16_t", 2)), ("int32", _int("int32_t", 4)),
            ("int64", _int("int64_t", 8))]  # fmt: skip


def _vec128() -> Type:
    short = {"bfloat16": "bf16", "half": "h", "float": "f", "double": "d", "int8": "i8", "int16": "i16",
             "int32": "i32", "int64": "i64"}  # fmt: skip
    members = []
    for label, element in _elements():
        count = 16 // element.size
        vector = TypedefType(f"v{count}{short[label]}", ArrayType(element, count))
        members.append(Member(f"v{count}_{label}", vector, 0))
    members.append(Member("uint128", _int("uint128_t", 16, signed=False), 0))
    return _union("vec128", 16, members)


def _v2ui128() -> Type:
    """The type of gdb's zmmNh (features/i386/64bit-avx512.xml): two uint128."""
    return TypedefType("v2ui128", ArrayType(_int("uint128_t", 16, signed=False), 2, vector=True))


def _vec_wide(tag: str, size: int) -> Type:
    """gdb's builtin_type_vec256i/vec512i: its vectors are unnamed (`float
    __attribute__ ((vector_size(8)))`, gdb's name for a vector of 8 floats)."""
    members = []
    for label, element in [*_elements(), ("int128", _int("int128_t", 16))]:
        count = size // element.size
        vector = TypedefType(f"{element.name} __attribute__ ((vector_size({count})))", ArrayType(element, count))
        members.append(Member(f"v{count}_{label}", vector, 0))
    return _union(tag, size, members)


def _vec256() -> Type:
    return _vec_wide("builtin_type_vec256i", 32)


def _vec512() -> Type:
    return _vec_wide("builtin_type_vec512i", 64)


def _union(tag: str, size: int, members: list[Member]) -> StructType:
    union = StructType("union", tag, size)
    union.members = members
    return union
