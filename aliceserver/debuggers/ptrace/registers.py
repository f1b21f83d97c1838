"""Register snapshots in gdb's names: general (GETREGS) and x87/SSE/AVX (GETREGSET)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from aliceserver.debuggers.model import Registers, VectorRegisters
from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.symbols.dwarf import x86_registers as x86
from aliceserver.errors import TargetError

_MASK64 = (1 << 64) - 1
_NAMES = frozenset(binding.REGISTER_NAMES)
_FXSAVE_SIZE = 512
# Room for the whole XSAVE area: with AVX-512 and AMX tiles it passes 11 KiB, and the kernel
# refuses (EFAULT) a SETREGSET of anything but the whole area.
_XSTATE_MAX = 64 * 1024
_YMM_HIGH_OFFSET = 576  # the AVX component of the standard-format XSAVE area
_XSTATE_BV_OFFSET = 512
_AVX_BIT = 1 << 2


class LiveRegisters(Mapping[str, int]):
    """A thread's registers read on demand: no snapshot of all 27 when one is needed."""

    def __init__(self, regs: binding.UserRegs) -> None:
        self._regs = regs

    def __getitem__(self, name: str) -> int:
        if name not in _NAMES:
            raise KeyError(name)
        return int(getattr(self._regs, name))

    def __iter__(self) -> Iterator[str]:
        return iter(binding.REGISTER_NAMES)

    def __len__(self) -> int:
        return len(binding.REGISTER_NAMES)


def general(regs: binding.UserRegs) -> Registers:
    return Registers({name: int(getattr(regs, name)) for name in binding.REGISTER_NAMES})


def set_general(regs: binding.UserRegs, name: str, value: int) -> None:
    if name not in binding.REGISTER_NAMES:
        raise TargetError(f"Invalid register `{name}'")
    setattr(regs, name, value & _MASK64)


_CONTROL_FIELDS = {"fctrl": (0, 2), "fstat": (2, 2), "ftag": (4, 2), "fop": (6, 2), "mxcsr": (24, 4)}


def set_vector(libc: binding.Libc, tid: int, name: str, data: bytes) -> None:
    """Write xmmN (16 bytes), ymmN (32), stN (10) or a control word (little-endian bytes)."""
    try:
        fx = bytearray(libc.get_regset(tid, binding.NT_PRFPREG, _FXSAVE_SIZE))
    except OSError as error:
        raise TargetError(f"cannot read the floating-point registers: {error.strerror}") from None
    kind = name.rstrip("0123456789")
    number = name[len(kind) :]
    index = int(number) if number else -1
    sizes = {"xmm": (16, 16), "ymm": (16, 32), "st": (8, 10)}
    if kind in sizes and 0 <= index < sizes[kind][0]:
        if len(data) != sizes[kind][1]:
            raise TargetError(f"{name} takes {sizes[kind][1]} bytes, not {len(data)}")
    elif name in _CONTROL_FIELDS:
        offset, size = _CONTROL_FIELDS[name]
        fx[offset : offset + size] = data[:size].ljust(size, b"\0")
    else:
        raise TargetError(f"Invalid register `{name}'")
    if kind == "ymm":
        _set_ymm_high(libc, tid, index, data[16:])
        data = data[:16]
        kind = "xmm"
    if kind == "xmm":
        fx[160 + 16 * index : 176 + 16 * index] = data
    elif kind == "st":
        fx[32 + 16 * index : 32 + 16 * index + 10] = data
    try:
        libc.set_regset(tid, binding.NT_PRFPREG, bytes(fx))
    except OSError as error:
        raise TargetError(f"cannot write {name}: {error.strerror}") from None


def _set_ymm_high(libc: binding.Libc, tid: int, index: int, high: bytes) -> None:
    try:
        xstate = bytearray(libc.get_regset(tid, binding.NT_X86_XSTATE, _XSTATE_MAX))
    except OSError:
        raise TargetError("this machine has no AVX state to write") from None
    if len(xstate) < _YMM_HIGH_OFFSET + 256:
        raise TargetError("this machine has no AVX state to write")
    bv = int.from_bytes(xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8], "little") | _AVX_BIT
    xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8] = bv.to_bytes(8, "little")
    xstate[_YMM_HIGH_OFFSET + 16 * index : _YMM_HIGH_OFFSET + 16 * (index + 1)] = high
    try:
        libc.set_regset(tid, binding.NT_X86_XSTATE, bytes(xstate))
    except OSError as error:
        raise TargetError(f"cannot write ymm{index}: {error.strerror}") from None


