"""Breakpoints and watchpoints the stub keeps (`Z0`..`Z4` / `z0`..`z4`), and which of
them are in: a thread stopped on one of ours must be stepped past it before it resumes,
since gdbserver reports such a thread at once again (it leaves the step-over to its client,
as gdb does it: remove, step one instruction, insert again). Where the stub has no `Z0`
(it answers empty), we write the architecture's trap ourselves (int3, aarch64's `brk #0`),
keeping the bytes it covers; the process then rewinds the pc past our trap at its stop
where the trap leaves it past (int3), as the ptrace engine does."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aliceserver.debuggers.remote.client import RemoteClient
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported
from aliceserver.debuggers.remote.memory import RemoteMemory

log = logging.getLogger(__name__)

# Z packet types: software and hardware breakpoints, write, read and access watchpoints.
Z_SOFTWARE, Z_HARDWARE, Z_WRITE, Z_READ, Z_ACCESS = range(5)
OWN_TRAP = -1  # a trap we wrote into memory, not one the stub keeps
X86_TRAP = b"\xcc"  # int3: the pc stops one byte past it
WATCH_TYPES = {"write": Z_WRITE, "read": Z_READ, "access": Z_ACCESS}


@dataclass(frozen=True, slots=True)
class StubBreakpoint:
    type: int  # Z_SOFTWARE, Z_HARDWARE or OWN_TRAP
    address: int
    kind: int
    saved: bytes = b""  # OWN_TRAP: the bytes under the trap


class StubBreakpoints:
    def __init__(self, client: RemoteClient, memory: RemoteMemory) -> None:
        self.client = client
        self.memory = memory
        self.inserted: dict[int, StubBreakpoint] = {}  # code breakpoints by address
        self.stub_traps = True  # until the stub answers Z0 with an empty reply
        self.stub_traps_known = False  # the stub has taken a Z0: the next may ride with a resume
        self.trap = X86_TRAP  # the architecture's, once the target description names it
        self.pc_after_trap = len(X86_TRAP)  # how far past its trap a thread stops
        # A Z0/Z1's kind where none is named: the architecture's (gdb's breakpoint_kind_from_pc,
        # 1 for int3, 4 for aarch64's brk), once the target description names it
        self.kind = len(X86_TRAP)

    def insert(self, address: int, *, hardware: bool = False, kind: int | None = None,
               posted: bool = False) -> None:  # fmt: skip
        """`posted`: a Z0 of a step's own trap goes with the resume that follows (one round
        trip for both) once the stub is known to take Z0; refused, it is forgotten as lost."""
        kind = self.kind if kind is None else kind
        point = StubBreakpoint(Z_HARDWARE if hardware else Z_SOFTWARE, address, kind)
        if posted and not hardware and self.stub_traps_known:
            self.inserted[address] = point
            self._post(b"Z", point)
            return
        if hardware or self.stub_traps:
            try:
                self.send(b"Z", point.type, address, kind)
                self.inserted[address] = point
                self.stub_traps_known = self.stub_traps_known or not hardware
                return
            except RemoteUnsupported:
                if hardware:
                    raise
                self.stub_traps = False
        saved = self.memory.read(address, len(self.trap))
        self.memory.write(address, self.trap)
        self.inserted[address] = StubBreakpoint(OWN_TRAP, address, kind, saved)

    def remove(self, address: int, *, hardware: bool = False, kind: int | None = None) -> None:
        kind = self.kind if kind is None else kind
        point = self.inserted.get(address)
        if point is not None and point.type == OWN_TRAP:
            self.memory.write(address, point.saved)
        elif point is not None:
            self._post(b"z", point)  # answered with the next request: a step's trap goes for free
        else:
            self.send(b"z", Z_HARDWARE if hardware else Z_SOFTWARE, address, kind)
        self.inserted.pop(address, None)

    def own_trap_before(self, pc: int) -> int | None:
        """The address of our own trap a thread at `pc` has just executed, if any."""
        point = self.inserted.get(pc - self.pc_after_trap)
        return point.address if point is not None and point.type == OWN_TRAP else None

    def lift(self, address: int) -> StubBreakpoint | None:
        """Take the breakpoint at `address` out for a step over it (None: none there)."""
        point = self.inserted.get(address)
        if point is not None:
            self._out(point)
        return point

    def restore(self, point: StubBreakpoint) -> None:
        if self.inserted.get(point.address) == point:
            if point.type == OWN_TRAP:
                self.memory.write(point.address, self.trap)
            else:
                self._post(b"Z", point)

    def _out(self, point: StubBreakpoint) -> None:
        if point.type == OWN_TRAP:
            self.memory.write(point.address, point.saved)
        else:
            self._post(b"z", point)

    def _post(self, verb: bytes, point: StubBreakpoint) -> None:
        """A step-over's z/Z, its reply read with the step's or the resume's (one round
        trip for both). A breakpoint the stub would not put back is forgotten, as lost."""

        def answered(reply: bytes) -> None:
            if reply != b"OK":
                log.warning("the stub answered %r to %s at %#x", reply[:40], verb.decode(), point.address)
                if verb == b"Z" and self.inserted.get(point.address) == point:
                    del self.inserted[point.address]

        body = verb + b"%d,%x,%x" % (point.type, point.address, point.kind)
        self.client.connection.post(body, answered)

    def watch(self, verb: bytes, address: int, length: int, access: str) -> None:
        if access not in WATCH_TYPES:
            raise RemoteError(f"A watchpoint is write, read or access, not {access!r}.")
        self.send(verb, WATCH_TYPES[access], address, length)

    def send(self, verb: bytes, kind: int, address: int, length: int) -> None:
        """A Z/z packet; a type the stub answered empty once is not asked again on this
        connection (gdb's packet config Zn: auto -> disabled, remote_insert_watchpoint)."""
        if f"Z{kind}" in self.client.refused:
            raise RemoteUnsupported(f"The stub has no Z{kind} breakpoints.")
        body = verb + b"%d,%x,%x" % (kind, address, length)
        reply = self.client.request(body)
        if not reply:
            self.client.refused.add(f"Z{kind}")
            raise RemoteUnsupported(f"The stub has no {verb.decode()}{kind} breakpoints.")
        if reply != b"OK":
            what = "watchpoint" if kind >= Z_WRITE else "breakpoint"
            doing = "insert" if verb == b"Z" else "remove"
            raise RemoteError(f"Could not {doing} the {what} at {address:#x}.")
