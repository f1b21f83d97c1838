"""Register snapshots in gdb's names: general (GETREGS) and x87/SSE/AVX (GETREGSET)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from operator import attrgetter

from aliceserver.debuggers import regsets
from aliceserver.debuggers.model import Registers, VectorRegisters
from aliceserver.debuggers.ptrace import binding
from aliceserver.errors import TargetError

_MASK64 = (1 << 64) - 1
_NAMES = frozenset(binding.REGISTER_NAMES)
_ALL = attrgetter(*binding.REGISTER_NAMES)  # a UserRegs' fields, read in one call
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

    def snapshot(self) -> dict[str, int]:
        """All of them at once: dict(self) asks for each by name (9 us against 2.5 us, for
        each of 1,000 threads unwound at a stop)."""
        return dict(zip(binding.REGISTER_NAMES, _ALL(self._regs), strict=True))


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
    elif kind in ("xmm", "ymm", "zmm", "k") and 0 <= index < 32:  # AVX-512's: in the XSAVE area
        _set_avx512(libc, tid, name, kind, index, data)
        return
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
    """xmm0-15, st0-7 and the control registers by DWARF number, with the one GETREGSET
    the FXSAVE area takes: what a variable's location may name (no AVX state:
    extended_registers)."""
    try:
        fx = libc.get_regset(tid, binding.NT_PRFPREG, _FXSAVE_SIZE)
    except OSError as error:
        raise TargetError(f"cannot read the floating-point registers: {error.strerror}") from None
    return regsets.float_registers(fx)


def extended_registers(libc: binding.Libc, tid: int) -> dict[int, bytes]:
    """ymm0-15 and, where the machine has AVX-512, k0-7, xmm16-31, ymm16-31 and zmm0-31,
    by the numbers of symbols/dwarf/x86_registers.py; empty without AVX."""
    try:
        xstate = libc.get_regset(tid, binding.NT_X86_XSTATE, _XSTATE_MAX)
    except OSError:
        return {}
    return regsets.extended_registers(xstate)


def vector(libc: binding.Libc, tid: int) -> VectorRegisters:
    try:
        fx = libc.get_regset(tid, binding.NT_PRFPREG, _FXSAVE_SIZE)
    except OSError as error:
        raise TargetError(f"cannot read the floating-point registers: {error.strerror}") from None
    try:
        xstate = libc.get_regset(tid, binding.NT_X86_XSTATE, _XSTATE_MAX)
    except OSError:
        xstate = b""
    return regsets.vector_registers(fx, xstate)


# AVX-512's registers by kind: (XSTATE_BV bit, size of one) of the part in that component
_SSE_BIT, _AVX_COMPONENT, _OPMASK_BIT, _ZMM_HIGH_BIT, _HI16_BIT = 1, 2, 5, 6, 7
_WIDTHS = {"xmm": 16, "ymm": 32, "zmm": 64, "k": 8}


def _set_avx512(libc: binding.Libc, tid: int, name: str, kind: str, index: int, data: bytes) -> None:
    """Write k0-7, zmm0-31, or xmm16-31/ymm16-31 (zmm16-31's low bytes): the whole XSAVE
    area read, the register's bytes put at their places, the area written back (the
    kernel takes nothing less)."""
    if kind == "k" and index >= 8 or kind in ("xmm", "ymm") and index < 16:
        raise TargetError(f"Invalid register `{name}'")
    if len(data) != _WIDTHS[kind]:
        raise TargetError(f"{name} takes {_WIDTHS[kind]} bytes, not {len(data)}")
    try:
        xstate = bytearray(libc.get_regset(tid, binding.NT_X86_XSTATE, _XSTATE_MAX))
    except OSError:
        raise TargetError(f"writing ${name} is not supported: this machine has no AVX-512 state") from None
    offsets = regsets.avx512_offsets(bytes(xstate))
    if offsets is None:
        raise TargetError(f"writing ${name} is not supported: this machine has no AVX-512 state")
    k_offset, zmm_high_offset, hi16_offset = offsets
    if kind == "k":
        _put(xstate, _OPMASK_BIT, k_offset, 64, 8 * index, data)
    elif index >= 16:  # xmm16-31, ymm16-31 and zmm16-31 share one 64-byte place
        _put(xstate, _HI16_BIT, hi16_offset, 1024, 64 * (index - 16), data)
    else:  # zmm0-15: xmm in the legacy area, the AVX upper half, AVX-512's upper 32 bytes
        _put(xstate, _SSE_BIT, 160, 256, 16 * index, data[:16])
        _put(xstate, _AVX_COMPONENT, _YMM_HIGH_OFFSET, 256, 16 * index, data[16:32])
        _put(xstate, _ZMM_HIGH_BIT, zmm_high_offset, 512, 32 * index, data[32:])
    try:
        libc.set_regset(tid, binding.NT_X86_XSTATE, bytes(xstate))
    except OSError as error:
        raise TargetError(f"cannot write {name}: {error.strerror}") from None


def _put(xstate: bytearray, bit: int, start: int, size: int, offset: int, data: bytes) -> None:
    """`data` at `offset` into the component of XSTATE_BV `bit` at `start` (`size` bytes):
    a component in its initial state (its bit clear, its bytes not meaningful) is zeroed
    and marked in use first."""
    bv = int.from_bytes(xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8], "little")
    if not bv >> bit & 1:
        xstate[start : start + size] = bytes(size)
        xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8] = (bv | 1 << bit).to_bytes(8, "little")
    xstate[start + offset : start + offset + len(data)] = data
