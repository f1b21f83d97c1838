"""Var objects as gdb 13's own testsuite checks them (gdb.mi/mi2-var-child.exp,
mi-var-cmd.exp), against gdb's records on a program of ours:
- the members of an unnamed struct/union have gdb's path: through the nearest named
  ancestor, joined by `.` (`(*(handle)).width`), where ours went through `(*(...))`;
- a char pointer that cannot be followed still has its child (`*names`, by its type), and
  a pointer to a struct that cannot be read itself its members, and an array there its
  elements;
- -var-set-frozen was ignored: -var-update * now passes a frozen var object and its
  children by, they keep their values until an explicit -var-update reaches them (also
  after -var-set-frozen 0);
- gdb says `Attempt to use a type name as an expression.` on its error stream for
  `-var-create - * int`, makes a var object of an expression that cannot be read with its
  type alone (`**0`: an int, no value), and refuses one it cannot make before it looks at
  the name (ours said `Duplicate variable object name`);
- a var object of a frame of a program run again is out of scope until that frame is
  back (ours stayed silent), and a floating one whose type changed in another frame says
  `type_changed="true"` with its new type and child count;
- with print object on, a `T * const` pointer keeps its const on its dynamic type."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.build import Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_env
from tests.support.mi_client import MiClient

pytestmark = [needs_gdb, pytest.mark.timeout(120)]

SOURCE = "varobj_gdb_checks.c"
ANONYMOUS = ("-var-create h * handle", "-var-list-children h", "-var-list-children h.*handle",
             "-var-list-children h.*handle.1_anonymous",
             "-var-info-path-expression h.*handle.1_anonymous",
             "-var-info-path-expression h.*handle.1_anonymous.width",
             "-var-info-path-expression h.*handle.1_anonymous.label",
             "-var-list-children h.*handle.1_anonymous.2_anonymous",
             "-var-list-children h.*handle.1_anonymous.2_anonymous.1_anonymous",
             "-var-info-path-expression h.*handle.1_anonymous.2_anonymous.1_anonymous.names",
             "-var-list-children h.*handle.1_anonymous.2_anonymous.1_anonymous.names",
             "-var-list-children h.*handle.1_anonymous.2_anonymous.1_anonymous.names.*names",
             "-var-info-path-expression h.*handle.1_anonymous.2_anonymous.1_anonymous.names.*names",
             "-var-info-expression h.*handle.1_anonymous.2_anonymous.1_anonymous.names.*names.**names",
             "-var-evaluate-expression h.*handle.1_anonymous.width",
             "-var-list-children h.*handle.1_anonymous.2_anonymous.1_anonymous.corners",
             "-var-list-children --all-values h.*handle.1_anonymous.2_anonymous.1_anonymous.corners.*corners",
             "-var-list-children --all-values h.*handle.1_anonymous.2_anonymous.1_anonymous.corners.*corners.**corners",
             "-var-info-path-expression h.*handle.1_anonymous.2_anonymous.1_anonymous.corners.*corners.**corners.y",
             "-var-list-children --all-values h.*handle.1_anonymous.2_anonymous.1_anonymous.corners.*corners.**corners.marks",
             "-var-info-path-expression h.*handle.1_anonymous.2_anonymous.1_anonymous.corners.*corners.**corners.marks.2")
FROZEN_SETUP = ("-var-create C * counts", "-var-list-children C", "-var-list-children C.nested",
                "-var-create L * counts.left", "-var-set-frozen C 1", "-var-set-frozen L 1",
                "-var-set-frozen L 2")
FROZEN_STOP = ("-var-update *", "-var-evaluate-expression C.left", "-var-evaluate-expression C.nested.inner",
               "-var-evaluate-expression L", "-var-update C.nested.inner", "-var-update C.nested",
               "-var-evaluate-expression C.nested.outer", "-var-evaluate-expression C.left",
               "-var-update L")
# unfrozen after the program ran: the values kept stay until the next -var-update
FROZEN_LAST = ("-var-set-frozen C 0", "-var-evaluate-expression C.nested.inner", "-var-evaluate-expression C.left",
               "-var-update *", "-var-evaluate-expression C.left", "-var-evaluate-expression L",
               "-var-create N * counts.nested.outer", "-var-assign N 7", "-var-update N", "-var-assign N 8",
               "-var-update N")  # an assignment of the value it has is no change to gdb


def _session(program: Path, *, gdb: bool, stops: list[tuple[str, tuple[str, ...]]]) -> list[object]:
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb, env=gdb_env())
    try:
        mi.prompt()
        found: list[object] = []
        for marker, commands in stops:
            mi.ok(f"-break-insert {SOURCE}:{marker_line(SOURCE, marker)}")
            mi.ok("-exec-continue" if found else "-exec-run")
            mi.stopped()
            for command in commands:
                result, _ = mi.command(command)
                found.append((command, result.cls, result.results))
        return found
    finally:
        mi.close()


def _scope_session(program: Path, *, gdb: bool) -> list[object]:
    touch, first = (f"-break-insert {SOURCE}:{marker_line(SOURCE, name)}" for name in ("touch", "end"))
    script = [touch, "-exec-run", "-var-create - * int", "-var-create - * **0", "-var-create P * base",
              "-var-create F @ base", "-var-create P * counts", "-break-delete", first, "-exec-continue",
              "-var-update F", "-var-update F", "-interpreter-exec console kill", touch, "-exec-run",
              "-var-update P", "-interpreter-exec console kill", "-break-delete", first, "-exec-run",
              "-var-update P", "-var-update P", "-break-delete", touch, "-exec-run", "-var-update P"]
    mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb, env=gdb_env())
    try:
        mi.prompt()
        found: list[object] = []
        for command in script:
            result, seen = mi.command(command)
            if command in ("-exec-run", "-exec-continue"):
                mi.stopped()
                continue
            if command.startswith("-var"):  # its record and what gdb said on its error stream
                found.append((command, result.cls, result.results, [line for line in seen if line.startswith("&")]))
        return found
    finally:
        mi.close()


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("varobj_gdb_checks", flags=("-g", "-O0"))


def test_anonymous_members_and_unreadable_pointers_like_gdb(prog: Path) -> None:
    stops = [("first", ANONYMOUS)]
    ours, gdb = _session(prog, gdb=False, stops=stops), _session(prog, gdb=True, stops=stops)
    assert ours == gdb
    assert "(*(handle)).width" in repr(ours)


def test_frozen_like_gdb(prog: Path) -> None:
    stops = [("first", FROZEN_SETUP), ("second", FROZEN_STOP), ("third", FROZEN_LAST)]
    ours, gdb = _session(prog, gdb=False, stops=stops), _session(prog, gdb=True, stops=stops)
    assert ours == gdb
    updates = [repr(results) for command, _, results in ours if command == "-var-update *"]  # type: ignore[misc]
    assert "C.left" not in updates[0] and "C.left" in updates[1]  # frozen at the second stop only


def test_create_scope_and_type_changes_like_gdb(prog: Path) -> None:
    ours, gdb = _scope_session(prog, gdb=False), _scope_session(prog, gdb=True)
    assert ours == gdb
    assert 'in_scope\', \'false' in repr(ours) and "type_changed', 'true" in repr(ours)


CONST_POINTERS = ("-gdb-set print object on", "-var-create F * fixed", "-var-create V * viewed",
                  "-var-create S * shape", "-var-list-children F", "-data-evaluate-expression fixed")


def test_const_pointer_dynamic_type_like_gdb(builder: Builder) -> None:
    """gdb.mi/mi-var-rtti.exp: a `T * const` keeps its const on its dynamic type."""
    if find_cxx() is None:
        pytest.skip("g++ not installed")
    program = MoreBuilder(builder.cache_dir).build_cpp("varobj_rtti_const")
    found = []
    for gdb in (False, True):
        mi = MiClient(["-i=mi", "-q", "-nx", str(program)], cwd=program.parent, gdb=gdb, env=gdb_env())
        try:
            mi.prompt()
            mi.ok(f"-break-insert varobj_rtti_const.cpp:{marker_line('varobj_rtti_const.cpp', 'measure')}")
            mi.ok("-exec-run")
            mi.stopped()
            records = [(command, mi.command(command)[0]) for command in CONST_POINTERS]
            # the types (the stack's addresses differ between gdb's environment and ours)
            found.append([(command, record.cls, _without_values(record.results)) for command, record in records])
        finally:
            mi.close()
    ours, gdb = found
    assert ours == gdb
    assert "Circle * const" in repr(ours)


def _without_values(results: object) -> object:
    """`results` with each value (an address here) cut to its `(type)` prefix."""
    text = repr(results)
    return re.sub(r"0x[0-9a-f]+", "ADDRESS", text)
