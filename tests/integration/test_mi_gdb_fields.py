"""MI fields that follow gdb 13 (what conformance/mi_diff.py found), checked without gdb:
`file=` as the debug info names it, thread target-ids, -stack-list-variables order, char
pointer var objects, -var-update after -var-assign, address expressions in memory reads,
and a `next` that ends on a breakpoint."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Tuple

pytestmark = pytest.mark.timeout(120)

SOURCE = "mi_prog.c"
PROGRAM_OUTPUT = ("total=100 x=4 y=6 name=origin", 'say "hi"', "\tgrüß")


@pytest.fixture(scope="module")
def prog(builder: Builder) -> Path:
    return builder.build("mi_prog")


def start(prog: Path, *, cwd: Path | None = None) -> MiClient:
    client = MiClient(["-i=mi", "-q", str(prog)], cwd=cwd or prog.parent)
    client.prompt()
    return client


@pytest.fixture
def mi(prog: Path) -> Iterator[MiClient]:
    client = start(prog)
    yield client
    assert client.close() == 0
    client.check(PROGRAM_OUTPUT)


def line(name: str) -> int:
    return marker_line(SOURCE, name)


def run_to(mi: MiClient, location: str) -> Tuple:
    mi.ok(f"-break-insert {location}")
    mi.command("-exec-run")
    stop = mi.stopped()
    mi.prompt()
    frame = stop.results["frame"]
    assert isinstance(frame, Tuple)
    return frame


def test_file_is_the_compiled_name_absolute(mi: MiClient) -> None:
    """The tests build with the source's absolute path: gdb's file= is that path."""
    bkpt = mi.ok("-break-insert add").results["bkpt"]
    assert isinstance(bkpt, Tuple)
    assert bkpt["file"] == bkpt["fullname"] == str(PROGRAMS_DIR / SOURCE)
    source = mi.ok("-file-list-exec-source-file").results
    assert source["file"] == str(PROGRAMS_DIR / SOURCE)
    assert source["line"] == str(line("main_first") - 9)  # gdb: a `list` around main


def test_file_is_relative_when_compiled_relative(builder: Builder, tmp_path: Path) -> None:
    shutil.copy(PROGRAMS_DIR / SOURCE, tmp_path / SOURCE)
    subprocess.run([builder.compiler, "-g", "-O0", SOURCE, "-o", "prog"], cwd=tmp_path, check=True)
    client = start(tmp_path / "prog", cwd=tmp_path)
    try:
        frame = run_to(client, f"{SOURCE}:{line('loop')}")
        assert frame["file"] == SOURCE
        assert frame["fullname"] == str(tmp_path / SOURCE)
        stack = client.ok("-stack-list-frames").results["stack"]
        assert isinstance(stack, List)
        top = stack.values[0]
        assert isinstance(top, Tuple) and top["file"] == SOURCE
        console = [s for s in client.command('-interpreter-exec console "bt"')[1] if s.startswith("~")]
        assert any(f" at {SOURCE}:{line('loop')}" in s for s in console)
    finally:
        assert client.close() == 0


def test_thread_target_id_and_core(mi: MiClient) -> None:
    run_to(mi, "add")
    threads = mi.ok("-thread-info").results["threads"]
    assert isinstance(threads, List)
    [thread] = threads.values
    assert isinstance(thread, Tuple)
    assert re.fullmatch(r"Thread 0x[0-9a-f]+ \(LWP \d+\)", str(thread["target-id"]))
    assert str(thread["core"]).isdigit()


def test_stack_list_variables_innermost_block_first(mi: MiClient) -> None:
    run_to(mi, "add")
    mi.ok("-stack-select-frame 1")  # main, inside the for loop's block
    found = mi.ok("-stack-list-variables --simple-values").results["variables"]
    assert isinstance(found, List)
    names = [v["name"] for v in found.values if isinstance(v, Tuple)]
    assert names[:3] == ["i", "argc", "argv"]
    assert names[3:] == ["pt", "pp", "arr", "total", "msg"]
    args = [v["name"] for v in found.values if isinstance(v, Tuple) and v.get("arg") == "1"]
    assert args == ["argc", "argv"]


def test_char_pointer_varobj_has_one_child(mi: MiClient) -> None:
    run_to(mi, f"{SOURCE}:{line('print')}")
    var = mi.ok("-var-create - * msg").results
    assert var["numchild"] == "1"
    children = mi.ok(f"-var-list-children --all-values {var['name']}").results["children"]
    assert isinstance(children, List)
    [child] = children.values
    assert isinstance(child, Tuple)
    assert child["exp"] == "*msg" and child["value"] == "115 's'" and child["numchild"] == "0"
    pt = mi.ok("-var-create - * pt").results
    kids = mi.ok(f"-var-list-children --all-values {pt['name']}").results["children"]
    assert isinstance(kids, List)
    numchild = {str(k["exp"]): k["numchild"] for k in kids.values if isinstance(k, Tuple)}
    assert numchild == {"x": "0", "y": "0", "name": "1"}
    argv = mi.ok("-var-create - * argv").results["name"]
    targets = mi.ok(f"-var-list-children {argv}").results["children"]
    assert isinstance(targets, List) and isinstance(targets.values[0], Tuple)
    assert targets.values[0]["exp"] == "*argv"  # gdb names a pointer's target after it


def test_var_update_lists_an_assigned_var_once(mi: MiClient) -> None:
    run_to(mi, f"{SOURCE}:{line('print')}")
    var = mi.ok("-var-create - * total").results["name"]
    assert mi.ok(f"-var-assign {var} 9").results["value"] == "9"
    mi.ok(f"-var-set-format {var} hexadecimal")
    changes = mi.ok("-var-update --all-values *").results["changelist"]
    assert isinstance(changes, List)
    [change] = changes.values
    assert isinstance(change, Tuple) and change["name"] == var and change["value"] == "0x9"
    again = mi.ok("-var-update --all-values *").results["changelist"]
    assert isinstance(again, List) and again.values == []


def test_memory_reads_take_an_array_expression(mi: MiClient) -> None:
    run_to(mi, f"{SOURCE}:{line('print')}")
    address = mi.ok('-data-evaluate-expression "&arr"').results["value"]
    start = re.search(r"0x[0-9a-f]+", str(address))
    assert start is not None
    words = mi.ok('-data-read-memory "arr" x 4 1 4').results
    assert int(str(words["addr"]), 16) == int(start.group(), 16)
    memory = words["memory"]
    assert isinstance(memory, List)
    row = memory.values[0]
    assert isinstance(row, Tuple) and isinstance(row["data"], List)
    assert row["data"].values == ["0x0000000a", "0x00000014", "0x0000001e", "0x00000028"]
    raw = mi.ok("-data-read-memory-bytes arr 16").results["memory"]
    assert isinstance(raw, List) and isinstance(raw.values[0], Tuple)
    assert raw.values[0]["contents"] == "0a000000140000001e00000028000000"
    _, seen = mi.command('-interpreter-exec console "x/4dw arr"')
    assert any(s.endswith(':\\t10\\t20\\t30\\t40\\n"') for s in seen), seen


def test_next_onto_a_breakpoint_reports_its_hit(mi: MiClient) -> None:
    run_to(mi, f"{SOURCE}:{line('loop')}")
    result, seen = mi.command("-exec-next 1")  # round the loop: the for line first
    stop = mi.stopped()
    mi.prompt()
    if stop.results["reason"] == "end-stepping-range":
        mi.command("-exec-next 1")
        stop = mi.stopped()
        mi.prompt()
    assert stop.results["reason"] == "breakpoint-hit"
    assert stop.results["disp"] == "keep" and stop.results["bkptno"] == "1"
    table = mi.ok("-break-list").results["BreakpointTable"]
    assert isinstance(table, Tuple) and isinstance(table["body"], List)
    bkpt = table["body"].values[0]
    assert isinstance(bkpt, Tuple) and bkpt["times"] == "2"
    mi.ok("-break-delete 1")
    mi.command("-exec-continue")
    mi.read_until(lambda s: s.startswith("*stopped"))
