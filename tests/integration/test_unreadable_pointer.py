"""A pointer member under a null pointer cannot be read itself. gdb errors on it in an
expression (`Cannot access memory at address 0x0`, no `(T *)` prefix), and as a var object
child counts its children by its type with an empty value; ours gave the error text as a
value and no children (found by conformance/generated.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.batch import assert_like_gdb, needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.gdb import gdb_env
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

SOURCE = "unreadable_pointer.c"
COMMANDS = ("-var-create v * g_holder", "-var-list-children --all-values v",
            "-var-list-children --all-values v.link", "-var-info-num-children v.link.direct",
            "-var-evaluate-expression v.link.direct", "-data-evaluate-expression g_holder.link->direct",
            "-data-evaluate-expression g_holder.link->inner")


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("unreadable_pointer", flags=("-g", "-O0"))


def _records(program: Path, *, gdb: bool) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb, env=gdb_env())
    try:
        mi.prompt()
        mi.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, 'main')}")
        mi.ok("-exec-run")
        mi.stopped()
        found: list[object] = []
        for command in COMMANDS:
            result, _ = mi.command(command)
            found.append((result.cls, result.results))
        return found
    finally:
        mi.close()


def test_mi_like_gdb(prog: Path) -> None:
    ours, gdb = _records(prog, gdb=False), _records(prog, gdb=True)
    assert ours == gdb
    assert "Cannot access memory at address 0x0" in repr(ours)


def test_console_like_gdb(prog: Path) -> None:
    commands = [f"break {SOURCE}:{marker_line(SOURCE, 'main')}", "run", "print g_holder.link->direct",
                "output g_holder.link->inner", "print *g_holder.link", "print &g_holder.link->direct"]
    args = [arg for command in commands for arg in ("-ex", command)]
    got = assert_like_gdb([*args, str(prog)], prog.parent)
    assert "(struct leaf *)" not in got.stderr
