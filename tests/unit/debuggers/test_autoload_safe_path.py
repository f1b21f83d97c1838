"""gdb's auto-load safe path rules (auto-load.c's filename_is_in_pattern, file_is_auto_load_safe),
each case as gdb 13 judged `/tmp/x/p-gdb.py` under that `set auto-load safe-path` (the
differential test against gdb itself: test_auto_load.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from aliceserver.debuggers.printers.autoload import AutoLoad, home_init_file


@pytest.mark.parametrize(("safe_path", "safe"), [
    ("$debugdir:$datadir/auto-load", False),
    ("/", True),
    ("::", True),
    ("/nowhere:", True),  # an empty directory matches every file, as gdb's empty pattern
    ("/nowhere", False),
    ("{root}/", True),
    ("{root}", True),
    ("{root}/p-gdb.py", True),  # the file itself
    ("{root}/p", False),  # a name's prefix is no directory
    ("{top}", False),  # nor a directory's
    ("{parent}/*", True),  # a wildcard stands for one component
    ("{parent}/*/p-gdb.py", True),
    ("/*/p-gdb.py", False),  # no wildcard crosses a '/'
    ("{parent}/[{first}]{rest}", True),
    ("{parent}/?{rest}", True),
    ("{parent}/[!{first}]{rest}", False),
])  # fmt: skip
def test_safe_path_matching(tmp_path: Path, safe_path: str, safe: bool) -> None:
    root = tmp_path / "scripts"
    root.mkdir()
    script = root / "p-gdb.py"
    script.write_text("")
    name = root.name
    value = safe_path.format(root=root, parent=tmp_path, top=str(root)[:-2], first=name[0], rest=name[1:])
    auto_load = AutoLoad(safe_path=value)
    assert auto_load.is_safe(str(script)) is safe


def test_the_default_safe_path_holds_gdbs_directories() -> None:
    auto_load = AutoLoad()
    assert auto_load.is_safe("/usr/share/gdb/auto-load/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30-gdb.py")
    assert auto_load.is_safe("/usr/lib/debug/usr/bin/prog-gdb.py")
    assert not auto_load.is_safe("/usr/share/gdb/python/x.py")
    assert auto_load.script_directories() == ["/usr/lib/debug", "/usr/share/gdb/auto-load"]


def test_symbolic_links_either_way(tmp_path: Path) -> None:
    """A file is safe by its own name or its real path, in a directory named either way."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "p-gdb.py").write_text("")
    link = tmp_path / "link"
    link.symlink_to(real)
    assert AutoLoad(safe_path=str(link)).is_safe(str(real / "p-gdb.py"))
    assert AutoLoad(safe_path=str(real)).is_safe(str(link / "p-gdb.py"))
    assert not AutoLoad(safe_path=str(tmp_path / "other")).is_safe(str(link / "p-gdb.py"))


def test_added_directories_and_the_advice_once(tmp_path: Path) -> None:
    auto_load = AutoLoad()
    first, second = tmp_path / "a-gdb.py", tmp_path / "b-gdb.py"
    assert [c for c, _ in auto_load.declined_notes(str(first))] == ["warning", "console"]
    assert [c for c, _ in auto_load.declined_notes(str(second))] == ["warning"]  # advised once
    assert auto_load.declined_notes(str(first)) == []  # told once
    auto_load.add_safe_path(str(tmp_path))
    assert auto_load.safe_path == f"$debugdir:$datadir/auto-load:{tmp_path}"
    assert auto_load.is_safe(str(first))


@pytest.mark.parametrize(("files", "xdg", "expected"), [
    ((), None, "{home}/.config/gdb/gdbinit"),
    ((".gdbinit",), None, "{home}/.gdbinit"),
    ((".gdbinit", ".config/gdb/gdbinit"), None, "{home}/.config/gdb/gdbinit"),
    ((), "{home}/xdg", "{home}/xdg/gdb/gdbinit"),
])  # fmt: skip
def test_the_advice_names_gdbs_init_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         files: tuple[str, ...], xdg: str | None, expected: str) -> None:  # fmt: skip
    """As gdb 13 named it with each of these homes (its advice's configuration file)."""
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    monkeypatch.setenv("HOME", str(tmp_path))
    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg.format(home=tmp_path))
    assert home_init_file() == expected.format(home=tmp_path)
    monkeypatch.delenv("HOME")
    assert home_init_file() == "$HOME/.gdbinit"
