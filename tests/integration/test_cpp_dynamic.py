"""C++ dynamic types (gdb's `set print object`) on a hierarchy with single, multiple and
virtual inheritance and a template: the console and MI var objects against gdb 13 with
print object on and off, DAP variables against lldb-vscode-16 (which shows dynamic types)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.core_backend import core_of_stop
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session
from tests.support.gdb import gdb_env, gdb_outputs_at, gdb_path
from tests.support.mi_console import console_at
from tests.support.mi_grammar import parse_record

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.both_backends,
]
needs_gdb = pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle")

SOURCE = PROGRAMS_DIR / "cpp_dynamic.cpp"
LINE = marker_line(SOURCE, "total")
LOCATION = f"cpp_dynamic.cpp:{LINE}"

# s: Shape * to a Rect; r: Shape & to a Label; named: Named * 16 bytes into a Label;
# holder.shape: Shape * to a Box<int>; all: Shape ** (all[1] a Label); cube: Shape * to
# the virtual base of a Cube; plain: a Shape itself.
PRINTS = [
    "print s", "print *s", "print r", "print named", "print *named", "print holder",
    "print *holder.shape", "print holder.shape", "print all", "print *all[1]", "print all[1]",
    "print cube", "print *cube", "print plain", "print *plain", "print s->width",
    "print (*s).width", "print s->id", "print *(geo::Rect *)s", "whatis s", "whatis *s",
    "whatis r", "whatis named", "whatis plain", "info locals",
]  # fmt: skip


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_dynamic")


def gdb_outputs(program: Path, commands: list[str]) -> list[str]:
    return gdb_outputs_at(program, LOCATION, commands)


@needs_gdb
@pytest.mark.parametrize("setting", ["on", "off"])
def test_console_matches_gdb(program: Path, setting: str, backend: str, tmp_path: Path) -> None:
    commands = [f"set print object {setting}", *PRINTS]
    expected = gdb_outputs(program, commands)
    assert any("geo::Rect" in e for e in expected), expected  # the oracle ran
    got = console_at(program, LOCATION, commands, gdb_env(), core_of_stop(backend, tmp_path))
    assert list(zip(commands, got, strict=False)) == list(zip(commands, expected, strict=True))


VAROBJS = ["s", "r", "named", "holder.shape", "all[1]", "cube", "plain", "*s"]


def mi_var_objects(argv: list[str], setting: str) -> list[dict[str, Any]]:
    """-var-create's type, and its value's distance from -data-evaluate-expression's (the
    static pointer), for each of VAROBJS through `argv` (gdb or ours)."""
    lines = [f"-break-insert {LOCATION}", "-exec-run", f"-gdb-set print object {setting}"]
    for expression in VAROBJS:
        lines += [f"-var-create - * {expression}", f"-data-evaluate-expression {expression}"]
    lines.append("-gdb-exit")
    done = subprocess.run(
        argv, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60,
        env=gdb_env(),
    )  # fmt: skip
    created: list[dict[str, Any]] = []
    for line in done.stdout.splitlines():
        if line.startswith("^done,name="):
            record = parse_record(line)
            created.append({key: record.results.get(key) for key in ("type", "value")})
        elif line.startswith("^done,value=") and created and "static" not in created[-1]:
            created[-1]["static"] = parse_record(line).results.get("value")
    for entry in created:
        if str(entry["type"]).endswith("*"):
            entry["moved"] = int(str(entry["value"]), 16) - int(str(entry.get("static")), 16)
        del entry["value"], entry["static"]
    return created


@needs_gdb
@pytest.mark.parametrize("setting", ["on", "off"])
def test_var_objects_match_gdb(program: Path, setting: str) -> None:
    """With print object on, a pointer's var object has the dynamic type and points at the
    full object (named: 16 bytes before the Named subobject; cube: its virtual base)."""
    gdb = mi_var_objects([str(gdb_path()), "-nx", "-q", "-i=mi", str(program)], setting)
    ours = mi_var_objects([sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi", str(program)], setting)
    assert len(gdb) == len(VAROBJS)
    assert list(zip(VAROBJS, ours, strict=False)) == list(zip(VAROBJS, gdb, strict=True))


# --- DAP, against lldb-vscode-16 ------------------------------------------------------------
def _child_name(name: str) -> str:
    # Our base-class children are named as gdb prints them (`<geo::Shape>`), lldb's bare.
    return name[1:-1] if name.startswith("<") and name.endswith(">") else name


def dap_tree(argv: list[str], program: Path, **launch: Any) -> dict[str, Any]:
    """Each frame variable's type and its children's (name, type), vtable pointers left out
    (lldb-vscode hides them)."""
    with DapClient.spawn(argv) as client:
        start_session(client, program, breakpoints={SOURCE: [LINE]},
                      launch=launch_arguments(program, **launch))  # fmt: skip
        thread = client.threads()[0]["id"]
        frame = client.stack_trace(thread, 0, 1)[0]["id"]
        tree: dict[str, Any] = {}
        for scope in client.scopes(frame):
            if not scope["name"].lower().startswith(("local", "arg")):
                continue
            for var in client.variables(scope["variablesReference"]):
                kids = []
                if var.get("variablesReference") and var["name"] != "holder":
                    kids = [(_child_name(k["name"]), k.get("type"))
                            for k in client.variables(var["variablesReference"])
                            if not k["name"].startswith("_vptr")]  # fmt: skip
                tree[var["name"]] = (var.get("type"), kids)
        return tree


@pytest.fixture(scope="module")
def lldb_tree(program: Path) -> dict[str, Any]:
    lldb = find_lldb_vscode()
    if lldb is None:
        pytest.skip("lldb-vscode-16 not found (Debian package lldb-16)")
    return dap_tree([lldb], program)


def test_dap_variables_match_lldb_vscode(program: Path, lldb_tree: dict[str, Any]) -> None:
    ours = dap_tree(alice_argv(), program)
    names = ["s", "r", "cube", "plain"]
    assert {n: lldb_tree[n] for n in names} == {n: ours[n] for n in names}
    # A Shape ** (a raw array's start): its pointee is the Rect * (lldb names it `*all`).
    assert [t for _, t in lldb_tree["all"][1]] == [t for _, t in ours["all"][1]] == ["geo::Rect *"]
    # A Named * 16 bytes into a Label: lldb-vscode lists the Label's members but keeps the
    # declared type and address on the variable (its evaluate says geo::Label * at the
    # Label's address). We say the Label everywhere, as gdb's print object does.
    assert lldb_tree["named"][1] == ours["named"][1]
    assert ours["named"][0] == "geo::Label *"
    assert lldb_tree["s"][0] == "geo::Rect *"  # the reference adapter shows dynamic types


def test_dap_dynamic_types_can_be_turned_off(program: Path) -> None:
    ours = dap_tree(alice_argv(), program, dynamicTypes=False)
    assert ours["s"][0] == "geo::Shape *"
    assert ours["named"][1] == [("tag", "int")]
