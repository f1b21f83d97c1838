"""gdb's `pipe` and `|` against gdb 13: a command's output fed to a shell command, a custom
delimiter, the exit status in $_shell_exitcode, a failing command, gdb's argument errors;
with the shell disabled (the server's default) the shell is refused in the words `shell`
uses, after those errors."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


@pytest.fixture
def program(tmp_path: Path) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        pytest.skip("gcc not installed")
    (tmp_path / "pipe.c").write_text("int main(void) { return 0; }\n")
    subprocess.run([gcc, "-g", "-O0", "-o", str(tmp_path / "pipe"), str(tmp_path / "pipe.c")], check=True)
    return tmp_path / "pipe"


COMMANDS = ["pipe p 1 | cat", "| p 1 | wc -c", "pipe -d XX p 1 XX cat", "pipe info line main | tr a-z A-Z",
            "pipe p nosuch | cat", "pipe p 1 | exit 3", "p $_shell_exitcode", "pipe p 1 | cat >&2", "pipe -d",
            "pipe", "pipe p 1", "|", "pipe p 1 |"]


def test_pipe_like_gdb(program: Path, tmp_path: Path) -> None:
    args = ["-batch", "-nx", *ex("break main", "run", *COMMANDS), str(program)]
    expected, got = theirs(args, tmp_path), ours(["--enable-shell", *args], tmp_path)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert normalized(got.stderr) == normalized(expected.stderr)
    assert "$5 = 3" in got.stdout  # the history numbers of the piped prints go on


def test_pipe_refused_without_the_shell(program: Path, tmp_path: Path) -> None:
    got = ours(["-batch", "-nx", *ex("pipe p 1 | cat", "pipe", "pipe p 1"), str(program)], tmp_path)
    assert got.stderr.splitlines() == [
        "Shell commands are disabled; start aliceserver with --enable-shell to allow them.",
        "Missing COMMAND", "Missing delimiter before SHELL_COMMAND"]
    assert got.stdout == ""
