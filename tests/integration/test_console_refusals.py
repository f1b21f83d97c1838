"""Commands gdb has that cannot be served here answer in gdb 13's words, as gdb answers
where its output is not a terminal: the TUI's (tui, layout, focus, refresh, winheight,
info win, update), the checkpoint commands, explore without an argument; and the lists
of the scripts' printers (info pretty-printer, type-printers, frame-filter) as gdb's
Python commands write them, for a C and a C++ program (libstdc++'s printers)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

TUI = ["tui enable", "tui disable", "tui", "layout src", "layout", "layout next", "layout foo", "focus next",
       "focus", "refresh", "info win", "winheight src 5", "wh src 3", "tui reg general", "tui reg", "update",
       "fs next", "tui window", "tui window height src 3", "tui window foo", "tui foo", "tui new-layout",
       "la src", "tui layout", "checkpoint", "restart 1", "restart", "info checkpoints", "explore"]


def _build(tmp_path: Path, name: str, source: str, compiler: str) -> Path:
    path = shutil.which(compiler)
    if path is None:
        pytest.skip(f"{compiler} not installed")
    (tmp_path / name).write_text(source)
    program = tmp_path / name.split(".")[0]
    subprocess.run([path, "-g", "-O0", "-o", str(program), str(tmp_path / name)], check=True)
    return program


@pytest.mark.parametrize("command", TUI)
def test_refused_before_run_like_gdb(tmp_path: Path, command: str) -> None:
    program = _build(tmp_path, "plain.c", "int main(void) { return 0; }\n", "gcc")
    assert_like_gdb([*ex(command), str(program)], tmp_path)


def test_refused_at_a_stop_like_gdb(tmp_path: Path) -> None:
    program = _build(tmp_path, "plain.c", "int main(void) { return 0; }\n", "gcc")
    got = assert_like_gdb([*ex("break main", "run", "update", "restart 1", "restart x", "info checkpoints",
                               "info win", "tui enable", "layout src", "delete checkpoint", "delete checkpoint 1",
                               "detach checkpoint 1", "detach checkpoint", "delete che 2", "delete checkpoint x"),
                           str(program)], tmp_path)  # fmt: skip
    assert "Cannot enable the TUI when output is not a terminal" in got.stderr


def test_printer_lists_like_gdb(tmp_path: Path) -> None:
    source = ("#include <vector>\n#include <string>\n"
              "int main() { std::vector<int> v{1, 2}; std::string s = \"x\"; return v[0] + (int) s.size(); }\n")
    program = _build(tmp_path, "lists.cc", source, "g++")
    got = assert_like_gdb([*ex("info pretty-printer", "info frame-filter", "break main", "run",
                               "info pretty-printer global", "info pretty-printer .*libstdc",
                               "info pretty-printer .*libstdc lib.*;std::vec.*", "info pretty-printer a b c d",
                               "info type-printers", "info frame-filter"), str(program)], tmp_path)  # fmt: skip
    assert "  libstdc++-v6\n    __gnu_cxx::_Slist_iterator" in got.stdout


def test_ambiguous_info_commands_like_gdb(tmp_path: Path) -> None:
    """`info fr` (frame, frame-filter) and `info ty` (type-printers, types) are ambiguous
    in gdb's words, not undefined."""
    program = _build(tmp_path, "plain.c", "int main(void) { return 0; }\n", "gcc")
    assert_like_gdb([*ex("info fr", "info ty", "info zz"), str(program)], tmp_path)
