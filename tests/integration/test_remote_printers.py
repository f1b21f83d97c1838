"""Library values over gdbserver through the printers gdb auto-loads (libstdc++'s from its
auto-load directory, Rust's from the toolchain's lib/rustlib/etc as rust-gdb adds them):
`print`, `info locals` and MI var objects (-var-create, paged -var-list-children,
-var-update) equal gdb 13's over the same kind of stub. The printers read the program's
memory through the stub: many small reads at one stop, served from the stop's lines."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.integration.test_cpp_printer_children import MI_SCRIPT as CPP_MI
from tests.integration.test_cpp_printers import VARIABLES as CPP_VARIABLES
from tests.integration.test_rust_printers import MI_SCRIPT as RUST_MI
from tests.integration.test_rust_printers import VARIABLES as RUST_VARIABLES
from tests.integration.test_rust_printers import rust_gdb_options, without_stderr
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx, find_rustc
from tests.support.gdb import gdb_env, gdb_path
from tests.support.gdbserver import gdbserver

pytestmark = [pytest.mark.timeout(300), pytest.mark.skipif(gdb_path() is None, reason="gdb is the oracle")]
GDB = [str(gdb_path()), "-nx"]
OURS = [sys.executable, "-m", "aliceserver", "-nx"]


def _location(source: str) -> str:
    return f"{source}:{marker_line(PROGRAMS_DIR / source, 'main')}"


@pytest.fixture(scope="module")
def cpp(builder: Builder) -> Path:
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_printers", (*CPP_FLAGS, "-std=c++20"))


@pytest.fixture(scope="module")
def rust(builder: Builder) -> Path:
    if find_rustc() is None:
        pytest.skip("rustc not installed")
    return MoreBuilder(builder.cache_dir).build_rust("rust_printers")


def _console(argv: Sequence[str], program: Path, location: str, commands: Sequence[str],
             sysroot: str = "/") -> str:  # fmt: skip
    """stdout of `-batch`: connect to a fresh gdbserver, stop at `location`, run COMMANDS."""
    env = gdb_env()
    with gdbserver(program, env=env) as server:
        lines = [f"set sysroot {sysroot}", f"target remote {server.address}", f"break {location}", "continue",
                 "echo @@\\n", *commands, "kill"]  # fmt: skip
        args = [word for line in lines for word in ("-ex", line)]
        done = subprocess.run([*argv, "-batch", *args, str(program)], capture_output=True, text=True,
                              timeout=120, env=env, stdin=subprocess.DEVNULL)  # fmt: skip
    return re.sub(r"process \d+", "process N", done.stdout.split("@@\n", 1)[-1])


def _mi(argv: Sequence[str], program: Path, location: str, script: Sequence[str]) -> list[str]:
    """The ^done/^error record of each command of `script`, stopped at `location` over a
    fresh gdbserver (stack addresses as such: only the ones both print the same count)."""
    env = gdb_env()
    with gdbserver(program, env=env) as server:
        lines = ["-gdb-set sysroot /", f"-target-select remote {server.address}", f"-break-insert {location}",
                 "-exec-continue", *script, "-gdb-exit"]  # fmt: skip
        done = subprocess.run([*argv, "-q", "-i=mi", str(program)], input="\n".join(lines) + "\n",
                              capture_output=True, text=True, timeout=120, env=env)  # fmt: skip
    records = [line for line in done.stdout.splitlines() if line.startswith(("^done", "^error"))]
    return [re.sub(r'value="0x[0-9a-f]{8,}"', 'value="<address>"', line) for line in records[2:]]


def test_cpp_print_and_info_locals_like_gdb(cpp: Path) -> None:
    commands = [f"print {name}" for name in CPP_VARIABLES] + ["print/r vi", "print/r up", "info locals"]
    location = _location("cpp_printers.cpp")
    expected = _console(GDB, cpp, location, commands)
    if "std::vector of length 3" not in expected:
        pytest.skip(f"gdb prints no libstdc++ printers here: {expected[:200]}")
    assert _console(OURS, cpp, location, commands) == expected
    assert 'std::map with 2 elements = {["a"] = 1, ["b"] = 2}' in expected


def test_cpp_libraries_read_through_the_stub_load_no_scripts_like_gdb(cpp: Path) -> None:
    """Under the default sysroot `target:` the stub sends libstdc++: gdb 13 auto-loads no
    script for a `target:` objfile (load_auto_scripts_for_objfile), so values are raw."""
    commands = ["next", "print vi"]
    location = _location("cpp_printers.cpp")
    expected = _console(GDB, cpp, location, commands, sysroot="target:")
    assert "_M_start" in expected and "std::vector of length" not in expected
    assert _console(OURS, cpp, location, commands, sysroot="target:") == expected


def test_cpp_var_objects_like_gdb(cpp: Path) -> None:
    location = _location("cpp_printers.cpp")
    expected = _mi(GDB, cpp, location, CPP_MI)
    got = _mi(OURS, cpp, location, CPP_MI)
    assert list(zip(CPP_MI, got, strict=True)) == list(zip(CPP_MI, expected, strict=True))
    assert any('displayhint="map"' in line for line in expected)


def test_rust_print_and_info_locals_like_gdb(rust: Path) -> None:
    commands = [f"print {name}" for name in RUST_VARIABLES] + ["info locals"]
    location = _location("rust_printers.rs")
    expected = without_stderr(_console([*GDB, *rust_gdb_options()], rust, location, commands))
    assert "Vec(size=3) = {1, 2, 3}" in expected  # the printers ran in gdb
    assert _console(OURS, rust, location, commands) == expected


def test_rust_var_objects_like_gdb(rust: Path) -> None:
    location = _location("rust_printers.rs")
    expected = _mi([*GDB, *rust_gdb_options()], rust, location, RUST_MI)
    got = _mi(OURS, rust, location, RUST_MI)
    assert 'displayhint="array",dynamic="1"' in expected[1]
    assert list(zip(RUST_MI, got, strict=True)) == list(zip(RUST_MI, expected, strict=True))
