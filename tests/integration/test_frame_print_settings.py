"""gdb's frame print settings, side by side with gdb 13: `print frame-arguments` (all,
scalars, none, presence), `print frame-info` over frame, bt and stops, and bt's own
-frame-info and -frame-arguments options."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


def _run(builder: Builder, tmp_path: Path, *commands: str) -> str:
    program = builder.build("frame_args")
    args = ["-ex", f"break frame_args.c:{marker_line('frame_args.c', 'leaf')}", "-ex", "run"]
    for command in commands:
        args += ["-ex", command]
    return assert_like_gdb([*args, str(program)], tmp_path).stdout


def test_print_frame_arguments_like_gdb(builder: Builder, tmp_path: Path) -> None:
    out = _run(builder, tmp_path, "set print frame-arguments all", "frame 1", "show print frame-arguments",
               "set print frame-arguments none", "frame 1", "set print frame-arguments presence", "frame 1",
               "frame 2", "set print frame-arguments scalars", "bt", "bt -frame-arguments all",
               "set print frame-arguments nosuch")
    assert "p={x = 3, y = 4}" in out and "takes (...)" in out


def test_print_frame_info_like_gdb(builder: Builder, tmp_path: Path) -> None:
    out = _run(builder, tmp_path, "set print frame-info location-and-address", "frame 1", "frame 0",
               "set print frame-info location", "frame 1", "show print frame-info",
               "set print frame-info short-location", "frame 1", "bt",
               "set print frame-info source-line", "frame 1", "frame 0",
               "bt -frame-info source-and-location 2", "set print frame-info source-and-location", "bt",
               "set print frame-info auto", "bt -frame-info short-location -frame-arguments presence",
               "set print frame-info location", "finish")
    assert "s=DARK)\n" in out and "0x" in out
