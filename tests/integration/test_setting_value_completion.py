"""gdb completes a setting's value: `complete set language min` is `set language minimal`,
a boolean's off and on, an enum's values, NUMBER and unlimited for a number that may be
unlimited (gdb.base/setshow.exp "complete set language minimal"); ours completed the
names of settings only, and the console dropped the line's trailing blank. `set language`
reads its value as gdb's enum does (its errors for none, an unknown or an ambiguous one)
before refusing a language other than auto. Side by side with gdb 13."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, output_like_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(180)]

_COMMANDS = [
    "complete set language min", "complete set language ", "complete set lang c",
    "complete set print frame-arguments  s", "complete set history save ", "complete set confirm o",
    "complete set print elements ", "complete set print elements u", "complete set listsize N",
    "complete set history size ",
    "complete show language ", "complete set prompt ", "complete set print frame-info ",
    "set language", "set language foo", "set language auto", "show language",
]  # fmt: skip


def test_setting_values_complete_like_gdb(tmp_path: Path) -> None:
    (tmp_path / "prog.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=tmp_path, check=True)
    got = output_like_gdb(tmp_path / "prog", _COMMANDS)
    assert "set language minimal\n" in got and "set history save on\n" in got
