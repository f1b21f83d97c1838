"""gdb 13's numbers of the x86-64 registers (-data-list-register-names, the MI register
numbers), from a target description's features and registers.

gdb numbers the registers of the features it knows at fixed places (amd64-tdep.h), with
an empty name where the description lacks one; the registers no known feature claims come
next, in the description's order (tdesc_use_registers); then the pseudo registers
(i386_gdbarch_init): byte, word and dword views of the general registers, ymm0-15 with AVX,
ymm16-31 and zmm0-31 with AVX-512, bnd0-3 with MPX.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

_FEATURE = "org.gnu.gdb.i386."
_GENERAL = ("rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "rsp", *(f"r{n}" for n in range(8, 16)),
            "rip", "eflags", "cs", "ss", "ds", "es", "fs", "gs")  # fmt: skip
_X87 = (*(f"st{n}" for n in range(8)), "fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff",
        "fop")  # fmt: skip


def _numbered(prefix: str, first: int, last: int, suffix: str = "") -> tuple[str, ...]:
    return tuple(f"{prefix}{n}{suffix}" for n in range(first, last))


# The fixed places, feature by feature in number order: (feature, its registers).
_FIXED: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", _GENERAL + _X87),
    ("sse", (*_numbered("xmm", 0, 16), "mxcsr")),
    ("avx", _numbered("ymm", 0, 16, "h")),
    ("mpx", ("bnd0raw", "bnd1raw", "bnd2raw", "bnd3raw", "bndcfgu", "bndstatus")),
    ("avx512", (*_numbered("xmm", 16, 32), *_numbered("ymm", 16, 32, "h"), *_numbered("k", 0, 8),
                *_numbered("zmm", 0, 32, "h"))),
    ("pkeys", ("pkru",)),
    ("segments", ("fs_base", "gs_base")),
    ("linux", ("orig_rax",)),
)  # fmt: skip

_BYTES = ("al", "bl", "cl", "dl", "sil", "dil", "bpl", "spl", *_numbered("r", 8, 16, "l"),
          "ah", "bh", "ch", "dh")  # fmt: skip
# sp is gdb's user register (the stack pointer), so its word view has no name
_WORDS = ("ax", "bx", "cx", "dx", "si", "di", "bp", "", *_numbered("r", 8, 16, "w"))
_DWORDS = ("eax", "ebx", "ecx", "edx", "esi", "edi", "ebp", "esp", *_numbered("r", 8, 16, "d"))


@dataclass(frozen=True, slots=True)
class Described:
    """One register of a description, as far as gdb's numbering cares."""

    name: str
    feature: str  # org.gnu.gdb.i386.core...


def register_names(described: Iterable[Described]) -> tuple[str, ...]:
    """gdb's register names by gdb number: "" where a number has no register."""
    registers = list(described)
    by_feature: dict[str, set[str]] = {}
    for register in registers:
        by_feature.setdefault(register.feature, set()).add(register.name)
    names: list[str] = []
    claimed: set[tuple[str, str]] = set()
    for short, fixed in _FIXED:
        offered = by_feature.get(_FEATURE + short, set())
        for name in fixed:
            present = name in offered
            names.append(name if present else "")
            if present:
                claimed.add((_FEATURE + short, name))
    names += [r.name for r in registers if (r.feature, r.name) not in claimed]
    features = by_feature.keys()
    avx = _FEATURE + "avx" in features
    avx512 = _FEATURE + "avx512" in features
    names += (*_BYTES, *_WORDS, *_DWORDS)
    if avx:
        names += _numbered("ymm", 0, 16)
    if avx512:
        names += (*_numbered("ymm", 16, 32), *_numbered("zmm", 0, 32))
    if _FEATURE + "mpx" in features:
        names += _numbered("bnd", 0, 4)
    return tuple(names)


FIXED_COUNT = sum(len(names) for _feature, names in _FIXED)  # gdb's amd64-linux num_regs
FIRST_PSEUDO = _BYTES[0]


def machine_names(avx: bool, avx512: bool, pkru: bool = False) -> tuple[str, ...]:
    """gdb's numbering on a native x86-64 Linux process, whose description gdb builds from
    the machine's XSAVE features (amd64_linux_read_description): SSE, and AVX, AVX-512,
    PKU's pkeys where it has them."""
    features = ["core", "sse", "segments", "linux"]
    features += ["avx"] * avx + ["avx512"] * avx512 + ["pkeys"] * pkru
    return register_names(
        Described(name, _FEATURE + short)
        for short, fixed in _FIXED
        if short in features
        for name in fixed
    )
