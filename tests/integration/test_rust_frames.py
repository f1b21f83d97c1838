"""A Rust program's frames as gdb 13 names them and ends them (dwarf2_compute_name,
inside_main_func). A frame was named by its ELF symbol, demangled: `<core::slice::iter::
Iter<T> as core::iter::traits::iterator::Iterator>::fold` and `map_fold::{{closure}}`
where gdb shows the DWARF name rustc writes with the generic arguments inside its
namespaces (`core::slice::iter::{impl#171}::fold<rust_frames::..., ...>`), and an inlined
call by its bare name (`unchecked_add`, gdb's `core::num::{impl#11}::unchecked_add`).
A crate whose `main` holds a closure (so a namespace `crate::main` beside the function)
had its backtraces end at main, where gdb's lookup of the main function finds that
namespace and shows the runtime's frames below it down to `_start`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_rust_gdb, needs_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_rustc

pytestmark = [needs_gdb, pytest.mark.timeout(300),
              pytest.mark.skipif(find_rustc() is None, reason="rustc not installed")]

SPEAK = f"rust_frames.rs:{marker_line(PROGRAMS_DIR / 'rust_frames.rs', 'speak')}"


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_rust("rust_frames")


def test_frames_named_and_ended_like_gdb(program: Path) -> None:
    # `bt 16` and `bt -1`: frames whose arguments are stack addresses (`stack_end=`) are
    # left out, the depth is still compared
    commands = ["tbreak rust_frames::area", f"break {SPEAK}", "break rust_frames::main::{closure#0}", "run",
                "bt 16", "bt -1", "up 2", "frame", "continue", "bt 16", "bt -1", "finish", "step",
                "continue", "bt 16", "bt -1"]  # fmt: skip
    got = assert_like_rust_gdb([arg for command in commands for arg in ("-ex", command)] + [str(program)],
                               program.parent)
    assert "core::iter::traits::iterator::Iterator::sum<core::iter::adapters::map::Map<" in got.stdout
    assert "rust_frames::{impl#0}::speak (self=" in got.stdout
    assert got.stdout.count(" in _start ()") == 2, got.stdout  # below main, as gdb
