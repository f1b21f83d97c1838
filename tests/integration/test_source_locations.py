"""resolve_location and source_position, checked against gdb's `break` on the same binary:
file:line in every spelling, lines without code, functions past their prologue, C++
qualified / overloaded / template names, Rust paths, `*ADDRESS`, unknown names."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import CodeLocation
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx, find_rustc
from tests.support.events import EventLog
from tests.support.gdb import (
    GdbReply,
    breakpoint_addresses,
    breakpoint_rows,
    gdb_env,
    gdb_path,
    run_gdb,
)
from tests.support.session import launch

pytestmark = [pytest.mark.timeout(120), pytest.mark.both_backends]

needs_gdb = pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle")

BASIC = PROGRAMS_DIR / "src_basic.c"
CPP = PROGRAMS_DIR / "src_cpp.cpp"
RUST = PROGRAMS_DIR / "src_rust.rs"


def line_of(name: str, source: Path = BASIC) -> int:
    return marker_line(source, name)


@pytest.fixture(scope="module")
def more(builder: Builder) -> MoreBuilder:
    return MoreBuilder(builder.cache_dir)


def main_base(debugger: Any) -> int:
    [main] = [m for m in debugger.modules() if m.is_main]
    return int(main.base)


def gdb_breaks(program: Path, specs: list[str]) -> dict[str, GdbReply]:
    """gdb's answer to `break SPEC` for each spec (before `run`: link-time addresses),
    then `info breakpoints` (key "info")."""
    commands = [f"break {spec}" for spec in specs] + ["info breakpoints"]
    replies = run_gdb(program, commands)
    answers = dict(zip(specs, replies, strict=False))
    answers["info"] = replies[-1]
    return answers


def gdb_rows(info: GdbReply, number: int) -> list[tuple[int, str, str | None, int | None]]:
    """(address, function, file, line) of each location of breakpoint `number`."""
    rows: list[tuple[int, str, str | None, int | None]] = []
    current = 0
    for line in info.output.splitlines():
        head = line.split(maxsplit=1)[0] if line.strip() else ""
        if head.isdigit():
            current = int(head)
        elif head and head.split(".")[0].isdigit():
            current = int(head.split(".")[0])
        if current != number:
            continue
        rows += breakpoint_rows(GdbReply("", line, None, None))
    return rows


def gdb_locations(info: GdbReply, number: int) -> list[tuple[int, str]]:
    return [(address, function) for address, function, _, _ in gdb_rows(info, number)]


# --- C -------------------------------------------------------------------------------------

C_SPECS = {
    "basename": f"src_basic.c:{line_of('leaf')}",
    "relative": f"programs/src_basic.c:{line_of('leaf')}",
    "absolute": f"{BASIC}:{line_of('leaf')}",
    "nocode": f"src_basic.c:{line_of('nocode')}",
    "function": "leaf",
    "static": "compare_ints",
    "main": "main",
}


@pytest.fixture(scope="module")
def c_gdb(builder: Builder) -> dict[str, GdbReply]:
    if gdb_path() is None:
        pytest.skip("gdb not installed: it is the oracle")
    return gdb_breaks(builder.build("src_basic"), list(C_SPECS.values()))


@needs_gdb
@pytest.mark.parametrize("form", ["basename", "relative", "absolute"])
def test_file_line_in_every_spelling(
    debugger: Any, builder: Builder, c_gdb: dict[str, GdbReply], form: str
) -> None:
    launch(debugger, builder.build("src_basic"))
    spec = C_SPECS[form]
    [location] = debugger.resolve_location(spec)
    assert isinstance(location, CodeLocation)
    [expected] = breakpoint_addresses(c_gdb[spec])
    assert location.address - main_base(debugger) == expected
    assert location.source is not None
    assert location.source.line == line_of("leaf")
    assert os.path.basename(location.source.path) == "src_basic.c"
    assert os.path.isabs(location.source.path)
    assert location.function == "leaf"


@needs_gdb
def test_line_without_code_moves_to_the_next_line(
    debugger: Any, builder: Builder, c_gdb: dict[str, GdbReply]
) -> None:
    launch(debugger, builder.build("src_basic"))
    spec = C_SPECS["nocode"]
    [location] = debugger.resolve_location(spec)
    number = list(C_SPECS).index("nocode") + 1
    [(address, function, _file, gdb_line)] = gdb_rows(c_gdb["info"], number)
    assert location.address - main_base(debugger) == address
    assert location.source is not None
    assert gdb_line is not None and gdb_line > line_of("nocode")
    assert (location.source.line, location.requested_line) == (gdb_line, line_of("nocode"))
    assert location.source.line == line_of("call_strlen")
    assert function == location.function == "main"


@needs_gdb
@pytest.mark.parametrize("name", ["function", "static", "main"])
def test_function_resolves_past_the_prologue_like_gdb(
    debugger: Any, builder: Builder, c_gdb: dict[str, GdbReply], name: str
) -> None:
    program = builder.build("src_basic")
    launch(debugger, program)
    spec = C_SPECS[name]
    [location] = debugger.resolve_location(spec)
    [expected] = breakpoint_addresses(c_gdb[spec])
    base = main_base(debugger)
    assert location.address - base == expected
    assert location.function == spec
    # Past the prologue: not the symbol's own address.
    assert location.address != debugger.lookup_symbol(spec)
    if spec == "leaf":
        assert location.source is not None and location.source.line == line_of("leaf")


def test_star_address_and_unknown_names(debugger: Any, builder: Builder) -> None:
    launch(debugger, builder.build("src_basic"))
    [leaf] = debugger.resolve_location("leaf")
    [exact] = debugger.resolve_location(f"*{leaf.address:#x}")
    assert exact.address == leaf.address
    assert exact.function == "leaf"
    assert exact.source is not None and exact.source.line == line_of("leaf")
    entry = debugger.lookup_symbol("leaf")
    [raw] = debugger.resolve_location(f"*{entry:#x}")
    assert raw.address == entry  # "*ADDR" is taken as is, no prologue skipping
    assert debugger.resolve_location("no_such_function_anywhere") == []
    assert debugger.resolve_location("src_basic.c:999999") == []
    assert debugger.resolve_location("no_such_file.c:3") == []


def test_source_position_of_addresses(debugger: Any, builder: Builder) -> None:
    launch(debugger, builder.build("src_basic"))
    for marker in ("leaf", "fact_mul", "vars", "compare"):
        [location] = debugger.resolve_location(f"src_basic.c:{line_of(marker)}")
        position = debugger.source_position(location.address)
        assert position is not None
        assert (os.path.basename(position.path), position.line) == ("src_basic.c", line_of(marker))
    # No line info: the assembly function and an address outside every module.
    assert debugger.source_position(debugger.lookup_symbol("no_lines_add")) is None
    assert debugger.source_position(0x10) is None


BY_ADDRESS = ["top_first", "middle_call", "leaf", "pointer_to", "half", "make_pair", "vars"]


@needs_gdb
def test_breakpoints_by_resolved_address_stop_where_gdb_stops(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    program = builder.build("src_basic")
    env = gdb_env()
    specs = [f"src_basic.c:{line_of(m)}" for m in BY_ADDRESS]
    commands = [f"break {s}" for s in specs] + ["run"] + ["continue"] * (len(specs) - 1)
    replies = run_gdb(program, commands, env=env)
    gdb_lines = [r.where.line if r.where else None for r in replies[len(specs) :]]

    launch(debugger, program, env=env)
    for spec in specs:
        [location] = debugger.resolve_location(spec)
        debugger.insert_breakpoint(location.address)
    lines = []
    for _ in specs:
        debugger.resume()
        stop = events.wait_for(Stopped, timeout=20)
        assert stop.address is not None
        position = debugger.source_position(stop.address)
        assert position is not None
        lines.append(position.line)
    assert lines == gdb_lines == [line_of(m) for m in BY_ADDRESS]


# --- C++ -----------------------------------------------------------------------------------

CPP_SPECS = ["ns::Counter::add", "ns::over", "ns::twice", "ns::twice<int>", "ns::bump"]


@pytest.fixture(scope="module")
def cpp_program(more: MoreBuilder) -> Path:
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    return more.build_cpp("src_cpp")


@pytest.fixture(scope="module")
def cpp_gdb(cpp_program: Path) -> dict[str, GdbReply]:
    if gdb_path() is None:
        pytest.skip("gdb not installed: it is the oracle")
    return gdb_breaks(cpp_program, CPP_SPECS)


@pytest.mark.parametrize(
    ("spec", "count"),
    [
        ("ns::Counter::add", 1),
        ("ns::over", 2),
        ("ns::twice", 2),
        ("ns::twice<int>", 1),
        ("ns::bump", 1),
    ],
)
def test_cpp_qualified_overloaded_and_template_names(
    debugger: Any, cpp_program: Path, cpp_gdb: dict[str, GdbReply], spec: str, count: int
) -> None:
    launch(debugger, cpp_program)
    locations = debugger.resolve_location(spec)
    base = main_base(debugger)
    expected = gdb_locations(cpp_gdb["info"], CPP_SPECS.index(spec) + 1)
    assert len(expected) == count, cpp_gdb["info"].output
    assert sorted((loc.address - base, loc.function) for loc in locations) == sorted(expected)
    for location in locations:
        assert location.source is not None
        assert os.path.basename(location.source.path) == "src_cpp.cpp"


def test_cpp_method_line_and_template_line_bind_everywhere(
    debugger: Any, cpp_program: Path
) -> None:
    launch(debugger, cpp_program)
    [method] = debugger.resolve_location("ns::Counter::add")
    assert method.source is not None and method.source.line == marker_line(CPP, "method")
    # One source line, two template instances: a file:line binds to both.
    instances = debugger.resolve_location(f"src_cpp.cpp:{marker_line(CPP, 'twice')}")
    assert sorted(loc.function or "" for loc in instances) == [
        "ns::twice<double>(double)",
        "ns::twice<int>(int)",
    ]
    assert debugger.resolve_location("ns::no_such_method") == []


# --- Rust ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rust_program(more: MoreBuilder) -> Path:
    if find_rustc() is None:
        pytest.skip("rustc not installed")
    return more.build_rust("src_rust")


@needs_gdb
def test_rust_path_resolves_like_gdb(debugger: Any, rust_program: Path) -> None:
    spec = "src_rust::module::function"
    gdb = gdb_breaks(rust_program, [spec])
    launch(debugger, rust_program)
    [location] = debugger.resolve_location(spec)
    [expected] = breakpoint_addresses(gdb[spec])
    assert location.address - main_base(debugger) == expected
    assert location.function == spec
    assert location.source is not None and location.source.line == marker_line(RUST, "rust_fn")


def test_debug_info_is_read_once_across_runs_and_again_for_a_rebuilt_file(
    debugger: Any, builder: Builder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # gdb's `file` then `run` (and MI clients, which load the program before running it)
    # launch twice: the program's index and decoded line tables serve both launches. A
    # program rebuilt at the same path between runs is read anew.
    from aliceserver.debuggers.symbols.dwarf.index import DebugInfo

    program = tmp_path / "prog"
    loads: list[str] = []
    original = DebugInfo.load.__func__  # type: ignore[attr-defined]

    def counting(cls: type[DebugInfo], image: Any, **options: Any) -> DebugInfo | None:
        loads.append(image.path)
        return original(cls, image, **options)  # type: ignore[no-any-return]

    monkeypatch.setattr(DebugInfo, "load", classmethod(counting))
    program.write_bytes(builder.build("src_basic").read_bytes())
    program.chmod(0o755)
    for _run in range(2):
        launch(debugger, program)
        [leaf] = debugger.resolve_location("leaf")
        assert leaf.source is not None and leaf.source.line == line_of("leaf")
        [main] = debugger.resolve_location("main")  # kept with the debug info: see below
        assert main.source is not None and os.path.basename(main.source.path) == "src_basic.c"
        debugger.kill()
    assert loads.count(str(program)) == 1

    other = PROGRAMS_DIR / "src_lines.c"
    os.unlink(program)  # a new file, as a linker writes it
    program.write_bytes(builder.build("src_lines").read_bytes())
    program.chmod(0o755)
    launch(debugger, program)
    [main] = debugger.resolve_location("main")
    assert main.source is not None and os.path.basename(main.source.path) == other.name
    assert loads.count(str(program)) == 2
