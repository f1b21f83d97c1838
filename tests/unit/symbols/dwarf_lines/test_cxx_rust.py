"""C++ and Rust names and lines, compared with gdb."""

from __future__ import annotations

import shutil

import pytest

from tests.unit.symbols.dwarf_lines.support import CXX, RUST, Builder, gdb_breaks, load, need_gdb

INLINED = """\
static inline int twice(volatile int x)
{
    return 2 * x;
}
__attribute__((noinline)) int caller_one(int v) { return twice(v) + 1; }
__attribute__((noinline)) int caller_two(int v) { return twice(v * 3) + 2; }
int main(int argc, char **) { return caller_one(argc) + caller_two(argc); }
"""

CXX_NAMES = ["main", "ns::Shape::scale", "scale", "Shape::area", "biggest", "ns::biggest<int>",
             "twice", "free_func", "ns::free_func", "ns::Shape::scale(int)",
             "ns::Shape::scale(double)", "caller_one"]  # fmt: skip


@pytest.fixture(scope="module")
def cxx_o0(builder: Builder):  # type: ignore[no-untyped-def]
    if not shutil.which("g++"):
        pytest.skip("needs g++")
    return builder.build({"prog.cpp": CXX}, ("-g", "-O0"), tool="g++")


def test_cxx_function_breakpoints_match_gdb(cxx_o0) -> None:  # type: ignore[no-untyped-def]
    need_gdb()
    info = load(cxx_o0)
    oracle = gdb_breaks(cxx_o0, CXX_NAMES)
    for name in CXX_NAMES:
        ours = info.functions_named(name)
        theirs = oracle[name]
        assert [f.breakpoint_address for f in ours] == sorted(t.address for t in theirs), name
        by_address = {t.address: t for t in theirs}
        for found in ours:
            assert found.line == by_address[found.breakpoint_address].line, name
            if found.linkage_name.startswith("_Z"):  # `main` has no signature in its symbol
                assert found.name == by_address[found.breakpoint_address].function, name


def test_cxx_overloads_and_templates(cxx_o0) -> None:  # type: ignore[no-untyped-def]
    info = load(cxx_o0)
    assert [f.name for f in info.functions_named("scale")] == [
        "ns::Shape::scale(int)", "ns::Shape::scale(double)"]  # fmt: skip
    assert {f.name for f in info.functions_named("biggest")} == {
        "ns::biggest<int>(int, int)", "ns::biggest<double>(double, double)"}  # fmt: skip
    template_line = info.resolve_line("prog.cpp", 12)
    assert template_line is not None and len(template_line.addresses) == 2
    function = info.function_at(info.functions_named("Shape::area")[0].breakpoint_address)
    assert function is not None and function.linkage_name.startswith("_ZNK2ns5Shape4area")


def test_cxx_inline_function_in_two_callers(builder: Builder) -> None:
    if not shutil.which("g++"):
        pytest.skip("needs g++")
    need_gdb()
    program = builder.build({"inl.cpp": INLINED}, ("-g", "-O2"), tool="g++")
    info = load(program)
    found = info.resolve_line("inl.cpp", 3)  # twice(), inlined into both callers
    assert found is not None
    callers = {info.function_at(a).name for a in found.addresses}  # type: ignore[union-attr]
    assert {"caller_one(int)", "caller_two(int)"} <= callers
    theirs = {loc.address for loc in gdb_breaks(program, ["inl.cpp:3"])["inl.cpp:3"]}
    assert set(found.addresses) == theirs


@pytest.fixture(scope="module")
def rust_o0(builder: Builder):  # type: ignore[no-untyped-def]
    if not shutil.which("rustc"):
        pytest.skip("needs rustc")
    return builder.build({"r.rs": RUST}, ("-g", "-C", "opt-level=0"), tool="rustc")


def test_rust_paths_and_lines_match_gdb(rust_o0) -> None:  # type: ignore[no-untyped-def]
    need_gdb()
    info = load(rust_o0)
    specs = ["r::main", "r::geometry::make", "r::geometry::Point::norm2", "r.rs:5", "r.rs:18",
             "r.rs:9"]  # fmt: skip
    oracle = gdb_breaks(rust_o0, specs)
    for spec in specs:
        theirs = oracle[spec]
        assert theirs, spec
        if ":" in spec and not spec.startswith("r::"):
            file, number = spec.split(":")
            resolved = info.resolve_line(file, int(number))
            assert resolved is not None, spec
            assert set(resolved.addresses) == {t.address for t in theirs}, spec
            assert resolved.line == theirs[0].line, spec
        else:
            ours = info.functions_named(spec)
            assert [f.breakpoint_address for f in ours] == [t.address for t in theirs], spec
            assert ours[0].name == spec and ours[0].line == theirs[0].line


def test_rust_short_paths(rust_o0) -> None:  # type: ignore[no-untyped-def]
    info = load(rust_o0)
    (norm2,) = info.functions_named("Point::norm2")
    assert norm2.name == "r::geometry::Point::norm2"
    assert info.functions_named("norm2") == [norm2]
    generic = info.functions_named("generic")
    assert len(generic) == 2 and {f.name for f in generic} == {"r::generic"}
    assert info.functions_named("geometry::make")[0].name == "r::geometry::make"
