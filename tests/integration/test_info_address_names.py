"""`info address FUNCTION` names the function's symbol as gdb 13 prints it (its print name):
a C++ function with its parameters (`Symbol "Item::total() const" is a function at address
...`; ours said `Item::total`), a Rust function inside its module; and in a Rust frame a bare
name is looked up in the frame's module too, as gdb's Rust lookup (`info address area` in
rust_frames::area; ours said "No symbol "area" in current context.")."""

from __future__ import annotations

import pytest

from tests.support.batch import assert_like_rust_gdb, ex, needs_gdb, output_like_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx, find_rustc

pytestmark = [needs_gdb, pytest.mark.timeout(300)]


@pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")
def test_cplus_functions_by_their_print_names(builder: Builder) -> None:
    program = MoreBuilder(builder.cache_dir).build_cpp("cpp_made_up", CPP_FLAGS)
    here = marker_line(PROGRAMS_DIR / "cpp_made_up.cpp", "here")
    shown = output_like_gdb(program, ["info address Item::total", "info address main", f"break cpp_made_up.cpp:{here}",
                                      "run", "info address Item::total", "info address items"])  # fmt: skip
    assert shown.count('Symbol "Item::total() const" is a function at address 0x') == 2, shown


@pytest.mark.skipif(find_rustc() is None, reason="rustc not installed")
def test_rust_functions_by_module(builder: Builder) -> None:
    program = MoreBuilder(builder.cache_dir).build_rust("rust_frames")
    got = assert_like_rust_gdb([*ex("info address rust_frames::area", "tbreak rust_frames::area", "run",
                                    "info address area", "info address side", "info address nosuch"),
                                str(program)], program.parent)  # fmt: skip
    assert got.stdout.count('Symbol "rust_frames::area" is a function at address 0x') == 2, got.stdout
