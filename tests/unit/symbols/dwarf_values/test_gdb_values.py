"""Formatted values compared with gdb at the same breakpoint of the same binary."""

from __future__ import annotations

import re
from typing import Any

import pytest

from aliceserver.debuggers.symbols.dwarf.format import format_value

from .conftest import Programs, gdb_info, gdb_print, gdb_run  # type: ignore[import-not-found]

pytestmark = pytest.mark.timeout(120)

VARIANTS = [
    ("-g", "-O0", "-gdwarf-5"),
    ("-g", "-O0", "-gdwarf-4"),
    ("-g", "-O0", "-gdwarf-4", "-no-pie"),
    ("-g", "-O0", "-gdwarf-2"),
    ("-g", "-O0", "-gdwarf-3", "-no-pie"),
]
GLOBAL_VARIANTS = [*VARIANTS, ("-g", "-O2", "-gdwarf-5"), ("-g", "-O2", "-gdwarf-4")]

GLOBALS = [
    "global_counter", "file_static", "greeting", "escapes", "utf8", "gdouble", "gfloat", "gll",
    "gul", "gbool", "gshort", "guchar", "gschar", "gchar", "zeros", "part", "matrix", "big",
    "same", "gpoint", "gpoints", "gnum", "gflags", "gcolor", "gcolor_bad", "gperm",
    "gperm_unknown", "gmy", "gcv", "gnull", "gvoid", "n1", "gouter", "tls_var", "gfloats",
    "gnan", "ginf",
]  # fmt: skip


def norm(text: str) -> str:
    """Stack addresses differ between gdb's run and ours (environment size): mask them."""
    return re.sub(r"0x7ff[0-9a-f]{9}", "<stack>", text)


def compare(stop: Any, names: list[str], expected: dict[str, str], **kw: Any) -> list[str]:
    problems = []
    for name in names:
        ours = stop.show(name, **kw)
        if norm(ours) != norm(expected[name]):
            problems.append(f"{name}: ours {ours!r} gdb {expected[name]!r}")
    return problems


@pytest.mark.parametrize("flags", GLOBAL_VARIANTS, ids=lambda f: " ".join(f))
def test_globals_print_like_gdb(programs: Programs, stop_at: Any, flags: tuple[str, ...]) -> None:
    binary = programs.build("values.c", *flags)
    expected = gdb_print(binary, "locals", GLOBALS)
    stop = stop_at(binary, "locals")
    problems = compare(stop, GLOBALS, expected, top_level=True)
    assert not problems, "\n".join(problems)


def frame_listing(stop: Any, what: str) -> list[tuple[str, str]]:
    scope = stop.symbols.frame_scope(stop.frame, stop.lookup_pc)
    assert scope is not None
    variables = scope.arguments() if what == "args" else scope.locals(include_shadowed=True)
    return [
        (v.name, format_value(stop.symbols.value_of(v, stop.frame), stop.options()))
        for v in variables
    ]


@pytest.mark.parametrize("flags", VARIANTS, ids=lambda f: " ".join(f))
@pytest.mark.parametrize("marker", ["locals", "shadow"])
@pytest.mark.parametrize("what", ["locals", "args"])
def test_frame_variables_like_gdb(
    programs: Programs, stop_at: Any, flags: tuple[str, ...], marker: str, what: str
) -> None:
    binary = programs.build("values.c", *flags)
    expected = gdb_info(binary, marker, what)
    stop = stop_at(binary, marker)
    ours = [(n, norm(v)) for n, v in frame_listing(stop, what)]
    assert ours == [(n, norm(v)) for n, v in expected]


OPT_VARIANTS = [("-g", "-O2", "-gdwarf-5"), ("-g", "-O2", "-gdwarf-4")]


@pytest.mark.parametrize("flags", OPT_VARIANTS, ids=lambda f: " ".join(f))
@pytest.mark.parametrize("what", ["locals", "args"])
def test_optimized_frame_like_gdb(
    programs: Programs, stop_at: Any, flags: tuple[str, ...], what: str
) -> None:
    binary = programs.build("opt.c", *flags)
    expected = gdb_info(binary, "opt", what)
    stop = stop_at(binary, "opt")
    ours = frame_listing(stop, what)
    assert ours == expected
    if what == "locals":
        assert ("total", "<optimized out>") in ours  # never garbage


CPP_VARIANTS = [("-g", "-O0", "-gdwarf-5"), ("-g", "-O0", "-gdwarf-4")]


@pytest.mark.parametrize("flags", CPP_VARIANTS, ids=lambda f: " ".join(f))
@pytest.mark.parametrize("marker", ["refs", "method"])
@pytest.mark.parametrize("what", ["locals", "args"])
def test_cplus_frame_like_gdb(
    programs: Programs, stop_at: Any, flags: tuple[str, ...], marker: str, what: str
) -> None:
    binary = programs.build("classes.cpp", *flags)
    expected = gdb_info(binary, marker, what)
    stop = stop_at(binary, marker)
    ours = [(n, norm(v)) for n, v in frame_listing(stop, what)]
    assert ours == [(n, norm(v)) for n, v in expected]


