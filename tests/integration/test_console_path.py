"""gdb's `path DIR...` (a command we lacked: "Undefined command"): the directories put first
in the program's PATH in the order given, one already there moved, `.` the working
directory, relative names made absolute, `$VAR` kept as written, a missing directory or a
file warned about and kept, twice in one command once; `show paths` and the program's
environment see it."""

from __future__ import annotations

import pytest

from tests.support.batch import needs_gdb, output_like_gdb
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(120)]


def test_path_like_gdb(builder: Builder) -> None:
    prog = builder.build("mi_prog", flags=("-g", "-O0"))
    out = output_like_gdb(prog, [
        "path", "show paths", "path .", "path /nonexist:/usr/bin", "path /usr/bin", "show paths",
        f"path sub/dir/ /usr/bin/. {prog.name} ~ /", "show paths", "path $FOO:/bin", "show paths",
        "unset environment PATH", "path", "show paths", "show environment PATH", "path /usr:/usr", "show paths"])
    assert "Executable and object file path: /usr\n" in out
