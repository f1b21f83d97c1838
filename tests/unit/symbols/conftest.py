"""Fixtures for the symbolics tests: C programs compiled at test time, and binutils as oracles."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from aliceserver.errors import TargetError

# A small program with global, static (local) and data symbols and a call chain.
PROGRAM_C = r"""
#include <stdio.h>
int global_counter = 42;
static int static_counter;
__attribute__((noinline)) int add(int a, int b) { return a + b; }
__attribute__((noinline)) static int helper(int x) { static_counter += x; return static_counter * 2; }
__attribute__((noinline)) int compute(int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s = add(s, helper(i));
    return s;
}
int main(int argc, char **argv) { (void)argv; printf("%d\n", compute(argc + 3)); return global_counter == 0; }
"""


@dataclass(frozen=True)
class NmSymbol:
    name: str
    address: int
    type: str  # nm's letter: T t D d B b R r W w V v i


@dataclass
class CTools:
    """gcc plus the binutils used as oracles; builds are cached per session."""

    directory: Path
    _built: dict[str, Path] = field(default_factory=dict)

    def build(self, source: str, *flags: str, name: str = "prog", extra: str = "") -> Path:
        """Compile `source` with `flags`; `extra` is written next to it as `NAME.extra`
        (a version script, say) and `@EXTRA@` in flags is replaced by its path."""
        key = hashlib.sha256(repr((source, flags, name, extra)).encode()).hexdigest()[:16]
        if key in self._built:
            return self._built[key]
        workdir = self.directory / key
        workdir.mkdir(parents=True, exist_ok=True)
        src = workdir / f"{name}.c"
        src.write_text(source)
        extra_path = workdir / f"{name}.extra"
        if extra:
            extra_path.write_text(extra)
        out = workdir / name
        args = [f.replace("@EXTRA@", str(extra_path)) for f in flags]
        result = subprocess.run(
            ["gcc", *args, str(src), "-o", str(out)], capture_output=True, text=True, check=False
        )
        if result.returncode != 0:
            if "-static" in flags and "cannot find" in result.stderr:
                pytest.skip("no static C library installed")
            raise AssertionError(f"gcc {' '.join(args)} failed:\n{result.stderr}")
        self._built[key] = out
        return out

    def strip(self, path: Path) -> Path:
        out = path.with_name(path.name + ".stripped")
        if not out.exists():
            subprocess.run(["strip", "--strip-all", str(path), "-o", str(out)], check=True)
        return out

    def nm(self, path: Path, *, dynamic: bool = False) -> list[NmSymbol]:
        args = ["nm", "-C", "--defined-only", *(["-D"] if dynamic else []), str(path)]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        symbols = []
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3:
                symbols.append(NmSymbol(parts[2], int(parts[0], 16), parts[1]))
        return symbols

    def readelf(self, *args: str) -> str:
        return subprocess.run(
            ["readelf", "-W", *args], capture_output=True, text=True, check=True
        ).stdout

    def tls_names(self, path: Path) -> set[str]:
        """Names of TLS symbols (their values are offsets, which ElfImage leaves out)."""
        lines = self.readelf("-s", str(path)).splitlines()
        return {line.split()[-1].split("@")[0] for line in lines if " TLS " in line}

    def objdump(self, path: Path, *args: str) -> str:
        return subprocess.run(
            ["objdump", *args, str(path)], capture_output=True, text=True, check=True
        ).stdout


@pytest.fixture(scope="session")
def ctools(tmp_path_factory: pytest.TempPathFactory) -> CTools:
    missing = [
        tool for tool in ("gcc", "nm", "readelf", "objdump", "strip") if not shutil.which(tool)
    ]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} to build and inspect test programs")
    return CTools(tmp_path_factory.mktemp("symbols-programs"))


@pytest.fixture(scope="session")
def program_source() -> str:
    return PROGRAM_C


@pytest.fixture(scope="session")
def program_pie(ctools: CTools) -> Path:
    return ctools.build(PROGRAM_C, "-O0", "-g", "-fno-omit-frame-pointer", "-pie", "-fPIE")


@pytest.fixture(scope="session")
def program_nopie(ctools: CTools) -> Path:
    return ctools.build(PROGRAM_C, "-O0", "-fno-omit-frame-pointer", "-no-pie")


@pytest.fixture(scope="session")
def program_static(ctools: CTools) -> Path:
    return ctools.build(PROGRAM_C, "-O0", "-static")


class SelfMemory:
    """A ReadMemory over this very process, through /proc/self/mem."""

    def __init__(self) -> None:
        self._fd = os.open("/proc/self/mem", os.O_RDONLY)

    def __call__(self, address: int, size: int) -> bytes:
        if address < 0 or address + size >= 1 << 63:
            raise TargetError(f"address {address:#x} is outside the address space")
        try:
            data = os.pread(self._fd, size, address)
        except OSError as exc:
            raise TargetError(f"cannot read {address:#x}: {exc}", errno=exc.errno) from exc
        if len(data) != size:
            raise TargetError(f"short read at {address:#x}")
        return data

    def close(self) -> None:
        os.close(self._fd)


@pytest.fixture
def self_memory() -> Iterator[SelfMemory]:
    memory = SelfMemory()
    try:
        yield memory
    finally:
        memory.close()


@pytest.fixture
def self_maps() -> dict[str, int]:
    """Path -> lowest start address of its mappings in this process."""
    lows: dict[str, int] = {}
    with open("/proc/self/maps") as maps:
        for line in maps:
            match = re.match(r"([0-9a-f]+)-[0-9a-f]+ \S+ \S+ \S+ \d+\s+(/.*)$", line.rstrip("\n"))
            if match:
                start, path = int(match.group(1), 16), match.group(2)
                lows[path] = min(lows.get(path, start), start)
    return lows
