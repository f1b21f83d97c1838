"""The XSAVE area in its standard (Intel) format, the one gdb 13 expects in NT_X86_XSTATE.

Linux hands out a thread's XSAVE area in the CPU's own layout: on AMD Zen 4 the AVX-512
components follow AVX directly (no MPX hole) and the area is 2432 bytes, where gdb 13 sizes
it from XCR0 alone (2688 with AVX-512) and drops a shorter one ("Section `.reg-xstate/N' in
core file too small"), losing fs_base, ymm and zmm. gdb's own gcore writes the standard
format; so does this, finding the AVX-512 components from the area's end as the engine does
(ptrace/registers.py, gdb's i387_guess_xsave_layout)."""

from __future__ import annotations

_XCR0_OFFSET = 464  # where Linux leaves XCR0 in FXSAVE's software-reserved bytes
_AVX512_BITS = 0xE0  # opmask, ZMM_Hi256, Hi16_ZMM
_PKRU_BIT = 1 << 9
_AVX512_SIZE = 64 + 512 + 1024
_AVX_END = 576 + 256
_STANDARD_AVX512 = 1088  # opmask's offset in the standard format (after MPX's 128 bytes)
_PKRU_SIZE = 8


def standard_xstate(xstate: bytes) -> bytes:
    """`xstate` with its AVX-512 and PKRU components moved to their standard offsets; as
    given when it is already standard, has no AVX-512, or its layout cannot be told."""
    if len(xstate) < _AVX_END:
        return xstate
    xcr0 = int.from_bytes(xstate[_XCR0_OFFSET : _XCR0_OFFSET + 8], "little")
    if xcr0 & _AVX512_BITS != _AVX512_BITS:
        return xstate
    pkru = _PKRU_SIZE if xcr0 & _PKRU_BIT else 0
    end = len(xstate) - pkru
    avx512_at = end - _AVX512_SIZE
    if avx512_at == _STANDARD_AVX512 or avx512_at < _AVX_END:
        return xstate
    standard = bytearray(xstate[:_AVX_END].ljust(_STANDARD_AVX512, b"\0"))
    standard += xstate[avx512_at:end]
    standard += xstate[end:]
    return bytes(standard)
