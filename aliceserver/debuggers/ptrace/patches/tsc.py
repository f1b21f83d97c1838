"""The time stamp counter that trace records carry, as the server's monotonic nanoseconds.

Trampolines time records with `rdtsc` (no system call, about 20 cycles). The server reads
the same counter through four bytes of machine code of its own (`rdtsc; shl; or; ret` in
an executable page called by ctypes) beside `time.monotonic_ns()`; two such pairs give the
line from ticks to nanoseconds, and each later pair lengthens its base, so the rate gets
more exact as the trace runs. It needs an invariant counter (`constant_tsc` and
`nonstop_tsc`: the same rate on every core, in every power state), which `usable()` checks.
"""

from __future__ import annotations

import ctypes
import threading
import time

from aliceserver.debuggers.arch.machinecode import callable_code

_CODE = bytes(
    (0x0F, 0x31, 0x48, 0xC1, 0xE2, 0x20, 0x48, 0x09, 0xD0, 0xC3)
)  # rdtsc; rax|=rdx<<32; ret


def usable() -> str | None:
    """None when the counter can time records, else why not."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    missing = {"tsc", "constant_tsc", "nonstop_tsc"} - flags
                    return (
                        f"the CPU's time stamp counter is not invariant (no {', '.join(sorted(missing))})"
                        if missing
                        else None
                    )
    except OSError as error:
        return f"cannot read /proc/cpuinfo: {error.strerror}"
    return "no CPU flags in /proc/cpuinfo"


class TscClock:
    def __init__(self) -> None:
        self.read, self._page = callable_code(_CODE, ctypes.c_uint64)
        self._lock = threading.Lock()
        self._base = self._pair()
        time.sleep(0.002)
        self._scale = 0.0
        self._later = self._base
        self.calibrate()

    def _pair(self) -> tuple[int, int]:
        ns = time.monotonic_ns()
        return self.read(), ns

    def calibrate(self) -> None:
        """Measure the rate again over the whole time since the clock was made."""
        with self._lock:
            ticks, ns = self._pair()
            if ticks > self._base[0]:
                self._later = (ticks, ns)
                self._scale = (ns - self._base[1]) / (ticks - self._base[0])

    def line(self) -> tuple[int, int, float]:
        return self._later[0], self._later[1], self._scale

    def to_ns(self, ticks: int) -> int:
        """Monotonic nanoseconds at counter value `ticks`."""
        return self._later[1] + int((ticks - self._later[0]) * self._scale)
