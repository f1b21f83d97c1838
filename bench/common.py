"""Helpers shared by the benchmarks: building test programs and printing results."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

PROGRAMS = Path(__file__).resolve().parent / "programs"
CFLAGS = ("-O0", "-g", "-fno-omit-frame-pointer")


def bench_cache() -> Path:
    """Where built programs are kept, one directory per checkout: a binary names its source
    by absolute path, and a client setting breakpoints by another checkout's path would
    never stop (dap_roundtrip and printer_children failed so in a second clone)."""
    checkout = hashlib.sha256(str(PROGRAMS).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"aliceserver-bench-{checkout}"


def build_program(name: str, directory: Path = PROGRAMS) -> Path:
    """Compile `<directory>/<name>.c` (bench/programs by default; a test's own program from
    tests/programs) with gcc, cached while source and flags match."""
    source = directory / f"{name}.c"
    key = source.read_bytes() + " ".join(CFLAGS).encode()
    cache = bench_cache()
    binary = cache / f"{name}-{hashlib.sha256(key).hexdigest()[:16]}"
    if binary.exists():
        return binary
    gcc = shutil.which("gcc")
    if gcc is None:
        raise RuntimeError("gcc not found: the benchmarks compile their programs")
    cache.mkdir(parents=True, exist_ok=True)
    partial = cache / f"{binary.name}.{os.getpid()}.tmp"
    subprocess.run([gcc, *CFLAGS, "-o", str(partial), str(source)], check=True)
    os.replace(partial, binary)
    return binary


@dataclass(frozen=True, slots=True)
class Rate:
    """One tool's best measurement: `hits` counted in `seconds` beyond its baseline run."""

    tool: str
    hits: int
    seconds: float
    baseline: float

    @property
    def per_second(self) -> float:
        return self.hits / self.seconds if self.seconds > 0 else float("inf")


def print_table(rates: list[Rate]) -> None:
    print(f"{'tool':<12}{'hits':>10}{'seconds':>10}{'baseline':>10}{'hits/s':>12}")
    for r in rates:
        print(
            f"{r.tool:<12}{r.hits:>10}{r.seconds:>10.3f}{r.baseline:>10.3f}{r.per_second:>12,.0f}"
        )
