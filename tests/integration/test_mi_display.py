"""`display` in the gdb-like console, against gdb 13: a display that names a local is tied
to its function (and block) and skipped quietly elsewhere, `info display` says so, formats
print a value (`/x`) or examine memory (`/i`), and `undisplay` of a missing number only
says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb, ours
from tests.support.build import Builder, marker_line

SOURCE = "display_scope.c"


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("display_scope")


def at(name: str) -> str:
    return f"{SOURCE}:{marker_line(SOURCE, name)}"


def test_display_of_a_local_is_skipped_outside_its_function(prog: Path) -> None:
    done = ours([
        "-batch", "-nx",
        *ex(f"break {at('call')}", "run", "display total", "display counter", "display/i $pc",
            "break square", "continue", "info display", "finish"),
        str(prog)], prog.parent)  # fmt: skip
    assert done.returncode == 0 and done.stderr == "", done
    text = done.stdout
    assert "<error" not in text
    in_square = text[text.index("Breakpoint 2, square") : text.index("Auto-display expressions")]
    assert "1: total" not in in_square and "2: counter = 0" in in_square
    assert "3: x/i $pc\n=> 0x" in in_square
    table = text[text.index("Auto-display expressions") :]
    assert "1:   y  total (cannot be evaluated in the current context)\n" in table
    assert "2:   y  counter\n" in table and "3:   y  /1bi $pc\n" in table
    back = text[text.index("Run till exit") if "Run till exit" in text else text.index("in main ()") :]
    assert back.index("1: total = 0") < back.index("Value returned is $1 = 1")


@needs_gdb
def test_display_scopes_like_gdb(prog: Path) -> None:
    assert_like_gdb([
        *ex(f"break {at('call')}", "run", "display total", "display i", "display counter",
            "display nosuch", "break square", "continue", "display result", "display/x n",
            "info display", "finish", "delete", f"break {at('inner')}", "continue", "display inner",
            "info display", f"break {at('end')}", "continue", "undisplay 2", "undisplay 9",
            "disable display 1", "info display", "display", "kill", "info display"),
        str(prog)], prog.parent)  # fmt: skip
