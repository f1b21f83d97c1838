"""Register snapshots in gdb's names: general (GETREGS) and x87/SSE/AVX (GETREGSET)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from aliceserver.debuggers import regsets
from aliceserver.debuggers.model import Registers, VectorRegisters
from aliceserver.debuggers.ptrace import binding
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
    elif kind in ("xmm", "ymm", "zmm", "k"):  # AVX-512's: not written over ptrace yet
        raise TargetError(f"writing ${name} is not supported")
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
