"""Command lists typed after `commands` and `define` (gdb.base/commands.exp): a line
ending in a backslash goes on in the next one, read without a prompt of its own (ours
prompted it), and a bare `if`, `while`, `define` or `document` inside is refused as it is
read, in gdb's words (ours waited for its body). Both read the lines from a pipe; their
output, prompts included, is compared."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import PATIENCE, needs_gdb, normalized
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(120)]


def _piped(command: list[str], program: Path, text: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([*command, "-q", "-nx", "-iex", "set width 0", str(program)], input=text, text=True,
                          capture_output=True, timeout=PATIENCE, cwd=program.parent, env=env)  # fmt: skip
    return normalized(done.stdout + "\n--stderr--\n" + done.stderr)


@pytest.mark.parametrize("opener", ["if", "while", "define", "document"])
def test_typed_lists_like_gdb(builder: Builder, opener: str) -> None:
    program = builder.build("jump_hits")
    text = f"break main\ncommands\nprint \\\n1 + \\\n2\nend\ninfo breakpoints\ndefine shown\n{opener}\nprint 5\n"
    gdb = gdb_path()
    assert gdb is not None
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p))
    alice = _piped([sys.executable, "-m", "aliceserver"], program, text, env)
    assert alice == _piped([gdb], program, text)
    assert "print 1 + 2" in alice and f"{opener} command requires an argument." in alice
