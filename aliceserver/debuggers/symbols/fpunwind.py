"""Frame-pointer backtraces (x86-64 rbp chains), the fallback when there is no CFI."""

from __future__ import annotations

import logging
from collections.abc import Callable

from aliceserver.debuggers.model import Frame, SymbolLocation
from aliceserver.debuggers.symbols.linkmap import ReadMemory
from aliceserver.errors import TargetError

log = logging.getLogger(__name__)

Lookup = Callable[[int], SymbolLocation]

_TOP = 1 << 64
_PUSH_RBP = b"\x55"
_ENDBR64 = b"\xf3\x0f\x1e\xfa"
_MOV_RBP_RSP = (b"\x48\x89\xe5", b"\x48\x8b\xec")  # both encodings of `mov rbp, rsp`
_RET = (b"\xc3", b"\xf3\xc3")  # ret, repz ret


def fp_backtrace(
    read: ReadMemory,
    pc: int,
    sp: int,
    fp: int,
    lookup: Lookup,
    limit: int = 256,
) -> list[Frame]:
    """Frames from (pc, sp, fp) outwards: each caller's pc is at [fp+8], its fp at [fp]
    and its sp at fp+16.

    Frame 0 may be in a prologue (nothing pushed yet, or only rbp) or at its `ret`; then the
    return address is taken from the stack instead. The walk stops at a zero or descending
    frame pointer, an unreadable slot, a zero pc, or `limit` frames; it never loops.
    """
    if limit <= 0:
        return []
    frames = [Frame(level=0, pc=pc, sp=sp, fp=fp, symbol=lookup(pc))]
    caller = _unwind_prologue(read, pc, sp, fp, frames[0].symbol)
    if caller is None:
        caller = _unwind_fp(read, sp, fp)
    while caller is not None and len(frames) < limit:
        caller_pc, caller_sp, caller_fp = caller
        if caller_pc == 0:
            break
        symbol = _caller_symbol(lookup, caller_pc)
        frames.append(Frame(len(frames), caller_pc, caller_sp, caller_fp, symbol))
        caller = _unwind_fp(read, caller_sp, caller_fp)
    return frames


def _read_u64(read: ReadMemory, address: int) -> int | None:
    if address < 0 or address + 8 > _TOP:
        return None
    try:
        data = read(address, 8)
    except TargetError:
        return None
    return int.from_bytes(data, "little") if len(data) == 8 else None


def _unwind_fp(read: ReadMemory, sp: int, fp: int) -> tuple[int, int, int] | None:
    """The caller of a frame whose prologue has run: rbp points at the saved rbp."""
    # The frame pointer lies in the frame's own stack, at or above its sp; anything else
    # is the end of the chain (0), a frameless function's scratch value, or garbage.
    if fp == 0 or fp % 8 or fp < sp or fp + 16 > _TOP:
        return None
    return_address = _read_u64(read, fp + 8)
    saved_fp = _read_u64(read, fp)
    if return_address is None or saved_fp is None:
        return None
    return return_address, fp + 16, saved_fp


def _unwind_prologue(
    read: ReadMemory, pc: int, sp: int, fp: int, symbol: SymbolLocation
) -> tuple[int, int, int] | None:
    """The caller of frame 0 when its rbp is still (or again) the caller's, else None."""
    try:
        code = read(pc, 4)
    except TargetError:
        return None
    at_entry = (symbol.name is not None and symbol.offset == 0) or code.startswith(_ENDBR64)
    if at_entry or code.startswith(_PUSH_RBP) or code.startswith(_RET):
        # Nothing pushed yet (or everything popped): the return address is at [sp].
        return_address = _read_u64(read, sp)
        return None if return_address is None else (return_address, sp + 8, fp)
    if code.startswith(_MOV_RBP_RSP) and _pushed_rbp(read, pc):
        # `push rbp` ran, `mov rbp, rsp` did not: [sp] is the caller's rbp.
        return_address = _read_u64(read, sp + 8)
        saved_fp = _read_u64(read, sp)
        if return_address is None or saved_fp is None:
            return None
        return return_address, sp + 16, saved_fp
    return None


def _pushed_rbp(read: ReadMemory, pc: int) -> bool:
    try:
        return pc > 0 and read(pc - 1, 1) == _PUSH_RBP
    except TargetError:
        return False


def _caller_symbol(lookup: Lookup, pc: int) -> SymbolLocation:
    # A return address may lie past the end of the calling function (a call to a noreturn
    # function is often its last instruction), so name the call instruction's function.
    location = lookup(pc - 1)
    if location.name is None:
        return lookup(pc)
    return SymbolLocation(
        address=pc, name=location.name, offset=location.offset + 1, module=location.module
    )
