"""-data-write-register-values on the x87 registers over gdbserver, as gdb 13 does it: each
value is taken as an integer and its bytes, sign-extended, are written into the 80-bit
register without a float conversion (1 reads back as a denormal, -2 as a NaN), where the
console's `set $stN =` converts; read back in each MI format and with `p`, and after a
stepi (the stub holds them). The live engine writes them the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_remote_session import _both
from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder, marker_line
from tests.support.gdb_xstate import MI_WRITE_ERROR, gdb_could_not_write

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _mi(command: str) -> str:
    return f'interpreter-exec mi "{command}"'


def test_mi_x87_register_writes_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("registers_expr")
    line = marker_line("registers_expr.c", "callee")
    gdb, alice = _both(program, [
        "target remote {target}", f"break registers_expr.c:{line}", "continue",
        _mi("-data-write-register-values x 24 1.5"), _mi("-data-list-register-values r 24"),
        _mi("-data-list-register-values x 24"), _mi("-data-list-register-values N 24"),
        _mi("-data-write-register-values N 25 -2.25 26 0x40"), _mi("-data-list-register-values N 25 26"),
        "p $st0", "p $st1", "set $st2 = 3.75", "p $st2", "p $st1 == $st1", "stepi", "p $st0", "p $st1", "kill",
    ], tmp_path)  # fmt: skip
    assert alice == gdb
    assert '{number="24",value="3.64519953188247460253e-4951"}' in alice
    assert "$2 = -nan(0xfffffffffffffffe)" in alice and "$3 = 3.75" in alice


def test_mi_x87_register_writes_in_a_live_process_like_gdb(builder: Builder, tmp_path: Path) -> None:
    program = builder.build("registers_expr")
    line = marker_line("registers_expr.c", "callee")
    commands = [f"break registers_expr.c:{line}", "run", _mi("-data-write-register-values x 24 1.5"),
                _mi("-data-write-register-values N 25 -2.25"), _mi("-data-list-register-values N 24 25"),
                "stepi", "p $st0", "p $st1", "kill"]  # fmt: skip
    said = [normalized(run(["-batch", "-nx", *ex(*commands), str(program)], tmp_path).stdout) for run in (theirs, ours)]
    if gdb_could_not_write(said[0]):  # gdb 13 refuses both writes: its lines up to them, then the values
        gdbs = said[0].splitlines()
        first = gdbs.index(MI_WRITE_ERROR)
        mine = said[1].splitlines()
        assert mine[:first] == gdbs[:first]
        assert mine[first : first + 3] == ["^done", "^done", '^done,register-values=[{number="24",value='
                                           '"3.64519953188247460253e-4951"},{number="25",value="-nan(0xfffffffffffffffe)"}]']
        assert mine[first + 3] == gdbs[first + 3]  # stepi's line
    else:
        assert said[1] == said[0]
    assert "$1 = 3.64519953188247460253e-4951" in said[1] and "$2 = -nan(0xfffffffffffffffe)" in said[1]
