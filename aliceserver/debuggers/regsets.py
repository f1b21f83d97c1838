"""x86-64 register sets from their raw bytes: the FXSAVE area (NT_PRFPREG, a core's
NT_FPREGSET) and the XSAVE area (NT_X86_XSTATE), in gdb's names and DWARF numbers. Pure
decoding, shared by every backend of the process interface (ptrace reads the bytes with
GETREGSET, a core file holds them in its notes)."""

from __future__ import annotations

from typing import Final

from aliceserver.debuggers.arch import xsave_layout as layout
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.symbols.dwarf import x86_registers as x86

# gdb's names of the general registers, in the kernel's struct user_regs_struct order (the
# layout of PTRACE_GETREGS and of a core's NT_PRSTATUS).
REGISTER_NAMES: Final = (
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8",
    "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags",
    "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs",
)  # fmt: skip

_MASK64 = (1 << 64) - 1
FXSAVE_SIZE = 512
_YMM_HIGH_OFFSET = 576  # the AVX component of the standard-format XSAVE area
_XSTATE_BV_OFFSET = 512
_AVX_BIT = 1 << 2


def float_registers(fx: bytes) -> dict[int, bytes]:
    """xmm0-15 (16 bytes) and st0-7 (10 bytes) by DWARF number (17-32, 33-40), and the
    control registers, from the FXSAVE area."""
    found = {17 + i: fx[160 + 16 * i : 176 + 16 * i] for i in range(16)}
    found.update({33 + i: fx[32 + 16 * i : 42 + 16 * i] for i in range(8)})
    found.update(x87_controls(fx))
    return found


def x87_controls(fx: bytes) -> dict[int, bytes]:
    """The x87 and SSE control registers in gdb's form (i387_supply_fxsave), by the numbers
    of symbols/dwarf/x86_registers.py: ftag the full tag word rebuilt from FXSAVE's abridged
    one, fop its 11 bits, fiseg/foseg the upper halves of the 64-bit pointers."""
    fstat = int.from_bytes(fx[2:4], "little")
    top = (fstat >> 11) & 7
    tags = 0
    for physical in range(8):
        tag = 3  # empty
        if fx[4] >> physical & 1:
            slot = (physical - top) % 8
            raw = int.from_bytes(fx[32 + 16 * slot : 42 + 16 * slot], "little")
            exponent, mantissa = raw >> 64 & 0x7FFF, raw & _MASK64
            if exponent == 0x7FFF:
                tag = 2  # special
            elif exponent == 0:
                tag = 1 if mantissa == 0 else 2  # zero, or denormal (special)
            else:
                tag = 0 if mantissa >> 63 else 2  # valid, or unnormal (special)
        tags |= tag << 2 * physical
    fop = (int.from_bytes(fx[6:8], "little") & 0x7FF).to_bytes(2, "little")
    return {x86.FCTRL: fx[0:2], x86.FSTAT: fx[2:4], x86.FTAG: tags.to_bytes(2, "little"), x86.FOP: fop,
            x86.FIOFF: fx[8:12], x86.FISEG: fx[12:16], x86.FOOFF: fx[16:20], x86.FOSEG: fx[20:24],
            x86.MXCSR: fx[24:28]}  # fmt: skip


def avx512_offsets(xstate: bytes) -> tuple[int, int, int] | None:
    """Where k0-7, zmm0-15's upper halves and zmm16-31 start in a standard-format XSAVE
    area (arch/xsave_layout.py), or None where the machine has no AVX-512."""
    found = layout.offsets(xstate)
    if not all(bit in found for bit in (layout.OPMASK, layout.ZMM_HIGH, layout.HI16_ZMM)):
        return None
    return found[layout.OPMASK], found[layout.ZMM_HIGH], found[layout.HI16_ZMM]


def extended_registers(xstate: bytes) -> dict[int, bytes]:
    """ymm0-15, pkru where the machine has it and, where it has AVX-512, k0-7, xmm16-31,
    ymm16-31 and zmm0-31, by the numbers of symbols/dwarf/x86_registers.py; empty without
    AVX."""
    if len(xstate) < _YMM_HIGH_OFFSET + 256:
        return {}
    bv = int.from_bytes(xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8], "little")

    def part(bit: int, start: int, size: int) -> bytes:  # a component not in xstate_bv is zero
        return xstate[start : start + size] if bv >> bit & 1 else bytes(size)

    xmm = [xstate[160 + 16 * i : 176 + 16 * i] for i in range(16)]
    ymm = [xmm[i] + part(2, _YMM_HIGH_OFFSET + 16 * i, 16) for i in range(16)]
    found = {x86.YMM0 + i: ymm[i] for i in range(16)}
    places = layout.offsets(xstate)
    if layout.PKRU in places:
        found[x86.PKRU] = part(layout.PKRU, places[layout.PKRU], 4)
    offsets = avx512_offsets(xstate)
    if offsets is None:
        return found
    k_offset, zmm_high_offset, hi16_offset = offsets
    found.update({x86.K0 + i: part(5, k_offset + 8 * i, 8) for i in range(8)})
    found.update({x86.ZMM0 + i: ymm[i] + part(6, zmm_high_offset + 32 * i, 32) for i in range(16)})
    for i in range(16):
        whole = part(7, hi16_offset + 64 * i, 64)
        found.update({x86.ZMM0 + 16 + i: whole, x86.YMM0 + 16 + i: whole[:32], x86.XMM16 + i: whole[:16]})
    return found


def vector_registers(fx: bytes, xstate: bytes) -> VectorRegisters:
    """st0-7, xmm0-15, ymm0-15 (empty without AVX state) and the x87/SSE control words."""
    control = {
        "fctrl": int.from_bytes(fx[0:2], "little"),
        "fstat": int.from_bytes(fx[2:4], "little"),
        "ftag": int.from_bytes(fx[4:6], "little"),
        "fop": int.from_bytes(fx[6:8], "little"),
        "fioff": int.from_bytes(fx[8:16], "little"),
        "fooff": int.from_bytes(fx[16:24], "little"),
        "mxcsr": int.from_bytes(fx[24:28], "little"),
    }
    st = tuple(fx[32 + 16 * i : 32 + 16 * i + 10] for i in range(8))
    xmm = tuple(fx[160 + 16 * i : 176 + 16 * i] for i in range(16))
    ymm: tuple[bytes, ...] = ()
    if len(xstate) >= _YMM_HIGH_OFFSET + 256:
        bv = int.from_bytes(xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8], "little")
        highs = [
            xstate[_YMM_HIGH_OFFSET + 16 * i : _YMM_HIGH_OFFSET + 16 * (i + 1)] if bv & _AVX_BIT else bytes(16)
            for i in range(16)
        ]
        ymm = tuple(xmm[i] + highs[i] for i in range(16))
    return VectorRegisters(control, st, xmm, ymm)
