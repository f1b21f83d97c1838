"""DWARF constants read by their form and type, as gdb reads them: array bounds in 1- and
2-byte forms (char path[256] is 256 long, not empty), enumerators past a form's sign bit,
bitfields past bit 127; print, whatis, ptype, sizeof and info locals through the MI
console, and the engine's frame_variables, against gdb on the same program."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from aliceserver.debuggers.events import Stopped
from aliceserver.debuggers.model import VariableScope
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_rustc
from tests.support.core_backend import core_of_stop
from tests.support.events import EventLog
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path, name_values, run_gdb
from tests.support.mi_console import console_at
from tests.support.session import launch

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.both_backends,
]

SOURCE = PROGRAMS_DIR / "const_forms.c"
LOCATION = f"const_forms.c:{marker_line(SOURCE, 'print')}"

ARRAYS = [
    "print path", "whatis path", "ptype path", "print sizeof(path)", "print sizeof path",
    "print a1", "whatis a1", "print sizeof(a1)",
    "print a127", "whatis a127", "print a128", "whatis a128", "print sizeof(a128)",
    "print a255", "whatis a255", "print sizeof(a255)",
    "whatis s32767", "print sizeof(s32767)", "print s32767",
    "whatis buf32768", "print sizeof(buf32768)", "print buf32768",
    "whatis buf65535", "print sizeof(buf65535)", "print buf65535",
    "whatis buf65536", "print sizeof(buf65536)", "print buf65536", "print &buf65536",
    "whatis *huge", "ptype huge", "print huge", "print sizeof(*huge)",
    "whatis f->data", "print sizeof(struct flex)", "print sizeof(f->n)",
]  # fmt: skip
ENUMS_AND_BITS = [
    "print e1", "print e2", "print e3", "print eb", "print el",
    "print/d e1", "print/d e2", "print/d eb", "print/d el", "print/x eb",
    "print (enum small)40000", "print (enum big)4294967295", "print (enum low)-129",
    "print (enum small)200", "print S_B == 40000", "print B_MAX", "print/d B_MAX",
    "print L_MIN", "print/d L_MIN", "print S_NEG + 0",
    "print b", "print b.lo", "print b.hi", "print b.sgn", "print/x b.wide",
    "whatis b.wide", "print sizeof(b)", "print &b.pad[15]",
]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return builder.build("const_forms")


def gdb_outputs(program: Path, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, LOCATION, commands)


@pytest.mark.parametrize("commands", [ARRAYS, ENUMS_AND_BITS], ids=["arrays", "enums-bits"])
def test_console_matches_gdb(program: Path, commands: list[str], backend: str, tmp_path: Path) -> None:
    expected = gdb_outputs(program, commands)
    assert expected[0].startswith("$1 = "), expected[0]  # the oracle ran
    got = console_at(program, LOCATION, commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=False)) == list(zip(commands, expected, strict=False))


def test_frame_variables_match_gdb(
    debugger: Any, events: EventLog, builder: Builder, program: Path
) -> None:
    names = ["path", "a1", "a127", "a128", "a255", "s32767", "b", "f", "e1", "e2", "e3", "eb", "el"]
    replies = run_gdb(
        program, [f"break {LOCATION}", "run", "info locals", *[f"whatis {n}" for n in names]],
        env=gdb_env(),
    )  # fmt: skip
    types = {n: r.output.strip().removeprefix("type = ") for n, r in zip(names, replies[3:], strict=True)}
    launch(debugger, program, env=gdb_env())
    [location] = debugger.resolve_location(LOCATION)
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=20)
    found = debugger.frame_variables(stop.thread_id, 0, VariableScope.LOCALS)
    assert [(v.name, v.value) for v in found] == name_values(replies[2])
    assert {v.name: v.type for v in found if v.name in types} == types
    by_name = {v.name: v for v in found}
    assert by_name["path"].indexed_children == 256 and by_name["a255"].indexed_children == 255


def test_rust_negative_discriminants(debugger: Any, events: EventLog, builder: Builder) -> None:
    """A variant is chosen by its discriminant read as the discriminant's (signed) type;
    gdb 13 itself fails here ("Could not find active enum variant")."""
    if find_rustc() is None:
        pytest.skip("rustc not installed")
    program = MoreBuilder(builder.cache_dir).build_rust("rust_discr")
    launch(debugger, program, env=gdb_env())
    line = marker_line(PROGRAMS_DIR / "rust_discr.rs", "show")
    [location] = debugger.resolve_location(f"rust_discr.rs:{line}")
    debugger.insert_breakpoint(location.address)
    debugger.resume()
    stop = events.wait_for(Stopped, timeout=20)
    found = debugger.frame_variables(stop.thread_id, 0, VariableScope.LOCALS)
    values = {v.name: v.value for v in found}
    assert values == {  # qualified as gdb prints the variants it finds
        "low": "rust_discr::Level::Low(7)", "mid": "rust_discr::Level::Mid(9)",
        "high": "rust_discr::Level::High", "neg": "rust_discr::Wide::Neg(11)",
        "pos": "rust_discr::Wide::Pos(12)",
    }  # fmt: skip
