"""Past our breakpoint without a single-step, over a stub: the instruction under it
emulated (ptrace/emulate.py's plans, the ptrace backend's: endbr64, nops, push, mov
between registers, an -O0 argument spilled to the frame, loads, ret), its effect written
with `M` and `G` posted with the continue. Stepping over a Z0 costs two round trips (z0 +
vCont;s and its stop, then Z0 + vCont;c, as gdb does), the emulation one (the continue):
a breakpoint hit resumed as a front end resumes it goes at twice the rate. Only for
x86-64 and a stub's own Z0 breakpoint (our own trap's memory shows the int3), and while
no watchpoint is in (our writes and reads would pass its debug registers by); anything
else, or a signal due to the thread, is stepped as before.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from aliceserver.debuggers.arch.registry import X86_64_ARCH
from aliceserver.debuggers.ptrace.binding import UserRegs
from aliceserver.debuggers.ptrace.emulate import plan_for
from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.breakpoints import Z_SOFTWARE, StubBreakpoint
from aliceserver.debuggers.remote.errors import RemoteError

if TYPE_CHECKING:
    from aliceserver.debuggers.remote.target import RemoteTarget
    from aliceserver.debuggers.remote.threadids import ThreadRef

log = logging.getLogger(__name__)

LONGEST = 15  # bytes of an x86 instruction at most
_MASK = (1 << 64) - 1


@dataclass(slots=True)
class Effect:
    """What the emulated instruction changes: registers by name (new values) and memory
    writes, in the order the plan made them."""

    registers: dict[str, int] = field(default_factory=dict)
    memory: list[tuple[int, bytes]] = field(default_factory=list)


class _Registers:
    """A thread's registers as a plan reads and sets them (UserRegs' attribute names):
    read through `read` when first asked, writes kept in `written`."""

    __slots__ = ("_read", "written")
    _read: Callable[[str], int]
    written: dict[str, int]

    def __init__(self, read: Callable[[str], int]) -> None:
        object.__setattr__(self, "_read", read)
        object.__setattr__(self, "written", {})

    def __getattr__(self, name: str) -> int:
        written = self.written
        if name in written:
            return written[name]
        return self._read(name)

    def __setattr__(self, name: str, value: int) -> None:
        self.written[name] = value & _MASK


def emulated(
    code: bytes, register: Callable[[str], int], memory: Callable[[int, int], bytes]
) -> Effect | None:
    """The effect of the instruction `code` starts with, given the thread's registers and
    memory as they are (None: not one we emulate; step it)."""
    plan = plan_for(code)
    if plan is None:
        return None
    effect = Effect()
    registers = _Registers(register)
    plan.apply(cast(UserRegs, registers), memory, lambda address, data: effect.memory.append((address, data)))
    effect.registers = dict(registers.written)
    return effect


class StepOvers:
    """The step-overs of one process by emulation. The code under each Z0 is kept while it
    is in (as gdb keeps a breakpoint's shadow contents: no read at each hit); `M` and `G`
    are posted with the continue once the stub has taken them (the first time each is
    waited for: refused, the step is taken instead, nothing of it written but memory the
    instruction writes again)."""

    def __init__(self, target: RemoteTarget) -> None:
        self._target = target
        self._code: dict[int, bytes] = {}
        self._trusted = False  # the stub has taken our M and G
        self._refused = False  # ... or refused one: every step-over steps
        self.watches = 0  # watchpoints in: the CPU must run the instruction

    def forget(self, address: int | None = None) -> None:
        """The code at `address` (None: everywhere) may change: read it again."""
        if address is None:
            self._code.clear()
            self.watches = 0
        else:
            self._code.pop(address, None)

    def over(self, thread: ThreadRef, point: StubBreakpoint) -> bool:
        """`thread`, stopped on `point`, moved past it without a step; False: step it."""
        target = self._target
        if target.arch is not X86_64_ARCH or point.type != Z_SOFTWARE or self._refused or self.watches > 0:
            return False
        code = self._code.get(point.address)
        if code is None:
            code = self._code[point.address] = target.memory.read(point.address, LONGEST)
        effect = emulated(code, lambda name: int.from_bytes(target.registers.read(thread, name), "little"),
                          target.memory.read)  # fmt: skip
        if effect is None:
            return False
        whole = bytearray(target.registers.whole(thread))  # prefetched at a stop like the last
        for name, value in effect.registers.items():
            register = target.description[name]
            if register.offset + register.size > len(whole):
                return False
            whole[register.offset : register.offset + register.size] = value.to_bytes(register.size, "little")
        target.client.select_thread(thread)
        # memory first: a stub that refuses the registers leaves the thread where it was (the
        # step then writes the same bytes again); `G`, gdbserver having no `P` on x86-64
        bodies = [b"M%x,%x:" % (address, len(data)) + packets.hex_bytes(data) for address, data in effect.memory]
        return self._write([*bodies, b"G" + packets.hex_bytes(bytes(whole))])

    def _write(self, bodies: list[bytes]) -> bool:
        client = self._target.client
        if not self._trusted:
            try:
                for body in bodies:
                    client.ok(body)
            except RemoteError:
                self._refused = True
                return False
            self._trusted = True
            return True
        for body in bodies:
            client.connection.post(body, functools.partial(_answered, body))
        return True


def _answered(body: bytes, reply: bytes) -> None:
    if reply != b"OK":  # taken before on this link: not expected
        log.warning("the stub answered %r to %r of a step-over", reply[:40], body[:40])
