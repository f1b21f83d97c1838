"""gdb's -write opens the program and core files for writing (`set write on`), which
aliceserver does not do: the option was accepted and ignored, so a patch meant for the
file went nowhere without a word. It is now refused as `set write on` is, by name; gdb 13
itself shows the setting on."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, ours, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(120)]


def test_write_option_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "prog.c").write_text("int g = 5;\nint main(void) { return g; }\n")
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=tmp_path, check=True)
    args = ["-batch", "-nx", "-write", "-ex", "print g", str(tmp_path / "prog")]
    assert "Writing into executable and core files is on." in theirs([*args[:-1], "-ex", "show write", args[-1]],
                                                                     tmp_path).stdout  # fmt: skip
    got = ours(args, tmp_path)
    assert got.stderr.splitlines() == ['The setting "write" is not supported by aliceserver except as off.']
    assert got.stdout == "$1 = 5\n"