def dwarf_float_registers(libc: binding.Libc, tid: int) -> dict[int, bytes]:
    """xmm0-15 (16 bytes) and st0-7 (10 bytes) by DWARF number (17-32, 33-40), and the
    control registers, with the one GETREGSET the FXSAVE area takes: what a variable's
    location may name (no AVX state: extended_registers)."""
    try:
        fx = libc.get_regset(tid, binding.NT_PRFPREG, _FXSAVE_SIZE)
    except OSError as error:
        raise TargetError(f"cannot read the floating-point registers: {error.strerror}") from None
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


# AVX-512's XSAVE components, contiguous and last but PKRU: opmask k0-7 (64 bytes), the
# upper halves of zmm0-15 (512), zmm16-31 whole (1024). Where they start depends on the CPU
# (Intel 1088 after MPX's, AMD Zen 4 832), so they are found from the area's end as gdb's
# i387_guess_xsave_layout does.
_AVX512_SIZE = 64 + 512 + 1024
_AVX512_BITS = 0xE0
_PKRU_BIT, _PKRU_SIZE = 1 << 9, 8
_XCR0_OFFSET = 464  # where Linux leaves XCR0 in FXSAVE's software-reserved bytes


def extended_registers(libc: binding.Libc, tid: int) -> dict[int, bytes]:
    """ymm0-15 and, where the machine has AVX-512, k0-7, xmm16-31, ymm16-31 and zmm0-31,
    by the numbers of symbols/dwarf/x86_registers.py; empty without AVX."""
    try:
        xstate = libc.get_regset(tid, binding.NT_X86_XSTATE, _XSTATE_MAX)
    except OSError:
        return {}
    if len(xstate) < _YMM_HIGH_OFFSET + 256:
        return {}
    bv = int.from_bytes(xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8], "little")

    def part(bit: int, start: int, size: int) -> bytes:  # a component not in xstate_bv is zero
        return xstate[start : start + size] if bv >> bit & 1 else bytes(size)

    xmm = [xstate[160 + 16 * i : 176 + 16 * i] for i in range(16)]
    ymm = [xmm[i] + part(2, _YMM_HIGH_OFFSET + 16 * i, 16) for i in range(16)]
    found = {x86.YMM0 + i: ymm[i] for i in range(16)}
    xcr0 = int.from_bytes(xstate[_XCR0_OFFSET : _XCR0_OFFSET + 8], "little")
    end = len(xstate) - (_PKRU_SIZE if xcr0 & _PKRU_BIT else 0)
    if xcr0 & _AVX512_BITS != _AVX512_BITS or end - _AVX512_SIZE < _YMM_HIGH_OFFSET + 256:
        return found
    k_offset = end - _AVX512_SIZE
    zmm_high_offset, hi16_offset = k_offset + 64, k_offset + 64 + 512
    found.update({x86.K0 + i: part(5, k_offset + 8 * i, 8) for i in range(8)})
    found.update({x86.ZMM0 + i: ymm[i] + part(6, zmm_high_offset + 32 * i, 32) for i in range(16)})
    for i in range(16):
        whole = part(7, hi16_offset + 64 * i, 64)
        found.update({x86.ZMM0 + 16 + i: whole, x86.YMM0 + 16 + i: whole[:32], x86.XMM16 + i: whole[:16]})
    return found


def vector(libc: binding.Libc, tid: int) -> VectorRegisters:
    try:
        fx = libc.get_regset(tid, binding.NT_PRFPREG, _FXSAVE_SIZE)
    except OSError as error:
        raise TargetError(f"cannot read the floating-point registers: {error.strerror}") from None
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
    try:
        xstate = libc.get_regset(tid, binding.NT_X86_XSTATE, _XSTATE_MAX)
    except OSError:
        xstate = b""
    if len(xstate) >= _YMM_HIGH_OFFSET + 256:
        bv = int.from_bytes(xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8], "little")
        highs = [
            xstate[_YMM_HIGH_OFFSET + 16 * i : _YMM_HIGH_OFFSET + 16 * (i + 1)] if bv & _AVX_BIT else bytes(16)
            for i in range(16)
        ]
        ymm = tuple(xmm[i] + highs[i] for i in range(16))
    return VectorRegisters(control, st, xmm, ymm)
