"""DW_FORM encodings: the one table the raw DIE readers (units.py, globalnames.py,
coderanges.py) size and skip attribute values by, DWARF 2-5 and the GNU extensions.

A form's size code is >= 0 for a fixed size in bytes, else one of the negative codes
below. DWARF 5's indexed forms (strx*, addrx*, rnglistx, loclistx) are indexes into a
per-unit table (.debug_str_offsets, .debug_addr, the offset tables of .debug_rnglists and
.debug_loclists), read by the `*x` helpers here from the unit's DW_AT_*_base.
"""

from __future__ import annotations

from aliceserver.debuggers.symbols.dwarf.lines import uleb
from aliceserver.errors import TargetError

LEB, CSTRING, BLOCK_LEB, BLOCK1, BLOCK2, BLOCK4, INDIRECT = -1, -2, -3, -4, -5, -6, -7

ADDR, STRING, STRP, REF_ADDR, INDIRECT_FORM = 0x01, 0x08, 0x0E, 0x10, 0x16
SDATA, UDATA, SEC_OFFSET, FLAG_PRESENT, STRX, ADDRX = 0x0D, 0x0F, 0x17, 0x19, 0x1A, 0x1B
LINE_STRP, IMPLICIT_CONST, LOCLISTX, RNGLISTX = 0x1F, 0x21, 0x22, 0x23
STRX_FIXED = {0x25: 1, 0x26: 2, 0x27: 3, 0x28: 4}  # strx1..strx4
ADDRX_FIXED = {0x29: 1, 0x2A: 2, 0x2B: 3, 0x2C: 4}  # addrx1..addrx4
STRX_FORMS = frozenset({STRX, *STRX_FIXED})
ADDRX_FORMS = frozenset({ADDRX, *ADDRX_FIXED})

FIXED_FORMS = {0x05: 2, 0x06: 4, 0x07: 8, 0x0B: 1, 0x0C: 1, 0x11: 1, 0x12: 2, 0x13: 4,
               0x14: 8, 0x19: 0, 0x1C: 4, 0x1E: 16, 0x20: 8, 0x21: 0, 0x24: 8,
               **STRX_FIXED, **ADDRX_FIXED}  # fmt: skip
# strp, sec_offset, strp_sup, line_strp, GNU_ref_alt, GNU_strp_alt: one offset wide
OFFSET_FORMS = frozenset({STRP, SEC_OFFSET, 0x1D, LINE_STRP, 0x1F20, 0x1F21})
# sdata, udata, ref_udata, strx, addrx, loclistx, rnglistx, GNU_addr_index, GNU_str_index
LEB_FORMS = frozenset({SDATA, UDATA, 0x15, STRX, ADDRX, LOCLISTX, RNGLISTX, 0x1F01, 0x1F02})
VARIABLE_FORMS = {STRING: CSTRING, 0x09: BLOCK_LEB, 0x18: BLOCK_LEB, 0x0A: BLOCK1,
                  0x03: BLOCK2, 0x04: BLOCK4, INDIRECT_FORM: INDIRECT}  # fmt: skip
_BLOCK_WIDTHS = {BLOCK1: 1, BLOCK2: 2, BLOCK4: 4}


def size_code(form: int, osize: int, asize: int, version: int) -> int:
    """The size code of `form` in a unit with offsets of `osize` bytes and addresses of
    `asize`; TargetError for a form DWARF does not define."""
    fixed = FIXED_FORMS.get(form)
    if fixed is not None:
        return fixed
    if form == ADDR:
        return asize
    if form == REF_ADDR:
        return asize if version == 2 else osize
    if form in OFFSET_FORMS:
        return osize
    if form in LEB_FORMS:
        return LEB
    code = VARIABLE_FORMS.get(form)
    if code is None:
        raise TargetError(f"unknown DWARF form {form:#x}")
    return code


def skip(data: bytes, pos: int, code: int) -> int:
    """The position after a value of size code `code` (not INDIRECT) at `pos`."""
    if code >= 0:
        return pos + code
    if code == LEB:
        while data[pos] >= 0x80:
            pos += 1
        return pos + 1
    if code == CSTRING:
        return data.index(b"\0", pos) + 1
    if code == BLOCK_LEB:
        length, pos = uleb(data, pos)
        return pos + length
    width = _BLOCK_WIDTHS[code]
    return pos + width + int.from_bytes(data[pos : pos + width], "little")


def table_entry(section: bytes, at: int, size: int) -> int | None:
    """The `size`-byte little-endian entry at `at` of an index table, None past its end."""
    if at < 0 or at + size > len(section):
        return None
    return int.from_bytes(section[at : at + size], "little")


def addrx(addr: bytes, base: int, index: int, asize: int) -> int | None:
    """Address `index` of the unit whose .debug_addr table starts at `base` (DW_AT_addr_base)."""
    return table_entry(addr, base + index * asize, asize)


def strx_offset(str_offsets: bytes, base: int, index: int, osize: int) -> int | None:
    """The .debug_str offset of string `index` of the unit whose .debug_str_offsets table
    starts at `base` (DW_AT_str_offsets_base)."""
    return table_entry(str_offsets, base + index * osize, osize)


def listx_offset(lists: bytes, base: int, index: int, osize: int) -> int | None:
    """The section offset of list `index` of a rnglistx / loclistx form: the unit's offset
    table starts at `base` (DW_AT_rnglists_base / loclists_base) and its entries are
    relative to it."""
    entry = table_entry(lists, base + index * osize, osize)
    return None if entry is None else base + entry


def default_base(osize: int, lists: bool = False) -> int:
    """Where a unit's table starts when it names no DW_AT_*_base: after the header of the
    section's first contribution (8 bytes for .debug_addr and .debug_str_offsets in 32-bit
    DWARF, 16 in 64-bit; 12 and 20 for .debug_rnglists and .debug_loclists)."""
    return (12 if lists else 8) if osize == 4 else (20 if lists else 16)
