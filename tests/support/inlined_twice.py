"""A program whose static inline twice() (a header's) is inlined into from_a and from_b,
two units, at -O2: `break twice` then has two locations, found by the inline search."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

_HEADER = """
static inline int twice(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += i ^ (s >> 1);
    return s;
}
"""
_UNITS = {
    "a.c": '#include "inl.h"\nint from_a(int v) { return twice(v) + 1; }\n',
    "b.c": '#include "inl.h"\nint from_b(int v) { return twice(v * 3) - 2; }\n',
    "main.c": "#include <stdio.h>\nint from_a(int v);\nint from_b(int v);\n"
    'int main(int argc, char **argv) { printf("%d\\n", from_a(argc + 2) + from_b(argc)); return 0; }\n',
}


def build_inlined_twice(root: Path) -> Path:
    """`root`/prog, built from its sources written into `root` (skips without gcc)."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    (root / "inl.h").write_text(_HEADER)
    for name, text in _UNITS.items():
        (root / name).write_text(text)
    subprocess.run(["gcc", "-g", "-O2", *_UNITS, "-o", "prog"], cwd=root, check=True, timeout=120)
    return root / "prog"