@pytest.mark.parametrize("flags", CPP_VARIANTS, ids=lambda f: " ".join(f))
def test_cplus_print_like_gdb(programs: Programs, stop_at: Any, flags: tuple[str, ...]) -> None:
    binary = programs.build("classes.cpp", *flags)
    names = [
        "*this", "this", "extra", "result", "base_value", "where", "where.y", "this->ratio",
        "kind", "(int)kind", "ratio * 2", "tag", "this->tag + 1", "sizeof(*this)",
        "sizeof(geo::Point)", "(geo::Point *)this", "geo::Kind::Small", "nosuch",
        "*(Base *)this", "&this->where", "result == 20", "!result",
    ]  # fmt: skip
    expected = gdb_print(binary, "method", names)
    stop = stop_at(binary, "method")
    problems = []
    for name in names:
        ours = stop.print(name)
        if norm(ours) != norm(expected[name]):
            problems.append(f"{name}: ours {ours!r} gdb {expected[name]!r}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("flags", OPT_VARIANTS, ids=lambda f: " ".join(f))
@pytest.mark.parametrize("what", ["locals", "args"])
def test_inlined_frame_like_gdb(
    programs: Programs, stop_at: Any, flags: tuple[str, ...], what: str
) -> None:
    binary = programs.build("opt.c", *flags)
    expected = gdb_info(binary, "inl", what)
    stop = stop_at(binary, "inl")
    scope = stop.symbols.frame_scope(stop.frame)
    assert scope.function_name == "scale" and scope.inline_depth == 1
    # gdb lists an inlined variable twice when gcc wraps the body in a lexical block without
    # an abstract origin (its concrete and its abstract DIE, inherited as optimized out):
    # so does the engine, shadowed names included.
    assert frame_listing(stop, what) == expected


@pytest.mark.parametrize("flags", CPP_VARIANTS, ids=lambda f: " ".join(f))
def test_cplus_main_like_gdb(programs: Programs, stop_at: Any, flags: tuple[str, ...]) -> None:
    binary = programs.build("classes.cpp", *flags)
    names = [
        "d", "m", "sq", "shape", "pref", "*pref", "hidden_counter", "Shape::count", "m.flag",
        "m.x", "m.base_value", "sq.side", "sq.id", "shape.id", "pt", "value", "&value",
        "(Shape *)&sq", "*(Shape *)&sq", "d.where", "d.kind", "sizeof(Square)", "total",
    ]  # fmt: skip
    expected = gdb_print(binary, "main", names)
    stop = stop_at(binary, "main")
    problems = []
    for name in names:
        ours = stop.print(name)
        if norm(ours) != norm(expected[name]):
            problems.append(f"{name}: ours {ours!r} gdb {expected[name]!r}")
    assert not problems, "\n".join(problems)
    listing = [(n, norm(v)) for n, v in frame_listing(stop, "locals")]
    assert listing == [(n, norm(v)) for n, v in gdb_info(binary, "main", "locals")]


@pytest.mark.parametrize("flags", [("-g", "-O0"), ("-g", "-O0", "-gdwarf-4", "-no-pie")])
@pytest.mark.parametrize("marker", ["worker", "main"])
def test_thread_locals_per_thread_like_gdb(
    programs: Programs, stop_at: Any, flags: tuple[str, ...], marker: str
) -> None:
    binary = programs.build("tls.c", *flags)
    names = ["tls_counter", "tls_name", "tls_static", "&tls_counter == &tls_counter"]
    expected = gdb_print(binary, marker, names)
    stop = stop_at(binary, marker)
    assert {n: stop.print(n) for n in names} == expected


@pytest.mark.parametrize("flags", VARIANTS[:2], ids=lambda f: " ".join(f))
def test_caller_frame_like_gdb_up(programs: Programs, stop_at: Any, flags: tuple[str, ...]) -> None:
    binary = programs.build("values.c", *flags)
    [_, locals_out, print_out] = gdb_run(
        binary, "locals", ["up", "info locals", "print p.x + argc"]
    )
    stop = stop_at(binary, "locals").caller()
    expected = [tuple(line.split(" = ", 1)) for line in locals_out.splitlines() if " = " in line]
    assert [(n, norm(v)) for n, v in frame_listing(stop, "locals")] == [
        (n, norm(v)) for n, v in expected
    ]
    assert stop.print("p.x + argc") == print_out.split(" = ", 1)[1]


def test_rust_values_like_gdb(programs: Programs, stop_at: Any) -> None:
    """Rust locals in gdb's Rust syntax: `core::option::Option<i32>::Some(3)`."""
    binary = programs.build("shapes.rs", "-g", "-C", "opt-level=0")
    expected = dict(gdb_info(binary, "rust", "locals"))
    stop = stop_at(binary, "rust")
    scope = stop.symbols.frame_scope(stop.frame)
    assert scope.function_name == "work"
    ours = dict(frame_listing(stop, "locals"))
    assert ours["total"] == expected["total"] == "11"
    assert expected["opt"].endswith("::Some(3)")
    assert {n: norm(v) for n, v in ours.items()} == {n: norm(v) for n, v in expected.items()}
