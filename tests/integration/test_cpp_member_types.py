"""C++ types gdb shows its own way, against gdb 13 on the same program: pointers to data
members and to (virtual) member functions, template arguments in gdb's canonical spelling
(`std::pair<int const, int>`, `Box<unsigned long, 1>`, `Ptr<&g_target>`), static data
members among the fields (print) and in the access groups (MI var objects); the same
with g++'s type units (-fdebug-types-section, DWARF 4 and 5)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.core_backend import core_of_stop
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path
from tests.support.mi_console import console_at

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.both_backends,
]

SOURCE = PROGRAMS_DIR / "cpp_member_types.cpp"
LOCATION = f"cpp_member_types.cpp:{marker_line(SOURCE, 'use')}"
FLAGS = {
    "plain": ("-g", "-O0"),
    "dwarf4-type-units": ("-g", "-O0", "-gdwarf-4", "-fdebug-types-section"),
    "dwarf5-type-units": ("-g", "-O0", "-gdwarf-5", "-fdebug-types-section"),
}
MEMBER_POINTERS = [
    f"{command} {name}" for name in ("pm", "pm_null", "pf", "pv", "pf_null")
    for command in ("print", "whatis", "ptype")
] + ["print/x pm", "print/x pf", "print &pm", "print &pf", "print sizeof(pf)"]  # fmt: skip
TEMPLATES = [
    "print &pr", "print &table", "print &words", "print &fn", "print &arr", "print &box",
    "print &ubox", "print &flag", "print &ptr", "print &nested", "whatis box", "whatis ubox",
    "whatis flag", "whatis ptr", "whatis nested", "whatis pr", "print pr", "print table",
    "print words", "print nested",
]  # fmt: skip
STATICS = ["print counted", "print p", "print *&p", "print geo::Plain::count"]
MI = [
    "-var-create c * counted", "-var-list-children --all-values c",
    "-var-list-children --all-values c.public", "-var-list-children --all-values c.private",
    "-var-info-path-expression c.public.total",
    "-var-create p * p", "-var-list-children --all-values p",
    "-var-list-children --all-values p.public",
    "-var-create pm * pm", "-var-create pf * pf", "-var-create pv * pv", "-var-create pn * pf_null",
    "-var-list-children pf", "-var-info-type pf", "-var-create pr * pr", "-var-create box * box",
    "-stack-list-locals --simple-values",
]  # fmt: skip


@pytest.fixture(scope="module", params=list(FLAGS))
def program(request: pytest.FixtureRequest, builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_member_types", FLAGS[request.param])


def gdb_outputs(program: Path, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, LOCATION, commands)


@pytest.mark.parametrize("commands", [MEMBER_POINTERS, TEMPLATES, STATICS],
                         ids=["member-pointers", "templates", "statics"])  # fmt: skip
def test_console_matches_gdb(program: Path, commands: list[str], backend: str, tmp_path: Path) -> None:
    expected = gdb_outputs(program, commands)
    assert not any(e.startswith("No symbol") for e in expected), expected  # the oracle ran
    got = console_at(program, LOCATION, commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=False)) == list(zip(commands, expected, strict=False))


def mi_replies(argv: list[str], program: Path) -> list[str]:
    lines = [f"-break-insert {LOCATION}", "-exec-run", *MI, "-gdb-exit"]
    done = subprocess.run(argv + [str(program)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=120, env=gdb_env())  # fmt: skip
    out = [line for line in done.stdout.splitlines() if line.startswith(("^done", "^error"))]
    return out[1:]  # after the breakpoint's (its address may be relocated or not)


def test_var_objects_match_gdb(program: Path) -> None:
    expected = mi_replies([str(gdb_path()), "-nx", "-q", "-i=mi"], program)
    got = mi_replies([sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi"], program)
    assert len(expected) == len(MI)
    assert list(zip(MI, got, strict=False)) == list(zip(MI, expected, strict=False))
