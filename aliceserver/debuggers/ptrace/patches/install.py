"""Writing and taking out jump patches: the `jmp rel32` over a planned span (sites.py).

Only with every thread stopped and no thread's pc strictly inside the span (a thread at
the site itself takes the jump; one inside would run the middle of its bytes). The span's
bytes must be the planned ones (no int3 trap of ours among them: the patch would swallow
it). The rest of the span after the jump is int3, so a stray landing there stops loudly.

Reads of the program's memory show the original bytes (`mask`, as TrapTable.mask does for
int3 traps). A fork child gets a copy of the patched code but no trampolines it may run
(its counters would be the parent's and its traps nobody's): `strip_child` puts the
original bytes back in the child before it is let go. After a vfork the child shares the
parent's memory until it execs: take the patches out (`remove_all`) and put them back
when the vfork is done, as the engine does with its traps. Following the child instead,
`strip_child` on the parent's memory before it is let go; the child keeps the patches and
the areas (its data region is the same file). After an exec: `forget_all`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from aliceserver.debuggers.ptrace.patches.inject import all_stopped
from aliceserver.debuggers.ptrace.traps import INT3
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.ptrace.inferior import Inferior
    from aliceserver.debuggers.ptrace.patches.sites import SitePlan

JMP_REL32: Final = b"\xe9"
JUMP_SIZE: Final = 5  # jmp rel32


def jump_bytes(at: int, target: int, length: int = JUMP_SIZE) -> bytes:
    """`jmp target` written at `at`, padded with int3 to `length` bytes."""
    if length < JUMP_SIZE:
        raise TargetError(f"a jump at {at:#x} needs {JUMP_SIZE} bytes, not {length}")
    displacement = target - (at + JUMP_SIZE)
    if not -(1 << 31) <= displacement < 1 << 31:
        raise TargetError(f"{target:#x} is out of a jump's reach from {at:#x}")
    return (JMP_REL32 + displacement.to_bytes(4, "little", signed=True)).ljust(length, INT3)


@dataclass(frozen=True, slots=True)
class InstalledPatch:
    address: int
    original: bytes  # what the program had there
    written: bytes  # the jump and its padding
    target: int

    @property
    def end(self) -> int:
        return self.address + len(self.original)


class PatchTable:
    """The jump patches written in one process, by site address."""

    def __init__(self) -> None:
        self.by_address: dict[int, InstalledPatch] = {}

    def __len__(self) -> int:
        return len(self.by_address)

    def overlapping(self, address: int, size: int = 1) -> list[InstalledPatch]:
        """The patches with a byte in [address, address + size)."""
        end = address + size
        return [p for p in self.by_address.values() if p.address < end and address < p.end]

    def install(self, inferior: Inferior, site: SitePlan, target: int) -> InstalledPatch:
        """Write a jump to `target` over `site`'s span."""
        _require_quiet(inferior, site.address, site.end, "install a jump patch")
        clash = self.overlapping(site.address, len(site.original))
        if clash:
            raise TargetError(
                f"a jump patch at {clash[0].address:#x} already covers part of {site.address:#x}-{site.end:#x}"
            )
        for at in range(site.address, site.end):
            trap = inferior.traps.by_address.get(at)
            if trap is not None and trap.inserted:
                raise TargetError(
                    f"a breakpoint's trap at {at:#x} lies where a jump patch at {site.address:#x} would go"
                )
        written = jump_bytes(site.address, target, len(site.original))
        try:
            present = inferior.memory.read(site.address, len(site.original))
        except OSError as error:
            raise TargetError(
                f"Cannot access memory at address {site.address:#x}: {error.strerror}"
            ) from None
        if present != site.original:
            raise TargetError(
                f"the code at {site.address:#x} is not what the patch was planned for"
            )
        inferior.memory.write(site.address, written)
        patch = InstalledPatch(site.address, site.original, written, target)
        self.by_address[site.address] = patch
        return patch

    def remove(self, inferior: Inferior, address: int) -> None:
        """Put the original bytes back at the patch at `address`."""
        patch = self.by_address.get(address)
        if patch is None:
            raise TargetError(f"no jump patch at {address:#x}")
        _require_quiet(inferior, patch.address, patch.end, "remove a jump patch")
        inferior.memory.write(patch.address, patch.original)
        del self.by_address[address]

    def remove_all(self, inferior: Inferior) -> list[InstalledPatch]:
        """Take every patch out (a vfork child shares our memory); they are returned for
        `reinstall` once the child has exec'd or exited."""
        removed = list(self.by_address.values())
        for patch in removed:
            self.remove(inferior, patch.address)
        return removed

    def reinstall(self, inferior: Inferior, patches: list[InstalledPatch]) -> None:
        from aliceserver.debuggers.ptrace.patches.sites import SitePlan  # (patches made: imported)

        for patch in patches:
            self.install(inferior, SitePlan(patch.address, patch.original), patch.target)

    def mask(self, address: int, data: bytes) -> bytes:
        """`data` read at `address` with every patched byte shown as the original."""
        hits = self.overlapping(address, len(data)) if self.by_address else []
        if not hits:
            return data
        shown = bytearray(data)
        for patch in hits:
            start, end = max(address, patch.address), min(address + len(data), patch.end)
            shown[start - address : end - address] = patch.original[
                start - patch.address : end - patch.address
            ]
        return bytes(shown)

    def strip_child(self, write: Callable[[int, bytes], None]) -> None:
        """Put the original bytes back in a fork child's copy of memory (its
        ProcessMemory.write), before the child is let go."""
        for patch in self.by_address.values():
            write(patch.address, patch.original)

    def forget_all(self) -> None:
        """The program exec'd or exited: its patched code is gone."""
        self.by_address.clear()


def _require_quiet(inferior: Inferior, start: int, end: int, doing: str) -> None:
    """Every thread stopped, and none stopped strictly inside [start, end)."""
    if not all_stopped(inferior):
        raise TargetError(f"every thread must be stopped to {doing}")
    for t in inferior.threads.values():
        if t.gone or t.new:
            continue
        pc = int(inferior.regs(t).rip)
        if start < pc < end:
            raise TargetError(
                f"thread {t.tid} is stopped at {pc:#x}, inside {start:#x}-{end:#x}: cannot {doing} there"
            )
