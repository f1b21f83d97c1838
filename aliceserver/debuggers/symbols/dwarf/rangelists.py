"""Address range lists of DWARF units and DIEs: .debug_ranges (DWARF 2-4) and
.debug_rnglists (DWARF 5), as [low, high) pairs."""

from __future__ import annotations

import logging
from collections.abc import Callable

from aliceserver.debuggers.symbols.dwarf.locexpr import ByteReader, EvaluationError

log = logging.getLogger(__name__)


def v4_ranges(data: bytes, offset: int, base: int) -> list[tuple[int, int]]:
    """The [low, high) pairs of the .debug_ranges list at `offset` (DWARF 2-4)."""
    out: list[tuple[int, int]] = []
    reader = ByteReader(data, offset)
    while reader.pos + 16 <= len(data):
        begin, end = reader.unsigned(8), reader.unsigned(8)
        if begin == 0 and end == 0:
            break
        if begin == 0xFFFFFFFFFFFFFFFF:
            base = end
            continue
        out.append((base + begin, base + end))
    return out


def v5_ranges(
    data: bytes, offset: int, base: int, addrx: Callable[[int], int]
) -> list[tuple[int, int]]:
    """The [low, high) pairs of the .debug_rnglists list at `offset` (DW_RLE_*, DWARF 5)."""
    out: list[tuple[int, int]] = []
    r = ByteReader(data, offset)
    try:
        _read_rnglist(r, base, addrx, out)
    except EvaluationError as exc:  # a damaged list: keep what was read
        log.debug("range list at %#x: %s", offset, exc)
    return out


def _read_rnglist(
    r: ByteReader, base: int, addrx: Callable[[int], int], out: list[tuple[int, int]]
) -> None:
    data_end = len(r.data)
    while r.pos < data_end:
        kind = r.unsigned(1)
        if kind == 0:  # DW_RLE_end_of_list
            break
        if kind == 1:  # base_addressx
            base = addrx(r.uleb())
        elif kind == 2:  # startx_endx
            start = addrx(r.uleb())
            out.append((start, addrx(r.uleb())))
        elif kind == 3:  # startx_length
            start = addrx(r.uleb())
            out.append((start, start + r.uleb()))
        elif kind == 4:  # offset_pair
            start = r.uleb()
            out.append((base + start, base + r.uleb()))
        elif kind == 5:  # base_address
            base = r.unsigned(8)
        elif kind == 6:  # start_end
            start = r.unsigned(8)
            out.append((start, r.unsigned(8)))
        elif kind == 7:  # start_length
            start = r.unsigned(8)
            out.append((start, start + r.uleb()))
        else:
            log.debug("unknown DW_RLE %d at %#x", kind, r.pos)
            break
