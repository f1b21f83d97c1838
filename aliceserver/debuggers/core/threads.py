"""A thread as a core records it: NT_PRSTATUS, and the NT_FPREGSET, NT_X86_XSTATE and
NT_SIGINFO notes that follow it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from aliceserver.debuggers.core.records import PrStatus, SignalInfo, registers_from_bytes
from aliceserver.debuggers.model import VectorRegisters
from aliceserver.debuggers.regsets import vector_registers

FXSAVE_SIZE = 512


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
        return vector_registers(fx, self.xstate or b"")
