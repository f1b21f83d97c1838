"""Register snapshots in gdb's names: general (GETREGS) and x87/SSE/AVX (GETREGSET)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from aliceserver.debuggers.model import Registers, VectorRegisters
from aliceserver.debuggers.ptrace import binding
from aliceserver.errors import TargetError

_MASK64 = (1 << 64) - 1
_NAMES = frozenset(binding.REGISTER_NAMES)
_FXSAVE_SIZE = 512
_XSTATE_MAX = 4096
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
