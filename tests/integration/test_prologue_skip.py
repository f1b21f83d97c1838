"""`break FUNCTION` stops where gdb 13 stops: its prologue skip on x86-64, checked against
gdb's own `break` on the same binaries (gcc and g++ at -O0 and optimized, with endbr64 and
with frame pointers kept; clang when it is installed) for functions of every shape:
no locals, many locals, a large frame, a leaf, varargs, a one-line body, stack arguments,
a struct return, a VLA, main with argc/argv, C++ methods, constructors, operators and
templates, and a unit without location lists (gdb then analyses the code)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import CodeLocation, StepKind
from tests.support.build import PROGRAMS_DIR, Builder, compile_cached, marker_line
from tests.support.events import EventLog
from tests.support.gdb import gdb_env, gdb_path, run_gdb
from tests.support.session import continue_to_stop, launch

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.both_backends,
]

C_SOURCE = PROGRAMS_DIR / "prologue_kinds.c"
C_PLAIN = PROGRAMS_DIR / "prologue_kinds_part.c"  # the other unit (test_programs builds X with X_part)
CPP_SOURCE = PROGRAMS_DIR / "prologue_kinds.cpp"
C_FUNCTIONS = [
    "main", "no_locals", "many_locals", "large_frame", "leaf", "varargs", "one_line",
    "many_args", "make_pair", "with_vla", "file_static", "plain_body", "touch",
]  # fmt: skip
CPP_FUNCTIONS = [
    "main", "Counter::Counter", "Counter::bump", "Counter::twice", "Counter::value",
    "Counter::operator+=", "Counter::~Counter", "biggest<int>", "biggest<double>",
]  # fmt: skip
OPTIMIZATIONS = [
    "-O0", "-O1", "-O2", "-O2 -fno-omit-frame-pointer", "-O0 -fcf-protection",
    "-O2 -fcf-protection -fno-omit-frame-pointer", "-O3 -fno-omit-frame-pointer",
    "-O0 -gdwarf-2 -gstrict-dwarf",  # frame bases as location lists, variables without: analysed
]  # fmt: skip
# A row of `info breakpoints`: "1  breakpoint keep y 0x... in f at file:line" or "1.2  y 0x...".
_ROW = re.compile(r"^(\d+)(?:\.\d+)?\s.*?(0x[0-9a-f]+)\s+in\s+\S.*\sat\s+\S+:(\d+)$")


def _version(compiler: str) -> str:
    out = subprocess.run([compiler, "--version"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[0]


def _clang(name: str) -> str | None:
    return shutil.which(f"{name}-16") or shutil.which(name)


def build(builder: Builder, compiler: str, flags: str, cpp: bool) -> Path:
    sources = [CPP_SOURCE] if cpp else [C_SOURCE, C_PLAIN]
    return compile_cached(compiler, _version(compiler), sources[0], ["-g", *flags.split()],
                          builder.cache_dir, {}, sources[1:])  # fmt: skip


def gdb_function_breaks(program: Path, names: list[str]) -> dict[str, list[tuple[int, int]]]:
    """gdb's (link-time address, line) of each location of `break NAME` (before `run`)."""
    command = [gdb_path() or "gdb", "-nx", "-batch"]
    for name in names:
        command += ["-ex", f"break {name}"]
    command += ["-ex", "info breakpoints", str(program)]
    out = subprocess.run(command, capture_output=True, text=True, timeout=120).stdout
    found: dict[int, list[tuple[int, int]]] = {}
    for row in out.splitlines():
        match = _ROW.match(row.strip())
        if match:
            found.setdefault(int(match.group(1)), []).append(
                (int(match.group(2), 16), int(match.group(3)))
            )
    assert len(found) == len(names), out
    return {name: sorted(found[number]) for number, name in enumerate(names, start=1)}


def ours(debugger: Any, program: Path, names: list[str]) -> dict[str, list[tuple[int, int]]]:
    launch(debugger, program)
    [main_module] = [m for m in debugger.modules() if m.is_main]
    found = {}
    for name in names:
        locations = debugger.resolve_location(name)
        assert all(isinstance(x, CodeLocation) and x.source for x in locations), name
        found[name] = sorted((x.address - main_module.base, x.source.line) for x in locations)
    return found


def check_like_gdb(debugger: Any, program: Path, names: list[str]) -> None:
    expected = gdb_function_breaks(program, names)
    assert ours(debugger, program, names) == expected


@pytest.mark.parametrize("flags", OPTIMIZATIONS)
def test_c_functions_break_where_gdb_breaks(debugger: Any, builder: Builder, flags: str) -> None:
    check_like_gdb(debugger, build(builder, builder.compiler, flags, cpp=False), C_FUNCTIONS)


