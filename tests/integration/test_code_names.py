"""Addresses named as gdb 13 names them at -O2 (tests/programs/code_names.c): a function
gcc folded into an identical one by the function owning the code, gcc's local names
(`calls.0`, `scaled.constprop.0`) by their source names in values and as they are in x/a,
and the dynamic loader's local functions from its separate debug file (libc6-dbg)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.core_backend import core_of_stop
from tests.support.gdb import gdb_env, gdb_outputs_at
from tests.support.mi_console import console_at

pytestmark = pytest.mark.both_backends

SOURCE = "code_names.c"
FLAGS = ("-g", "-O2", "-fno-omit-frame-pointer", "-pthread")


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("code_names", flags=FLAGS)


def gdb_outputs(program: Path, location: str, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, location, commands)


def function_of(frame_text: str) -> str:
    found = re.match(r"#\d+\s+(?:0x[0-9a-f]+ in )?(\S+) \(", frame_text)
    assert found, frame_text
    return found.group(1)


@needs_gdb
def test_a_folded_function_is_named_by_the_function_owning_its_code(program: Path, backend: str, tmp_path: Path) -> None:
    # gcc made twin_b an alias of twin_a's code: gdb's location, stop and frame say twin_a.
    commands = ["info breakpoints", "frame"]
    expected = gdb_outputs(program, "twin_b", commands)
    got = console_at(program, "twin_b", commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert " in twin_a at " in expected[0]
    assert got[0] == expected[0]
    assert function_of(got[1]) == function_of(expected[1]) == "twin_a"


@needs_gdb
def test_gcc_local_names_show_as_gdb_shows_them(program: Path, backend: str, tmp_path: Path) -> None:
    # print shows source names (<scaled+28>, <calls>), x/a and /a the symbol as it is.
    location = f"{SOURCE}:{marker_line(SOURCE, 'leaf')}"
    commands = ["up", "print $pc", "x/i $pc", "print count_ptr", "print (void *)((char *)count_ptr + 1)",
                "x/a &count_ptr", "print/a count_ptr", "output count_ptr"]  # fmt: skip
    expected = gdb_outputs(program, location, commands)
    got = console_at(program, location, commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert "<scaled+" in expected[1] and "<calls>" in expected[3] and "<calls.0>" in expected[5]
    assert list(zip(commands, got, strict=True))[1:] == list(zip(commands, expected, strict=True))[1:]


@needs_gdb
def test_the_loaders_local_functions_are_named(program: Path, backend: str, tmp_path: Path) -> None:
    # ld.so's .symtab is stripped; its debug file (by build id) names _dl_relocate_object.
    shown = gdb_outputs(program, "main", ["print (void *)&_dl_relocate_object"])[0]
    found = re.search(r"0x[0-9a-f]+", shown)
    if found is None:
        pytest.skip("gdb knows no _dl_relocate_object (no libc6-dbg)")
    address = int(found.group(0), 16)
    commands = [f"print (void *){address:#x}", f"print (void *){address + 4312:#x}", f"x/i {address + 4:#x}"]
    expected = gdb_outputs(program, "main", commands)
    assert "<_dl_relocate_object+4312>" in expected[1]
    assert console_at(program, "main", commands, gdb_env(), core_of_stop(backend, tmp_path)) == expected
