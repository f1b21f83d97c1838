"""Programs for the DWARF location tests, built at test time, and gdb as the oracle."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.elf import ElfImage

UTIL_H = """\
static inline int square(int x)
{
    return x * x;
}
int helper(int v);
"""

A_C = """\
#include "util.h"
#include <stdio.h>

int add(int a, int b) { return a + b; }

int compute(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s = add(s, square(i));

    return s;
}

int main(int argc, char **argv)
{
    (void)argv;
    printf("%d\\n", compute(argc + 3) + helper(argc));
    return 0;
}
"""

B_C = """\
#include "util.h"

int helper(int v)
{
    int r = square(v);
    return r + 1;
}
"""

C_SOURCES = {"src/util.h": UTIL_H, "src/a.c": A_C, "src/b.c": B_C}

CXX = """\
#include <cstdio>
namespace ns {
struct Shape {
    int w;
    int area() const { return w * w; }
    int scale(int k) { return w * k; }
    int scale(double k) { return (int)(w * k); }
};
template <typename T>
T biggest(T a, T b)
{
    return a > b ? a : b;
}
int free_func(int x) { return x + 1; }
}  // namespace ns

static inline int twice(int x) { return 2 * x; }

__attribute__((noinline)) int caller_one(int v) { return twice(v) + 1; }
__attribute__((noinline)) int caller_two(int v) { return twice(v) + 2; }

int main(int argc, char **)
{
    ns::Shape s{argc};
    int r = s.area() + s.scale(2) + s.scale(1.5);
    r += ns::biggest(argc, 3) + (int)ns::biggest(1.0, 2.0);
    r += ns::free_func(r) + caller_one(argc) + caller_two(argc);
    std::printf("%d\\n", r);
    return 0;
}
"""

RUST = """\
mod geometry {
    pub struct Point { pub x: i64, pub y: i64 }
    impl Point {
        pub fn norm2(&self) -> i64 {
            self.x * self.x + self.y * self.y
        }
    }
    pub fn make(x: i64) -> Point {
        Point { x, y: x + 1 }
    }
}

fn generic<T: std::fmt::Debug>(v: T) -> String {
    format!("{:?}", v)
}

fn main() {
    let p = geometry::make(3);
    let n = p.norm2();
    println!("{} {} {}", n, generic(1u8), generic("x"));
}
"""


@dataclass
class Builder:
    root: Path

    def build(self, sources: dict[str, str], flags: tuple[str, ...], *, tool: str = "gcc",
              name: str = "prog") -> Path:  # fmt: skip
        """Write `sources` (relative paths) in a fresh directory and compile the .c/.cpp/.rs
        files there (cwd = that directory, so comp_dir is it); cached per content."""
        key = hashlib.sha256(repr((sorted(sources.items()), flags, tool)).encode()).hexdigest()
        workdir = self.root / key[:16]
        out = workdir / name
        if out.exists():
            return out
        for rel, text in sources.items():
            path = workdir / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        units = [rel for rel in sources if rel.endswith((".c", ".cpp", ".rs"))]
        if tool == "rustc":
            cmd = ["rustc", *flags, units[0], "-o", name]
        else:
            cmd = [tool, *flags, *units, "-o", name]
        result = subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, check=False)
        if result.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} failed:\n{result.stderr}")
        return out


def own_copy(built: Path, directory: Path) -> Path:
    """`built` copied into `directory`: a file of the test's own, whose mtime it may change."""
    copy = directory / "prog"
    shutil.copy(built, copy)
    return copy


DAMAGES = ["flip", "truncate", "garbage", "version", "empty"]


def damage_file(path: Path, damage: str, magic: bytes) -> None:
    """Damage a cache file whose format starts with `magic` and then its version: a byte of
    its body flipped (only a checksum tells), its end cut, other bytes behind its magic,
    another version, or nothing at all."""
    data = bytearray(path.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0x40
    elif damage == "truncate":
        del data[-9:]
    elif damage == "garbage":
        data = bytearray(magic + os.urandom(200))
    elif damage == "version":
        data[len(magic)] += 1
    else:
        data = bytearray()
    path.write_bytes(bytes(data))


def load(path: Path, **kwargs: object) -> DebugInfo:
    info = DebugInfo.load(ElfImage.load(str(path)), **kwargs)  # type: ignore[arg-type]
    assert info is not None, f"{path} has no DWARF"
    return info


@dataclass(frozen=True)
class GdbLocation:
    address: int
    function: str | None
    file: str | None  # as gdb prints it (a basename for most)
    line: int | None


_LOCATION = re.compile(
    r"^\d+(?:\.\d+)?\s+(?:breakpoint\s+keep\s+)?y\s+(0x[0-9a-f]+)\s+"
    r"(?:in (.+) at (\S+):(\d+)|<(.+?)(?:\+\d+)?>)\s*$"
)


def gdb_available() -> bool:
    return shutil.which("gdb") is not None


def need_gdb() -> None:
    if not gdb_available():
        pytest.skip("needs gdb as the oracle")


def _gdb(program: Path, commands: list[str]) -> str:
    args = ["gdb", "-nx", "-batch", "-ex", "set pagination off", "-ex", "set width 0"]
    for command in commands:
        args += ["-ex", command]
    result = subprocess.run(
        [*args, str(program)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        check=False, timeout=120,
    )  # fmt: skip
    return result.stdout


def gdb_breaks(program: Path, specs: list[str]) -> dict[str, list[GdbLocation]]:
    """The locations of `break SPEC` for each spec (empty when gdb found none)."""
    commands = []
    for i, spec in enumerate(specs):
        commands += [f"echo @@{i}\\n", f"break {spec}", "info breakpoints", "delete"]
    output = _gdb(program, commands)
    result: dict[str, list[GdbLocation]] = {spec: [] for spec in specs}
    current: str | None = None
    for line in output.splitlines():
        if line.startswith("@@"):
            current = specs[int(line[2:])]
            continue
        match = _LOCATION.match(line)
        if match and current is not None:
            address = int(match.group(1), 16)
            if match.group(2):
                loc = GdbLocation(address, match.group(2), match.group(3), int(match.group(4)))
            else:
                loc = GdbLocation(address, match.group(5), None, None)
            result[current].append(loc)
    return result


_INFO_LINE = re.compile(r'Line (\d+) of "([^"]+)"\s+(?:starts at|is at) address (0x[0-9a-f]+)')


def gdb_info_lines(program: Path, addresses: list[int]) -> dict[int, tuple[int, str, int] | None]:
    """`info line *ADDR` -> (line, file, start address) or None."""
    commands = []
    for address in addresses:
        commands += [f"echo @@{address}\\n", f"info line *{address:#x}"]
    output = _gdb(program, commands)
    result: dict[int, tuple[int, str, int] | None] = {a: None for a in addresses}
    current: int | None = None
    for line in output.splitlines():
        if line.startswith("@@"):
            current = int(line[2:])
            continue
        match = _INFO_LINE.search(line)
        if match and current is not None:
            result[current] = (int(match.group(1)), match.group(2), int(match.group(3), 16))
    return result