@pytest.mark.parametrize("flags", OPTIMIZATIONS)
def test_first_lines_of_functions_break_where_gdb_breaks(
    debugger: Any, builder: Builder, flags: str
) -> None:
    """`break FILE:LINE` on a function's first line skips its prologue as gdb does (but a
    trusted optimized unit keeps the entry and the line asked for)."""
    heads = ["no_locals_head", "many_locals_brace", "varargs_head", "main_head"]
    specs = [f"prologue_kinds.c:{marker_line(C_SOURCE, head)}" for head in heads]
    check_like_gdb(debugger, build(builder, builder.compiler, flags, cpp=False), specs)


@pytest.mark.parametrize("flags", ["-O0", "-O2", "-O2 -fno-omit-frame-pointer"])
def test_cpp_methods_break_where_gdb_breaks(debugger: Any, builder: Builder, flags: str) -> None:
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("g++ not installed")
    check_like_gdb(debugger, build(builder, compiler, flags, cpp=True), CPP_FUNCTIONS)


@pytest.mark.parametrize("flags", ["-O0", "-O2", "-O2 -fno-omit-frame-pointer"])
def test_clang_prologue_end_rows_like_gdb(debugger: Any, builder: Builder, flags: str) -> None:
    compiler = _clang("clang")
    if compiler is None:
        pytest.skip("clang not installed: its line tables mark prologue_end")
    check_like_gdb(debugger, build(builder, compiler, flags, cpp=False), C_FUNCTIONS)


def test_break_main_stops_before_its_first_call(
    debugger: Any, events: EventLog, builder: Builder
) -> None:
    """`break main` stops at the line of the first call, before it ran (g == 0), as gdb."""
    source = PROGRAMS_DIR / "prologue_main.c"
    program = builder.build("prologue_main")
    [(gdb_address, gdb_line)] = gdb_function_breaks(program, ["main"])["main"]
    launch(debugger, program)
    [location] = debugger.resolve_location("main")
    assert location.source is not None
    assert location.source.line == gdb_line == marker_line(source, "first_call")
    [main_module] = [m for m in debugger.modules() if m.is_main]
    assert location.address - main_module.base == gdb_address
    debugger.insert_breakpoint(location.address)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    assert stop.address == location.address
    g = int.from_bytes(debugger.read_memory(debugger.lookup_symbol("g"), 4), "little")
    assert g == 0


@pytest.mark.parametrize("flags", ["-O0", "-O0 -fcf-protection"])
def test_step_into_a_function_stops_where_gdb_stops(
    debugger: Any, events: EventLog, builder: Builder, flags: str
) -> None:
    """`step` into a function without arguments stops at its first line, not the one after."""
    program = build(builder, builder.compiler, flags, cpp=False)
    replies = run_gdb(program, ["break main", "run", "step"], env=gdb_env())
    gdb_stop = replies[-1].where
    assert gdb_stop is not None
    launch(debugger, program, env=gdb_env())
    [location] = debugger.resolve_location("main")
    debugger.insert_breakpoint(location.address)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT)
    debugger.step(stop.thread_id, StepKind.INTO)
    stepped = events.wait_for(Stopped, timeout=20)
    [top] = debugger.stack_trace(stepped.thread_id, 0, 1)
    assert top.source is not None
    assert (top.function, top.source.line) == (gdb_stop.function, gdb_stop.line)
    assert top.source.line == marker_line(C_SOURCE, "no_locals_body")


def test_past_the_prologue_inside_an_inlined_call_shows_the_call_line(
    debugger: Any, builder: Builder
) -> None:
    """gdb reports the call's line when the skip lands in an always_inline copy."""
    twice_line = marker_line(PROGRAMS_DIR / "src_inline.c", "twice_call") - 1  # its head
    check_like_gdb(debugger, builder.build("src_inline"), ["twice", f"src_inline.c:{twice_line}"])


@pytest.mark.parametrize("flags", ["-O0", "-O0 -fcf-protection"])
def test_functions_without_debug_info_skip_the_frame_setup(
    debugger: Any, builder: Builder, flags: str
) -> None:
    """No line info: gdb still skips `push %rbp; mov %rsp,%rbp` (and endbr64)."""
    program = builder.build("prologue_main", flags=tuple(flags.split()))
    command = [gdb_path() or "gdb", "-nx", "-batch", "-ex", "break main", "-ex", "break f"]
    out = subprocess.run([*command, str(program)], capture_output=True, text=True).stdout
    expected = [int(m, 16) for m in re.findall(r"Breakpoint \d+ at (0x[0-9a-f]+)$", out, re.M)]
    launch(debugger, program)
    [main_module] = [m for m in debugger.modules() if m.is_main]
    found = [loc.address - main_module.base
             for name in ("main", "f") for loc in debugger.resolve_location(name)]  # fmt: skip
    assert found == expected
    assert found != [debugger.lookup_symbol(n) - main_module.base for n in ("main", "f")]
