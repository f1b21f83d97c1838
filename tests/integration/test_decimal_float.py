"""Decimal floating point (gdb.base/printcmds.exp's printf %H, %D and %DD), side by side
with gdb 13: _Decimal32/64/128 variables and `df`/`dd`/`dl` literals printed, negated,
combined and cast, and printf's decimal conversions of both."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def test_decimal_floats_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("decimal_float")
    commands = ex(
        f"break decimal_float.c:{marker_line('decimal_float.c', 'main')}", "run",
        "p d32", "p d64", "p d128", "p big32", "ptype d32", "whatis d128", "p d32 + 1", "p -d64", "p/x d32",
        "p d32 * d64", "p d32 == 1.2df", "p (int) d32", "p (_Decimal64) d32", "p d32 + 1.5",
        'printf "%Hf %Df %DDf\\n", d32, d64, d128', 'printf "%DDf\\n", d32',
        "p 1.2df", "p -1.2df", "whatis 1.2dl", "p 1.2E96df", "p 1.2E97df", "p 1e3df", "p/x -1.2E97df",
        "p 0.0df/0", "p 1.2df % 1", "p (_Decimal32)0.1", "p 1.2Df",
        'printf "%Hf\\n",-1.234567df', 'printf "%Df\\n",1.2E10dd', 'printf "%Df\\n",1.2E384dd',
        'printf "%DDf\\n",-1234567890123456789012345678901234.dl', 'printf "%DDf\\n",1.2E-10dl',
        'printf "%DDf\\n",1.2E6144dl', 'printf "%Hf %Hf\\n",1.2df,1.3df', 'printf "%10Hf|%Df\\n", 0.1, 3',
    )
    got = assert_like_gdb([*commands, str(program)], tmp_path)
    assert "1.200000000000000000000000000000000E+6144" in got.stdout and "$1 = 1.2" in got.stdout
