"""`run < in > out 2> err`, `set args` with redirections, `start < in`: gdb's startup shell
applies them; ours starts no shell and passed `<` and the file name to the program as
arguments. The program's files must hold what gdb's run leaves, and a missing input file or
a redirection without a file is an error before any program starts."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.batch import ex, needs_gdb, normalized, ours, theirs
from tests.support.build import Builder

pytestmark = [needs_gdb, pytest.mark.timeout(180)]


def _both(builder: Builder, tmp_path: Path, commands: list[str]) -> list[tuple[subprocess.CompletedProcess[str], dict[str, str]]]:
    """Run `commands` under gdb and ours, each in a directory of its own holding in.txt;
    each result with the files the run left there."""
    prog = builder.build("run_redirects", flags=("-g", "-O0"))
    results = []
    args = ["-batch", "-nx", *ex(*commands), str(prog)]
    for name in ("gdb", "ours"):
        where = tmp_path / name
        where.mkdir()
        (where / "in.txt").write_text("first\nsecond line\n")
        # ours splits the text as bash does, so gdb's shell is bash whatever $SHELL says
        done = theirs(args, where, shell="/bin/bash") if name == "gdb" else ours(args, where)
        files = {path.name: path.read_text() for path in sorted(where.iterdir()) if path.name != "in.txt"}
        results.append((done, files))
    return results


@pytest.mark.parametrize("commands", [
    ["run < in.txt"],
    ["run 'one arg' two\\ words < in.txt > out.txt 2> err.txt"],
    ["set args x <in.txt >>out.txt 2>&1", "run", "run", "show args"],
    ["run \"2\">out.txt &> both.txt"],
    ["start < in.txt > out.txt", "next", "next", "continue"],
    # start over a live process: main's breakpoint at its address there, no "killed" line
    ["break main", "run", "start < in.txt", "info breakpoints", "continue"],
    ["tty /dev/null", "run < in.txt > out.txt", "show inferior-tty"],  # no terminal: runs all the same
])  # fmt: skip
def test_redirections_like_gdb(builder: Builder, tmp_path: Path, commands: list[str]) -> None:
    (expected, their_files), (got, our_files) = _both(builder, tmp_path, commands)
    assert normalized(got.stdout) == normalized(expected.stdout)
    assert got.stderr == expected.stderr
    assert our_files == their_files
    if "<" in " ".join(commands):  # the program read the file
        assert "in: second line" in got.stdout + "".join(our_files.values())


def test_missing_input_starts_nothing(builder: Builder, tmp_path: Path) -> None:
    (expected, _), (got, _) = _both(builder, tmp_path, ["run < nosuch", "info inferiors"])
    assert normalized(got.stdout) == normalized(expected.stdout)  # <null>: no process
    assert "nosuch: No such file or directory" in expected.stderr
    assert got.stderr.strip() == "cannot open nosuch: No such file or directory."
    assert "to stderr" not in got.stderr


def test_redirection_without_a_file_is_a_syntax_error(builder: Builder, tmp_path: Path) -> None:
    (expected, _), (got, _) = _both(builder, tmp_path, ["run >"])
    assert got.returncode == expected.returncode == 1
    assert "syntax error near unexpected token `newline'" in expected.stderr
    assert got.stderr.strip() == "syntax error near unexpected token `newline'"


def test_missing_terminal_says_so_as_gdb(builder: Builder, tmp_path: Path) -> None:
    (expected, _), (got, _) = _both(builder, tmp_path, ["tty nosuch/tty", "run"])
    assert got.stderr.splitlines()[0] == expected.stderr.splitlines()[0] == "nosuch/tty: No such file or directory."
