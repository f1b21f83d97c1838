"""C++ as gdb 13 reads it across units: a class with virtual methods, which g++ defines
in the debug info of its first virtual method's unit alone, is printed, browsed and
measured where another unit only declares it (it was `<incomplete type>`); a struct's
reference members print as `@0x...` (gdb shows what a reference refers to only at the top);
a static constexpr double shows its value (its DWARF constant is a block: it was
`<optimized out>`); and `break` reads a parameter list as gdb does: typedefs replaced (`Stamp`, `std::string`),
built-in types by their one name (`long int`), `const` where the demangler puts it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.batch import assert_like_gdb
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.core_backend import core_of_stop
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

SOURCE = PROGRAMS_DIR / "cpp_split_class.cpp"
MAIN = marker_line(SOURCE, "main")
LOCATION = f"cpp_split_class.cpp:{MAIN}"
REGISTRY = '{_vptr.Registry = 0x0 <vtable for Registry+16>, size = 3, label = "reg"}'
VALUES = ["print session", "print *registry", "print registry->label", "print session.registry.size",
          "ptype registry", "whatis session.registry", "print sizeof(session.registry)",
          "print session.settings", "print session.hits", "info locals", "print/x session"]  # fmt: skip
BREAKS = ["break touch(Stamp, const std::string&)", "break touch(long int, std::string const&)",
          "break touch(long, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)",
          "break touch(Stamp, std::string)", "info breakpoints"]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    flags = (*CPP_FLAGS, f"-I{PROGRAMS_DIR}")
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_split_class", flags, also=["cpp_split_class_key"])


def gdb_outputs(program: Path, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, LOCATION, commands)


@pytest.mark.both_backends
def test_values_of_a_class_defined_in_another_unit(program: Path, backend: str, tmp_path: Path) -> None:
    expected = gdb_outputs(program, VALUES)
    assert "size = 3" in expected[1] and "@0x" in expected[0] and "level" not in expected[0]
    assert "static scale = 1.5" in expected[1]  # a double's in-class constant (a block)
    got = console_at(program, LOCATION, VALUES, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(VALUES, got, strict=True)) == list(zip(VALUES, expected, strict=True))


def test_break_reads_parameter_types_as_gdb(program: Path) -> None:
    args = [arg for command in [f"break {LOCATION}", "run", *BREAKS] for arg in ("-ex", command)]
    got = assert_like_gdb([*args, str(program)], program.parent)
    assert got.stdout.count("in touch(long, std::__cxx11::basic_string<char") == 3
    assert 'Function "touch(Stamp, std::string)" not defined.' in got.stderr


def test_dap_browses_the_class(program: Path) -> None:
    """A DAP client opens the struct holding the class and the class's members."""
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, program, breakpoints={SOURCE: [MAIN]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        found = client.call("evaluate", {"expression": "*registry", "frameId": frame, "context": "watch"})
        assert "size = 3" in found["result"] and found["variablesReference"] > 0
        members = {v["name"]: v["value"] for v in client.variables(found["variablesReference"])}
        assert members["size"] == "3" and members["label"] == '"reg"'
        client.assert_valid()


def test_mi_evaluates_a_reference_to_its_address(program: Path) -> None:
    """MI's -data-evaluate-expression prints with gdb's deref_ref off: a reference is its
    address alone (`@0x...`); -stack-list-locals and the console show what it refers to."""
    script = [f"-break-insert {LOCATION}", "-exec-run", "-data-evaluate-expression session.hits",
              "-data-evaluate-expression session.settings", "-data-evaluate-expression session",
              "-stack-list-locals --all-values", '-interpreter-exec console "print session.hits"',
              "-gdb-exit"]  # fmt: skip
    expected, got = (mi_lines(argv, program, script) for argv in (GDB_MI, OURS_MI))
    assert any(line.startswith('^done,value="@0x') for line in expected)
    assert got == expected


GDB_MI = [str(gdb_path()), "-nx", "-q", "-i=mi"]
OURS_MI = [sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi"]


def mi_lines(argv: list[str], program: Path, script: list[str]) -> list[str]:
    done = subprocess.run([*argv, str(program)], input="\n".join(script) + "\n", capture_output=True,
                          text=True, timeout=120, env=gdb_env())  # fmt: skip
    return [line for line in done.stdout.splitlines() if line.startswith(("^done,value", "^done,locals", '~"$'))]
