"""Where each XSAVE component lies in the standard-format area Linux gives for
NT_X86_XSTATE (ptrace's GETREGSET, a core's note).

The standard format puts each component at the offset CPUID leaf 0xD gives it (sub-leaf =
the component's XCR0 bit, EBX), which differs between CPUs: Intel's AVX-512 follows MPX's
hole at 1088 and PKRU is at 2688, with AMX's tile state after it (the area 11008 bytes);
AMD Zen 4 packs AVX-512 after AVX (832) and ends with PKRU at 2432. A live thread's area
of this CPU's size (CPUID 0xD/0's EBX: the size for the XCR0 the kernel set, the size it
gives to ptrace whether or not the process asked for AMX) has this CPU's layout: CPUID is
asked through a few bytes of machine code (`cpuid` in an executable page called by ctypes,
as patches/tsc.py reads the TSC). Another area (a core from another CPU, or one gdb 13 cut
short) has its layout guessed from its size as gdb's i387_guess_xsave_layout does: Intel's
offsets where they fit, else AVX-512 and PKRU packed at the area's end.
"""

from __future__ import annotations

import ctypes
import functools
import os

from aliceserver.debuggers.arch.machinecode import callable_code

XCR0_OFFSET = 464  # where Linux leaves XCR0 in FXSAVE's software-reserved bytes
AVX, OPMASK, ZMM_HIGH, HI16_ZMM, PKRU = 2, 5, 6, 7, 9  # XCR0 bits of the components read here
SIZES = {AVX: 256, OPMASK: 64, ZMM_HIGH: 512, HI16_ZMM: 1024, PKRU: 8}
INTEL = {AVX: 576, OPMASK: 1088, ZMM_HIGH: 1152, HI16_ZMM: 1664, PKRU: 2688}
# push rbx; mov eax, edi; mov ecx, esi; mov r8, rdx; cpuid; mov [r8..r8+12], eax ebx ecx edx;
# pop rbx; ret: cpuid(leaf, subleaf, uint32_t out[4])
_CPUID = bytes.fromhex("5389f889f14989d00fa241890041895804418948084189500c5bc3")


def xcr0(xstate: bytes) -> int:
    return (
        int.from_bytes(xstate[XCR0_OFFSET : XCR0_OFFSET + 8], "little") if len(xstate) >= 512 else 0
    )


@functools.cache
def machine_layout() -> tuple[int, dict[int, int]]:
    """This CPU's XSAVE area size and the standard-format offset of each component read
    here that it supports; (0, {}) off x86-64 or where the code cannot run."""
    if os.uname().machine != "x86_64":  # (os.uname, not platform: a first stop imports no platform)
        return 0, {}
    try:
        call, _page = callable_code(_CPUID, None, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p)
    except (OSError, ValueError):
        return 0, {}
    out = (ctypes.c_uint32 * 4)()
    call(0, 0, ctypes.addressof(out))
    if out[0] < 0xD:
        return 0, {}
    call(0xD, 0, ctypes.addressof(out))
    area = int(out[1])
    found: dict[int, int] = {}
    for bit, size in SIZES.items():
        call(0xD, bit, ctypes.addressof(out))
        if out[0] == size and out[1]:  # EAX the size, EBX the offset (0: not supported)
            found[bit] = int(out[1])
    return area, found


def _fits(offsets: dict[int, int], wanted: list[int], length: int) -> bool:
    return all(bit in offsets and offsets[bit] + SIZES[bit] <= length for bit in wanted)


def offsets(xstate: bytes) -> dict[int, int]:
    """The offset of each component of SIZES that the area's XCR0 enables and the area
    holds."""
    enabled = xcr0(xstate)
    wanted = [bit for bit in SIZES if enabled >> bit & 1]
    size, machine = machine_layout()
    if len(xstate) == size and _fits(machine, wanted, size):
        return {bit: machine[bit] for bit in wanted}
    if _fits(INTEL, wanted, len(xstate)):
        return {bit: INTEL[bit] for bit in wanted}
    # AMD Zen 4's: AVX-512's three components contiguous and last but PKRU
    found = {bit: INTEL[bit] for bit in wanted if bit == AVX and _fits(INTEL, [AVX], len(xstate))}
    end = len(xstate) - (SIZES[PKRU] if PKRU in wanted else 0)
    if PKRU in wanted:
        found[PKRU] = end
    avx512 = [OPMASK, ZMM_HIGH, HI16_ZMM]
    start = end - sum(SIZES[bit] for bit in avx512)
    if all(bit in wanted for bit in avx512) and start >= INTEL[AVX] + SIZES[AVX]:
        for bit in avx512:
            found[bit] = start
            start += SIZES[bit]
    return found


def standard_size(enabled: int) -> int:
    """gdb 13's X86_XSTATE_SIZE: the Intel-format area up to the last component it knows
    (AVX, MPX, AVX-512, PKRU) that XCR0 `enabled` has; 576 (legacy + header) without."""
    size = 576
    for bit, end in ((AVX, 832), (3, 1024), (4, 1088), (OPMASK, 1152), (ZMM_HIGH, 1664), (HI16_ZMM, 2688),
                     (PKRU, 2696)):  # fmt: skip
        if enabled >> bit & 1:
            size = max(size, end)
    return size
