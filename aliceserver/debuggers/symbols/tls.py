"""Where a shared library's thread-local block is, for one thread (x86-64, glibc).

DW_OP_form_tls_address gives an offset inside the module's TLS block. A library loaded at
start-up (or into the static TLS surplus) has its block at a fixed distance below the
thread pointer, glibc's `l_tls_offset`; any module's block is also in the thread's dynamic
thread vector: `dtv[l_tls_modid]`, the DTV being the second word of the TCB at fs_base.

`l_tls_offset` and `l_tls_modid` sit in glibc's private part of struct link_map, whose
layout changes between releases; the fields before them do not: the initialization image's
address, its size, the block's size and alignment, which are the module's PT_TLS segment.
So they are found by looking for that run of four values in the link_map, the way no
release-specific offset table is needed (libthread_db reads the same fields by name).
"""

from __future__ import annotations

import logging
import struct
from collections.abc import Callable
from dataclasses import dataclass

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.elf import ElfImage
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

PT_TLS = 7
_SCAN = 4096  # bytes of a link_map searched for the TLS fields (glibc 2.36: at 1104)
_CHUNK = 512
_UNALLOCATED = (1 << 64) - 1  # TLS_DTV_UNALLOCATED: the thread has not touched the block
_FORCED_DYNAMIC = (1 << 64) - 1  # l_tls_offset of a module without static TLS
MASK64 = (1 << 64) - 1

ReadMemory = Callable[[int, int], bytes]


@dataclass(frozen=True, slots=True)
class TlsSegment:
    vaddr: int
    filesz: int
    memsz: int
    align: int


@dataclass(frozen=True, slots=True)
class TlsSlot:
    """Where glibc put one module's TLS: its DTV index, and its static offset (how far
    below the thread pointer its block starts) when it has one."""

    modid: int
    static_offset: int | None


def tls_segment(image: ElfImage) -> TlsSegment | None:
    for seg in image.segments:
        if seg.type == PT_TLS and seg.memsz:
            return TlsSegment(seg.vaddr, seg.filesz, seg.memsz, seg.align)
    return None


def find_tls_slot(read: ReadMemory, node: int, segment: TlsSegment, bias: int) -> TlsSlot | None:
    """The TLS fields of the link_map at `node` for a module with `segment` loaded at
    `bias`; None when they are not there (not glibc, or not set up yet)."""
    words: list[int] = []
    for start in range(0, _SCAN, _CHUNK):
        try:
            data = read(node + start, _CHUNK)
        except (TargetError, EvaluationError, OSError):
            break
        if len(data) != _CHUNK:
            break
        words.extend(struct.unpack(f"<{_CHUNK // 8}Q", data))
        slot = _match(words, segment, bias)
        if slot is not None:
            return slot
    return None


def _match(words: list[int], segment: TlsSegment, bias: int) -> TlsSlot | None:
    images = {(segment.vaddr + bias) & MASK64, segment.vaddr}
    wanted = (segment.filesz, segment.memsz, segment.align)
    for k in range(5, len(words) - 6):  # past the public head (l_addr ... l_prev)
        if (words[k + 1], words[k + 2], words[k + 3]) == wanted and words[k] in images:
            offset, modid = words[k + 5], words[k + 6]
            if not 0 < modid < 1 << 20:
                return None  # TLS not assigned yet (before the loader set it up)
            static = None if offset in (0, _FORCED_DYNAMIC) else offset
            return TlsSlot(modid, static)
    return None


def block_address(read: ReadMemory, fs_base: int, slot: TlsSlot) -> int:
    """The thread's TLS block of the module (fs_base: the thread's pointer)."""
    if slot.static_offset is not None:  # x86-64 TLS variant II: blocks end at the TP
        return (fs_base - slot.static_offset) & MASK64
    try:
        (dtv,) = struct.unpack("<Q", read(fs_base + 8, 8))
        (size,) = struct.unpack("<Q", read(dtv - 16, 8))  # dtv[-1].counter: its length
        if slot.modid > size:
            raise EvaluationError("Cannot access thread-local variables in this thread yet")
        (value,) = struct.unpack("<Q", read(dtv + 16 * slot.modid, 8))
    except TargetError as exc:
        raise EvaluationError(f"Cannot find thread-local storage: {exc}") from None
    if value in (0, _UNALLOCATED):
        raise EvaluationError("Cannot access thread-local variables in this thread yet")
    return int(value)


class ModuleTls:
    """One library's TLS block for any thread, its link_map fields read once."""

    def __init__(self, segment: TlsSegment, bias: int, node: Callable[[], int | None]) -> None:
        self._segment = segment
        self._bias = bias
        self._node = node
        self._slots: dict[int, TlsSlot] = {}  # by link_map address

    def block(self, read: ReadMemory, fs_base: int | None) -> int:
        node = self._node()
        if fs_base is None or not fs_base or node is None:
            raise EvaluationError("Cannot access thread-local storage of this module")
        slot = self._slots.get(node)
        if slot is None:
            slot = find_tls_slot(read, node, self._segment, self._bias)
            if slot is None:
                raise EvaluationError("Cannot find the thread-local storage of this module")
            self._slots[node] = slot
        return block_address(read, fs_base, slot)
