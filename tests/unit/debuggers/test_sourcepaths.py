"""SourcePaths: gdb's substitute-path rules and source directories (gdb/source.c)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.sourcepaths import LocatedSource, SourcePaths


def test_a_rule_matches_at_a_directory_boundary_and_the_first_one_wins() -> None:
    paths = SourcePaths()
    paths.add_rule("/build", "/x")
    paths.add_rule("/build/src/", "/y")  # the trailing separator is dropped, as gdb does
    assert [(r.source, r.target) for r in paths.rules] == [("/build", "/x"), ("/build/src", "/y")]
    assert paths.rewrite("/build/src/p.c") == "/x/src/p.c"
    assert paths.rewrite("/buildings/p.c") is None
    assert paths.rewrite("/build") == "/x"
    paths.add_rule("/build", "/z")  # a rule for the same FROM replaces the old one, last
    assert [r.source for r in paths.rules] == ["/build/src", "/build"]
    assert paths.rewrite("/build/src/p.c") == "/y/p.c"
    assert [r.target for r in paths.rules_matching("/build/src/p.c")] == ["/y", "/z"]
    assert paths.remove_rules("/nope") == 0 and paths.remove_rules(None) == 2 and not paths.rules


def test_locate_maps_then_searches_the_directories(tmp_path: Path) -> None:
    (tmp_path / "local").mkdir()
    (tmp_path / "local" / "p.c").write_text("int x;\n")
    paths = SourcePaths()
    gone = "/no/such/build/p.c"
    assert paths.locate(gone).fullname == gone and not paths.locate(gone).found
    paths.add_rule("/no/such/build", "/still/missing")
    missing = paths.locate(gone)
    assert (missing.fullname, missing.found, missing.rewritten) == ("/still/missing/p.c", False, True)
    assert paths.add_directories(["local", "/none"], str(tmp_path)) == ["/none"]
    assert paths.directories_text() == f"{tmp_path}/local:/none:$cdir:$cwd"
    found = paths.locate(gone)
    assert (found.fullname, found.found) == (f"{tmp_path}/local/p.c", True)
    assert paths.debug_paths_for(f"{tmp_path}/local/p.c", [gone, "/other/q.c"]) == [gone]
    paths.add_directories(["/none"])  # already there: moves to the front
    assert paths.directories_text() == f"/none:{tmp_path}/local:$cdir:$cwd"
    paths.reset_directories()
    assert paths.directories_text() == "$cdir:$cwd" and not paths.locate(gone).found


def test_a_relative_name_is_searched_under_each_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit without a compilation directory (gcc -fdebug-prefix-map=$PWD=) names
    `sub/p.c`: gdb finds it under $cwd and the source directories, whole before its base
    name, and leaves it relative when it is nowhere."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "p.c").write_text("int x;\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path)
    assert SourcePaths().locate("sub/p.c").fullname == str(tmp_path / "sub" / "p.c")
    assert SourcePaths().locate("./sub/p.c").fullname == str(tmp_path / "sub" / "p.c")
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert SourcePaths().locate("sub/p.c") == LocatedSource("sub/p.c", "sub/p.c", False, False)
    paths = SourcePaths()
    paths.add_directories([str(tmp_path)])
    assert paths.locate("sub/p.c").fullname == str(tmp_path / "sub" / "p.c")
