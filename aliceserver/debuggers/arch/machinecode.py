"""A few bytes of this machine's own code called from Python (rdtsc, cpuid: instructions
no library call gives): written once to an anonymous executable page, called through a
ctypes prototype. The page must live as long as the function is called."""

from __future__ import annotations

import ctypes
import mmap
from typing import Any


def callable_code(code: bytes, restype: Any, *argtypes: Any) -> tuple[Any, mmap.mmap]:
    """`code` as a C function of that prototype, and the page that holds it (keep it)."""
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    return ctypes.CFUNCTYPE(restype, *argtypes)(address), page
