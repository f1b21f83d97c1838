"""Breakpoints and watchpoints the stub keeps (`Z0`..`Z4` / `z0`..`z4`), and which of
them are in: a thread stopped on one of ours must be stepped past it before it resumes,
since gdbserver reports such a thread at once again (it leaves the step-over to its client,
as gdb does it: remove, step one instruction, insert again)."""

from __future__ import annotations

from dataclasses import dataclass

from aliceserver.debuggers.remote.client import RemoteClient
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported

# Z packet types: software and hardware breakpoints, write, read and access watchpoints.
Z_SOFTWARE, Z_HARDWARE, Z_WRITE, Z_READ, Z_ACCESS = range(5)
WATCH_TYPES = {"write": Z_WRITE, "read": Z_READ, "access": Z_ACCESS}
X86_BREAKPOINT_KIND = 1  # the kind of a Z0/Z1 on x86: the size of int3


@dataclass(frozen=True, slots=True)
class StubBreakpoint:
    type: int  # Z_SOFTWARE or Z_HARDWARE
    address: int
    kind: int


class StubBreakpoints:
    def __init__(self, client: RemoteClient) -> None:
        self.client = client
        self.inserted: dict[int, StubBreakpoint] = {}  # code breakpoints by address

    def insert(
        self, address: int, *, hardware: bool = False, kind: int = X86_BREAKPOINT_KIND
    ) -> None:
        point = StubBreakpoint(Z_HARDWARE if hardware else Z_SOFTWARE, address, kind)
        self.send(b"Z", point.type, address, kind)
        self.inserted[address] = point

    def remove(
        self, address: int, *, hardware: bool = False, kind: int = X86_BREAKPOINT_KIND
    ) -> None:
        self.send(b"z", Z_HARDWARE if hardware else Z_SOFTWARE, address, kind)
        self.inserted.pop(address, None)

    def lift(self, address: int) -> StubBreakpoint | None:
        """Take the breakpoint at `address` out for a step over it (None: none there)."""
        point = self.inserted.get(address)
        if point is not None:
            self.send(b"z", point.type, address, point.kind)
        return point

    def restore(self, point: StubBreakpoint) -> None:
        if self.inserted.get(point.address) == point:
            self.send(b"Z", point.type, point.address, point.kind)

    def watch(self, verb: bytes, address: int, length: int, access: str) -> None:
        if access not in WATCH_TYPES:
            raise RemoteError(f"A watchpoint is write, read or access, not {access!r}.")
        self.send(verb, WATCH_TYPES[access], address, length)

    def send(self, verb: bytes, kind: int, address: int, length: int) -> None:
        body = verb + b"%d,%x,%x" % (kind, address, length)
        reply = self.client.request(body)
        if not reply:
            raise RemoteUnsupported(f"The stub has no {verb.decode()}{kind} breakpoints.")
        if reply != b"OK":
            what = "watchpoint" if kind >= Z_WRITE else "breakpoint"
            doing = "insert" if verb == b"Z" else "remove"
            raise RemoteError(f"Could not {doing} the {what} at {address:#x}.")
