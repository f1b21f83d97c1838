"""A thread as a core records it: NT_PRSTATUS, and the NT_FPREGSET, NT_X86_XSTATE and
NT_SIGINFO notes that follow it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aliceserver.debuggers.core.records import PrStatus, SignalInfo, registers_from_bytes
from aliceserver.debuggers.model import VectorRegisters

FXSAVE_SIZE = 512
_XSTATE_BV_OFFSET = 512
_YMM_HIGH_OFFSET = 576  # the AVX component of the standard-format XSAVE area
_AVX_BIT = 1 << 2


@dataclass(frozen=True, slots=True)
class CoreThread:
    """One thread of a core: its general registers by our engine's names (rip, rsp, eflags,
    fs_base, orig_rax...), and the raw floating-point and extended state when recorded."""

    tid: int
    signal: int  # the signal it was stopping with (pr_cursig), 0 for none
    status: PrStatus
    fpregs: bytes | None = None  # NT_FPREGSET: the 512-byte FXSAVE area
    xstate: bytes | None = None  # NT_X86_XSTATE: the XSAVE area (its first 512 bytes FXSAVE)
    siginfo: SignalInfo | None = None

    @property
    def registers(self) -> Mapping[str, int]:
        return registers_from_bytes(self.status.registers)

    def vector_registers(self) -> VectorRegisters | None:
        """st0-7, xmm0-15, ymm0-15 (empty without AVX state) and the x87/SSE control words,
        as the live engine reports them; None when the core has no floating-point note."""
        fx = self.fpregs if self.fpregs and len(self.fpregs) >= FXSAVE_SIZE else None
        if fx is None and self.xstate and len(self.xstate) >= FXSAVE_SIZE:
            fx = self.xstate[:FXSAVE_SIZE]
        if fx is None:
            return None
        control = {
            "fctrl": int.from_bytes(fx[0:2], "little"),
            "fstat": int.from_bytes(fx[2:4], "little"),
            "ftag": int.from_bytes(fx[4:6], "little"),
            "fop": int.from_bytes(fx[6:8], "little"),
            "fioff": int.from_bytes(fx[8:16], "little"),
            "fooff": int.from_bytes(fx[16:24], "little"),
            "mxcsr": int.from_bytes(fx[24:28], "little"),
        }
        st = tuple(fx[32 + 16 * i : 42 + 16 * i] for i in range(8))
        xmm = tuple(fx[160 + 16 * i : 176 + 16 * i] for i in range(16))
        ymm: tuple[bytes, ...] = ()
        xstate = self.xstate or b""
        if len(xstate) >= _YMM_HIGH_OFFSET + 256:
            bv = int.from_bytes(xstate[_XSTATE_BV_OFFSET : _XSTATE_BV_OFFSET + 8], "little")
            high = [xstate[_YMM_HIGH_OFFSET + 16 * i : _YMM_HIGH_OFFSET + 16 * (i + 1)] if bv & _AVX_BIT
                    else bytes(16) for i in range(16)]  # fmt: skip
            ymm = tuple(xmm[i] + high[i] for i in range(16))
        return VectorRegisters(control, st, xmm, ymm)
