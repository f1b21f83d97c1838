"""resolve_program: a bare name is looked up in PATH (shutil, imported for that alone), a
relative path is taken from the working directory, and what is no program is refused in
gdb's words."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from aliceserver.debuggers.ptrace.launcher import resolve_program
from aliceserver.errors import TargetError


def _program(path: Path) -> Path:
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_a_bare_name_is_found_in_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bin").mkdir()
    found = _program(tmp_path / "bin" / "tool")
    monkeypatch.setenv("PATH", f"{tmp_path / 'empty'}{os.pathsep}{tmp_path / 'bin'}")
    assert resolve_program("tool", str(tmp_path)) == str(found)


def test_a_relative_path_is_taken_from_the_working_directory(tmp_path: Path) -> None:
    found = _program(tmp_path / "prog")
    assert resolve_program("./prog", str(tmp_path)) == str(found)


def test_what_is_no_program_is_refused_in_gdbs_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(TargetError, match="^nothere: No such file or directory.$"):
        resolve_program("nothere", str(tmp_path))
    with pytest.raises(TargetError, match="Is a directory"):
        resolve_program(str(tmp_path), None)
