"""The environment a program run under us sees is the user's, as under gdb 13: Python's own
locale coercion (PEP 538: LC_CTYPE=C.UTF-8 when it starts in the C locale) stays ours."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder
from tests.support.gdb import gdb_path
from tests.support.mi_client import ROOT

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# gdb puts the terminal's size in the environment (readline); not ours to copy
_GDBS_OWN = ("LINES=", "COLUMNS=")


def _environment(debugger: list[str], program: Path, env: dict[str, str]) -> list[str]:
    args = ["-nx", "-batch", "-ex", "set startup-with-shell off", "-ex", "run", str(program)]
    result = subprocess.run([*debugger, *args], env=env, capture_output=True, text=True, timeout=60,
                            stdin=subprocess.DEVNULL, cwd=program.parent)  # fmt: skip
    return sorted(line for line in result.stdout.splitlines()
                  if _ASSIGNMENT.match(line) and not line.startswith(_GDBS_OWN))  # fmt: skip


@pytest.mark.parametrize("locale", [{}, {"LC_CTYPE": "C"}, {"LC_CTYPE": "C.UTF-8"}, {"LANG": "C"}],
                         ids=["none", "lc-ctype-c", "lc-ctype-utf8", "lang-c"])  # fmt: skip
def test_program_sees_the_environment_gdbs_sees(builder: Builder, locale: dict[str, str]) -> None:
    program = builder.build("print_environ")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT), **locale}
    gdb = gdb_path()
    assert gdb is not None
    theirs = _environment([gdb], program, env)
    ours = _environment([sys.executable, "-m", "aliceserver"], program, env)
    assert ours == theirs
    assert any(line.startswith("PATH=") for line in ours)
