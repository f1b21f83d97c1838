"""C++ details gdb gets right, through the MI console against gdb on the same program:
symbols inside `<...>` demangled (`<vtable for geo::Rect+16>`, `<ns::twice(int)>`),
`<No data fields>` for classes with no data members of their own, and `info frame` line
by line (every register the CFI saves, `source language c++.`); Rust frames say rust.
At -O2 the empty classes' variables have no location: `<optimized out>` as gdb says, not
`{<No data fields>}` (nor `{static count = 5}`: a static member is still read through the
object, `counted.count`, as gdb's search of a class's fields finds static ones too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import output_like_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx, find_rustc
from tests.support.core_backend import core_of_stop
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path
from tests.support.mi_client import MiClient
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.both_backends,
]

SOURCE = PROGRAMS_DIR / "cpp_values.cpp"
LOCATION = f"cpp_values.cpp:{marker_line(SOURCE, 'measure')}"

VALUES = [
    "print fp", "print ns::twice", "print &ns::twice", "print *fp",
    "print rect", "print *shape", "print shape->_vptr.Shape", "print/x rect",
    "print empty", "print derived", "print only_empty", "print counted",
]  # fmt: skip
FRAMES = ["info frame", "up", "info frame", "up", "info frame", "frame 0", "info frame"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_values")


def gdb_outputs(program: Path, location: str, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, location, commands)


@pytest.fixture(scope="module")
def optimized(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_values", ("-g", "-O2"))


@pytest.mark.parametrize("commands", [VALUES, FRAMES], ids=["values", "info-frame"])
def test_console_matches_gdb(program: Path, commands: list[str], backend: str, tmp_path: Path) -> None:
    expected = gdb_outputs(program, LOCATION, commands)
    assert not any(e.startswith("No symbol") for e in expected), expected  # the oracle ran
    got = console_at(program, LOCATION, commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=False)) == list(zip(commands, expected, strict=False))


def test_optimized_out_objects_match_gdb(optimized: Path, backend: str, tmp_path: Path) -> None:
    commands = [*VALUES, "print counted.count", "print &counted.count", "print sizeof(empty)", "info locals"]
    expected = gdb_outputs(optimized, LOCATION, commands)
    assert expected[VALUES.index("print empty")].endswith(" = <optimized out>")  # the oracle: -O2
    got = console_at(optimized, LOCATION, commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=False)) == list(zip(commands, expected, strict=False))


@pytest.mark.parametrize("gdb", [True, False], ids=["gdb", "ours"])
def test_optimized_out_objects_in_mi_are_member_by_member(optimized: Path, gdb: bool) -> None:
    """MI prints each member (gdb's common_val_print, no whole-value check): a class with no
    data member says so, a static member is read."""
    mi = MiClient(["-i=mi", "-q", "-nx", str(optimized)], cwd=optimized.parent, gdb=gdb)
    try:
        mi.prompt()
        mi.ok(f"-break-insert {LOCATION}")
        mi.ok("-exec-run")
        mi.stopped()
        shown = [mi.ok(f"-data-evaluate-expression {name}").results["value"] for name in ("empty", "counted")]
        assert shown == ["{<No data fields>}", "{static count = 5}"]
    finally:
        mi.close()


@pytest.mark.parametrize("location", [LOCATION, "measure"], ids=["line", "function"])
def test_a_place_in_an_inlined_copy_is_named_as_gdb_names_it(optimized: Path, location: str) -> None:
    """gdb's print name of the inlined function at a line's place, and at `break NAME`'s
    place in an inlined copy: with its parameters (its demangled linkage name), as the
    out-of-line copy's (it was the bare DW_AT_name)."""
    got = output_like_gdb(optimized, [f"break {location}", "info breakpoints"])
    assert got.count("in measure(geo::Shape*, int) at") == 2


def test_rust_frame_language(builder: Builder) -> None:
    if find_rustc() is None:
        pytest.skip("rustc not installed")
    program = MoreBuilder(builder.cache_dir).build_rust("rust_discr")
    location = f"rust_discr.rs:{marker_line(PROGRAMS_DIR / 'rust_discr.rs', 'show')}"
    [expected] = gdb_outputs(program, location, ["info frame"])
    assert " source language rust." in expected.splitlines()
    [got] = console_at(program, location, ["info frame"], gdb_env())
    assert got == expected
