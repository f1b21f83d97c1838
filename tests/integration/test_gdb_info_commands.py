"""gdb's information commands against gdb 13 on the same binary (info_cmds.c, at -O0 and
-O2): `info line`, `info address`, `info scope`, `info proc`, `info frame`, `frame
function|level|address` and `rbreak` (aliceserver/adapters/gdbcommands), through MI's
console at a stop, and through `-batch` before the program runs."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, ex, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.dap_session import repl_at
from tests.support.gdb import gdb_env, run_gdb
from tests.support.mi_console import console_at

pytestmark = [pytest.mark.timeout(240), needs_gdb]

SOURCE = "info_cmds.c"


def _line(name: str) -> int:
    return marker_line(SOURCE, name)


@pytest.fixture(scope="module")
def o0(builder: Builder) -> Path:
    return builder.build("info_cmds")


@pytest.fixture(scope="module")
def o2(builder: Builder) -> Path:
    return builder.build("info_cmds", flags=("-g", "-O2"))


def _normalized(text: str) -> str:
    return re.sub(r"process \d+", "process N", text.rstrip("\n"))


def _compare(program: Path, location: str, commands: list[str]) -> None:
    """Each command's text (and error) from gdb and from our MI console at `location`."""
    replies = run_gdb(program, [f"break {location}", "run", *commands], env=gdb_env(), cwd=os.getcwd())
    theirs = [_normalized(r.output.rstrip("\n") + (r.error or "")) for r in replies[2:]]
    ours = [_normalized(text) for text in console_at(program, location, commands, gdb_env())]
    assert list(zip(commands, ours, strict=True)) == list(zip(commands, theirs, strict=True))


def test_info_line_at_a_stop(o0: Path) -> None:
    _compare(o0, f"{SOURCE}:{_line('main')}", [
        "info line", "info line", "info line main", "info line sq", f"info line {_line('main')}",
        f"info line {SOURCE}:{_line('sq')}", f"info line {_line('nocode')}", "info line",
        f"info line {_line('main_decl')}", "info line 1000", "info line nosuch", "info line nosuch.c:3",
        "info line *0x1149", "info line *main", "x/2i", "list", "info line",
    ])  # fmt: skip


def test_info_address_and_scope_at_O0(o0: Path) -> None:
    _compare(o0, f"{SOURCE}:{_line('main')}", [
        "info address main", "info address arr", "info address x", "info address argc",
        "info address counter", "info address nosuch", "info address", "info address puts",
        "info scope main", "info scope fold", f"info scope {SOURCE}:{_line('sq')}", "info scope nosuch",
        "info scope",
    ])  # fmt: skip


def test_info_address_at_O2(o2: Path) -> None:
    # sq is inlined into fold, fold into main: register and location-list variables
    _compare(o2, "sq", ["info address v", "info address r", "info address counter", "info scope main",
                        "up", "info address total", "info address calls"])


def test_info_frame_of_inlined_frames_at_O2(o2: Path) -> None:
    _compare(o2, "sq", ["info frame", "frame level 1", "info frame"])


def test_frame_subcommands(o0: Path) -> None:
    _compare(o0, "sq", [
        "frame function fold", "info frame", "frame function main", "frame function sq", "frame function nosuch",
        "frame function", "frame level 1", "frame 1+1", "frame level 7", "frame foo", "frame address 0x1234",
        "info frame",
    ])  # fmt: skip


def test_info_proc(o0: Path) -> None:
    _compare(o0, "sq", ["info proc", "info proc cmdline", "info proc cwd", "info proc exe",
                        "info proc mappings"])


def test_rbreak(o0: Path) -> None:
    _compare(o0, "sq", [f"rbreak {SOURCE}:^f", "rbreak ^sq$", "info breakpoints"])


def test_before_the_program_runs(o0: Path) -> None:
    commands = ["info line", "info line main", f"info line {_line('sq')}", "info address main",
                "info scope fold", "rbreak ^sq", "info proc", "frame function main", "info line 1000"]
    assert_like_gdb([*ex(*commands), str(o0)], o0.parent)


def test_info_line_by_address_before_the_program_runs(o0: Path) -> None:
    """gdb answers `info line *ADDRESS` from the executable's line table, at link-time
    addresses, and `x/i` goes on from there."""
    commands = ["info line *main", "x/2i", "info line *(sq+4)", "info line sq", "x/2i", "info line *0"]
    got = assert_like_gdb([*ex(*commands), str(o0)], o0.parent)
    assert got.stdout.startswith("Line ")


def test_dap_console_runs_the_same_commands(tmp_path: Path, builder: Builder, o0: Path) -> None:
    commands = ["info line main", f"info line {_line('nocode')}", "info address arr", "info address x",
                "info scope fold", "info proc exe"]
    replies = run_gdb(o0, [f"break {SOURCE}:{_line('main')}", "run", *commands], env=gdb_env(), cwd=os.getcwd())
    theirs = [_normalized(reply.output) for reply in replies[2:]]
    ours = repl_at(o0, builder.programs_dir / SOURCE, _line("main"), commands, tmp_path / "adapter.log")
    assert list(zip(commands, map(_normalized, ours), strict=True)) == list(zip(commands, theirs, strict=True))
