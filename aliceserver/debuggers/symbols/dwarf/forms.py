"""DW_FORM encodings: the one table the raw DIE readers (units.py, globalnames.py,
coderanges.py) size and skip attribute values by, DWARF 2-5 and the GNU extensions.

A form's size code is >= 0 for a fixed size in bytes, else one of the negative codes
below. DWARF 5's indexed forms (strx*, addrx*, rnglistx, loclistx) are indexes into a
per-unit table (.debug_str_offsets, .debug_addr, the offset tables of .debug_rnglists and
.debug_loclists), read by the `*x` helpers here from the unit's DW_AT_*_base.
"""

from __future__ import annotations

from elftools.dwarf.enums import ENUM_DW_FORM

from aliceserver.debuggers.symbols.dwarf.rawread import uleb
from aliceserver.errors import TargetError

LEB, CSTRING, BLOCK_LEB, BLOCK1, BLOCK2, BLOCK4, INDIRECT = -1, -2, -3, -4, -5, -6, -7


def _forms(*names: str) -> list[int]:
    return [ENUM_DW_FORM["DW_FORM_" + name] for name in names]


ADDR, STRING, STRP, REF_ADDR, INDIRECT_FORM = _forms("addr", "string", "strp", "ref_addr", "indirect")
SDATA, UDATA, SEC_OFFSET, FLAG_PRESENT = _forms("sdata", "udata", "sec_offset", "flag_present")
STRX, ADDRX, LINE_STRP, IMPLICIT_CONST = _forms("strx", "addrx", "line_strp", "implicit_const")
LOCLISTX, RNGLISTX, REF_UDATA = _forms("loclistx", "rnglistx", "ref_udata")
DATA1, DATA2, DATA4, DATA8, DATA16 = _forms("data1", "data2", "data4", "data8", "data16")
BLOCK, BLOCK1_FORM, BLOCK2_FORM, BLOCK4_FORM = _forms("block", "block1", "block2", "block4")
REF1, REF2, REF4, REF8 = _forms("ref1", "ref2", "ref4", "ref8")
STRX_FIXED = dict(zip(_forms("strx1", "strx2", "strx3", "strx4"), (1, 2, 3, 4), strict=True))
ADDRX_FIXED = dict(zip(_forms("addrx1", "addrx2", "addrx3", "addrx4"), (1, 2, 3, 4), strict=True))
STRX_FORMS = frozenset({STRX, *STRX_FIXED})
ADDRX_FORMS = frozenset({ADDRX, *ADDRX_FIXED})
UNIT_REFS = {REF1: 1, REF2: 2, REF4: 4, REF8: 8}  # relative to their unit

FIXED_FORMS = {
    **dict(zip(_forms("data1", "data2", "data4", "data8", "data16"), (1, 2, 4, 8, 16), strict=True)),
    **dict(zip(_forms("flag", "flag_present", "implicit_const"), (1, 0, 0), strict=True)),
    **UNIT_REFS,
    **dict(zip(_forms("ref_sup4", "ref_sup8", "ref_sig8"), (4, 8, 8), strict=True)),
    **STRX_FIXED,
    **ADDRX_FIXED,
}
# strp, sec_offset, strp_sup, line_strp, GNU_ref_alt, GNU_strp_alt: one offset wide
OFFSET_FORMS = frozenset(_forms("strp", "sec_offset", "strp_sup", "line_strp", "GNU_ref_alt", "GNU_strp_alt"))
LEB_FORMS = frozenset(_forms("sdata", "udata", "ref_udata", "strx", "addrx", "loclistx", "rnglistx",
                             "GNU_addr_index", "GNU_str_index"))  # fmt: skip
VARIABLE_FORMS = {STRING: CSTRING, BLOCK: BLOCK_LEB, ENUM_DW_FORM["DW_FORM_exprloc"]: BLOCK_LEB,
                  BLOCK1_FORM: BLOCK1, BLOCK2_FORM: BLOCK2, BLOCK4_FORM: BLOCK4,
                  INDIRECT_FORM: INDIRECT}  # fmt: skip
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
