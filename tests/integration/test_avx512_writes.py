"""Writes to AVX-512's registers on a live process (k0-7, zmm0-31, xmm16-31) reach the
program: it stores them after the breakpoint, and what it stored is what was written (gdb
13 loses these writes natively; over a stub they go through the stub, test_remote_registers)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import ex, ours
from tests.support.build import Builder, marker_line

SOURCE = "avx512_writes.c"
_FLAGS = ("-g", "-O0", "-mavx512f", "-mavx512bw", "-mavx512vl")

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(
        not {"avx512f", "avx512bw", "avx512vl"} <= set(Path("/proc/cpuinfo").read_text().split()),
        reason="the CPU has no AVX-512 (F, BW and VL)",
    ),
]


def test_avx512_register_writes_reach_the_program(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("avx512_writes", _FLAGS)
    writes = ["print $k1 = 0x5a5a", "print $zmm1.v16_int32[3] = 7", "print $zmm1.v16_int32[12] = -3",
              "print $xmm17.v4_int32[1] = 99", "print $zmm20.v8_int64[7] = -5", "print $ymm20.v4_int64[1] = 6"]  # fmt: skip
    done = ours(["-batch", "-nx", *ex(
        f"break {SOURCE}:{marker_line(SOURCE, 'write')}", f"break {SOURCE}:{marker_line(SOURCE, 'stored')}", "run",
        *writes, "continue", "print/x k1_out", "print zmm1_out", "print xmm17_out", "print zmm20_out", "kill",
    ), str(program)], tmp_path)  # fmt: skip
    assert "not supported" not in done.stdout + done.stderr
    stored = [line.split(" = ", 1)[1] for line in done.stdout.splitlines() if line.startswith("$")][
        -4:
    ]
    assert stored == ["0x5a5a", "{0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0, -3, 0, 0, 0}", "{0, 99, 0, 0}",
                      "{0, 6, 0, 0, 0, 0, 0, -5}"]  # fmt: skip
