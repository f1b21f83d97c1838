"""The XSAVE area in its standard (Intel) format and gdb 13's size, the one gdb 13 expects
in NT_X86_XSTATE.

Linux hands out a thread's XSAVE area in the CPU's own layout and size: on AMD Zen 4 the
AVX-512 components follow AVX directly (no MPX hole) and the area is 2440 bytes; with AMX
(Intel Sapphire Rapids) the tile state follows PKRU and the area is 11008 bytes, even for a
process that never asked for AMX. gdb 13 sizes the note from XCR0's components it knows
(X86_XSTATE_SIZE: 2696 with PKRU), drops a shorter one ("Section `.reg-xstate/N' in core
file too small", losing fs_base, ymm and zmm) and warns of a longer one ("Unexpected size of
section"). gdb's own gcore writes the standard format at that size with XCR0 masked to
those components; so does this, finding each component where the CPU keeps it
(arch/xsave_layout.py)."""

from __future__ import annotations

from aliceserver.debuggers.arch import xsave_layout as layout

_GDB_KNOWN = 0x2FF  # x87, SSE, AVX, MPX's two, AVX-512's three, PKRU: X86_XSTATE_ALL_MASK
_LEGACY_AND_HEADER = 576
_MPX = (832, 1088)  # MPX's components (Intel only, so always at Intel's offsets)
_XSTATE_BV = 512


def standard_xstate(xstate: bytes) -> bytes:
    """`xstate` with its components at their standard offsets, cut to gdb 13's size for
    its XCR0 and that XCR0 and XSTATE_BV masked to what gdb knows; as given without XCR0
    (a machine without XSAVE's software bytes)."""
    if len(xstate) < _LEGACY_AND_HEADER or not layout.xcr0(xstate):
        return xstate
    enabled = layout.xcr0(xstate) & _GDB_KNOWN
    places = layout.offsets(xstate)
    standard = bytearray(xstate[:_LEGACY_AND_HEADER].ljust(layout.standard_size(enabled), b"\0"))
    if enabled & 0x18 and len(xstate) >= _MPX[1]:
        standard[_MPX[0] : _MPX[1]] = xstate[_MPX[0] : _MPX[1]]
    for bit, offset in places.items():
        size = layout.SIZES[bit]
        standard[layout.INTEL[bit] : layout.INTEL[bit] + size] = xstate[offset : offset + size]
    standard[layout.XCR0_OFFSET : layout.XCR0_OFFSET + 8] = enabled.to_bytes(8, "little")
    bv = int.from_bytes(xstate[_XSTATE_BV : _XSTATE_BV + 8], "little") & _GDB_KNOWN
    standard[_XSTATE_BV : _XSTATE_BV + 8] = bv.to_bytes(8, "little")
    return bytes(standard)
