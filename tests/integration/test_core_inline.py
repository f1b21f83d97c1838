"""Inlined calls at a core's pc, compared with gdb 13 reading the same core: gdb hides the
inlined calls starting at the pc only at a stop it made itself (a `next` or `step` that
ended at an inline site's first instruction); on a core it hides none, frame 0 is the
innermost inlined call."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.support.build import Builder
from tests.support.cores import gdb_batch, require_gdb

pytestmark = pytest.mark.timeout(120)

# gdb: `#N  [0xADDR in ]FUNC (ARGS) at FILE:LINE`: each frame's function and line
_FRAME = re.compile(r"^#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(.*?\) at \S+:(\d+)$", re.M)


def _alice_bt(program: Path, core: Path) -> str:
    argv = [sys.executable, "-m", "aliceserver", "-nx", "-batch", "-ex", "set width 0", "-ex", "bt",
            str(program), str(core)]  # fmt: skip
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120,
                            stdin=subprocess.DEVNULL)  # fmt: skip
    return result.stdout


@pytest.mark.parametrize(
    ("location", "moves"),
    [("scale", ("next", "next")), ("clamp", ("finish", "next", "continue", "step"))],
    ids=["next-to-clamp", "step-to-mix"],
)
def test_a_core_at_an_inline_site_shows_the_inlined_call_as_gdb(
    builder: Builder, tmp_path: Path, location: str, moves: Sequence[str]
) -> None:
    require_gdb()
    program = builder.build("src_inline", flags=("-g", "-O2"))
    core = tmp_path / "core.inline"
    made = gdb_batch(program, None, [f"break {location}", "run", *moves, f"gcore {core}"])
    assert core.is_file(), made
    gdbs = _FRAME.findall(gdb_batch(program, core, ["bt"]))
    assert len(gdbs) >= 3, gdbs  # the inlined call, its caller, main
    assert _FRAME.findall(_alice_bt(program, core)) == gdbs
