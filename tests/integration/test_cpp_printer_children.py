"""Values shown through libstdc++'s pretty printers in the browsing front ends: DAP
variables (child counts and element values as lldb-vscode-16's formatters give them),
MI var objects field by field as gdb 13's dynamic var objects, frame lines as gdb's
`print frame-arguments scalars`, the agent's tools, and a page of a container of ten
million elements read without reading the rest."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.gdb import gdb_env, gdb_path, printed_value, run_gdb

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
    pytest.mark.both_backends,
]

SOURCE = PROGRAMS_DIR / "cpp_printers.cpp"
MAIN = marker_line(SOURCE, "main")
BIG_SOURCE = PROGRAMS_DIR / "cpp_big_containers.cpp"
CONTAINERS = ["vi", "m", "st", "um", "lst", "dq", "str", "up", "sp", "opt", "none", "empty"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_printers", (*CPP_FLAGS, "-std=c++20"))


def _printers_installed(program: Path) -> None:
    done = subprocess.run([str(gdb_path()), "-nx", "-batch", "-ex", f"break cpp_printers.cpp:{MAIN}",
                           "-ex", "run", "-ex", "print vi", str(program)],
                          capture_output=True, text=True, timeout=60, env=gdb_env())  # fmt: skip
    if "std::vector of length" not in done.stdout:
        pytest.skip("gdb prints no libstdc++ printers here (not installed?)")


# --- DAP, against lldb-vscode-16 ------------------------------------------------------------
def dap_children(argv: list[str], program: Path) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """Each container's value line and its children's (name, value), `[raw]` left out;
    a child with children of its own (lldb's map elements are pairs) as its members."""
    with DapClient.spawn(argv) as client:
        start_session(client, program, breakpoints={SOURCE: [MAIN]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        scope = next(s for s in client.scopes(frame) if s["name"].startswith("Local"))
        found: dict[str, tuple[str, list[tuple[str, str]]]] = {}
        for var in client.variables(scope["variablesReference"]):
            if var["name"] not in CONTAINERS:
                continue
            kids: list[tuple[str, str]] = []
            reference = var.get("variablesReference", 0)
            if reference and var["name"] != "str":  # lldb lists a string's raw members
                for kid in client.variables(reference):
                    if kid["name"] == "[raw]":
                        continue
                    value = kid["value"].strip()
                    if kid.get("variablesReference") and "@" in value:  # lldb's pair summary
                        inner = client.variables(kid["variablesReference"])
                        value = ", ".join(k["value"].strip() for k in inner)
                    kids.append((kid["name"], value))
            found[var["name"]] = (var["value"].strip(), kids)
        return found


def test_dap_children_match_lldb_vscode(program: Path) -> None:
    _printers_installed(program)
    lldb = find_lldb_vscode()
    if lldb is None:
        pytest.skip("lldb-vscode-16 not found (Debian package lldb-16)")
    theirs = dap_children([lldb], program)
    ours = dap_children(alice_argv(), program)
    # Elements: the same count and values (lldb's map element is the pair `"a", 1`, ours
    # is the row `["a"]` = 1: the same key and value).
    for name in ("vi", "st", "lst", "dq"):
        assert [v for _, v in ours[name][1]] == [v for _, v in theirs[name][1]], name
        assert [n for n, _ in ours[name][1]] == [n for n, _ in theirs[name][1]], name
    assert [f"{n[1:-1]}, {v}" for n, v in ours["m"][1]] == [v for _, v in theirs["m"][1]]
    # One child holding the pointer or the value, named as the printer names it.
    for name in ("up", "sp", "opt"):
        assert len(ours[name][1]) == len(theirs[name][1]) == 1, name
    assert int(ours["up"][1][0][1], 16) == int(theirs["up"][1][0][1], 16)
    assert int(ours["sp"][1][0][1], 16) == int(theirs["sp"][1][0][1], 16)
    assert ours["opt"][1] == [("[contained value]", "3")] and theirs["opt"][1] == [("Value", "3")]
    assert ours["none"][1] == theirs["none"][1] == [] and ours["empty"][1] == theirs["empty"][1] == []
    assert ours["str"] == ('"hello"', []) and theirs["str"][0] == '"hello"'
    # gdb's summary lines (lldb writes `size=3`); its unordered_map formatter misreads
    # libstdc++'s (`size=0`): ours lists the one element as gdb prints it, {[1] = 100}.
    assert ours["vi"][0] == "std::vector of length 3, capacity 3" and theirs["vi"][0] == "size=3"
    assert ours["m"][0] == "std::map with 2 elements"
    assert ours["um"] == ("std::unordered_map with 1 element", [("[1]", "100")])


def test_dap_paging_raw_and_evaluate(program: Path) -> None:
    _printers_installed(program)
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, program, breakpoints={SOURCE: [MAIN]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        big = client.call("evaluate", {"expression": "big", "frameId": frame, "context": "watch"})
        assert big["result"] == "std::vector of length 250, capacity 250"
        assert big["indexedVariables"] == 250 and big["namedVariables"] == 1
        page = client.variables(big["variablesReference"], filter="indexed", start=240, count=20)
        assert [v["name"] for v in page] == [f"[{i}]" for i in range(240, 250)]
        [raw] = client.variables(big["variablesReference"], filter="named")
        assert raw["name"] == "[raw]"
        members = client.variables(raw["variablesReference"])
        assert members[0]["name"] == "<std::_Vector_base<int, std::allocator<int> >>"
        nested = client.call("evaluate", {"expression": "nested", "frameId": frame, "context": "hover"})
        [row] = client.variables(nested["variablesReference"], filter="indexed", start=0, count=1)
        assert (row["name"], row["value"], row["indexedVariables"]) == ("[1]", "std::vector of length 2, capacity 2", 2)
        client.assert_valid()


# --- MI var objects and frame lines, against gdb 13 ------------------------------------------
MI_SCRIPT = [
    "-var-create - * vi",  # before -enable-pretty-printing: raw, as gdb's
    "-var-list-children var1",
    "-enable-pretty-printing",
    "-var-create - * vi", "-var-create - * m", "-var-create - * str", "-var-create - * up",
    "-var-create - * opt", "-var-create - * none", "-var-create - * dq", "-var-create - * empty",
    "-var-create - * big", "-var-create - * nested",
    "-var-list-children --all-values var2", "-var-list-children --all-values var3",
    "-var-list-children --all-values var4", "-var-list-children --all-values var5",
    "-var-list-children --all-values var6", "-var-list-children --all-values var8",
    "-var-list-children --all-values var10 0 5", "-var-list-children --all-values var10 5 7",
    "-var-info-num-children var10",
    "-var-list-children --all-values var11", "-var-list-children --all-values var11.[1]",
    "-var-set-visualizer var2 None", "-var-list-children var2",
    "-var-set-visualizer var2 gdb.default_visualizer", "-var-list-children --all-values var2",
    "-var-set-update-range var10 0 8",
    "-var-update --all-values *",
]  # fmt: skip


def mi_replies(argv: list[str], program: Path, location: str, script: list[str]) -> list[str]:
    lines = [f"-break-insert {location}", "-exec-run", *script, "-gdb-exit"]
    done = subprocess.run(argv + [str(program)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=120, env=gdb_env())  # fmt: skip
    out = [line for line in done.stdout.splitlines()
           if line.startswith(("^done", "^error", "*stopped", '~"Breakpoint', '~"#'))]  # fmt: skip
    return [_normal(line) for line in out[1:]]  # after the breakpoint's


def _normal(line: str) -> str:
    if line.startswith("*stopped"):  # the frame's args (its addresses and core differ)
        found = re.search(r"args=(\[.*?\]),file=", line)
        return found.group(1) if found else line
    return line


GDB = [str(gdb_path()), "-nx", "-q", "-i=mi"]
OURS = [sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi"]


def test_var_objects_match_gdb(program: Path) -> None:
    _printers_installed(program)
    location = f"cpp_printers.cpp:{MAIN}"
    expected = mi_replies(GDB, program, location, MI_SCRIPT)
    got = mi_replies(OURS, program, location, MI_SCRIPT)
    assert len(got) == len(expected)
    for command, theirs, ours in zip(["stop line", "*stopped", *MI_SCRIPT], expected, got, strict=True):
        assert (command, ours) == (command, theirs)


def test_frame_lines_match_gdb(program: Path) -> None:
    """`Breakpoint 1, show (numbers=std::vector of length 3, capacity 3 = {...},
    name="hello", count=33)`, bt and *stopped's args; -stack-list-arguments 1 in full."""
    _printers_installed(program)
    location = f"cpp_printers.cpp:{marker_line(SOURCE, 'callee')}"
    script = ["-stack-list-arguments 1", "-stack-list-arguments 2", '-interpreter-exec console "bt 1"']
    expected = mi_replies(GDB, program, location, script)
    assert any("numbers=std::vector of length 3, capacity 3 = {...}" in line for line in expected)
    assert mi_replies(OURS, program, location, script) == expected


# --- the agent's tools -------------------------------------------------------------------
Body = Callable[[Any], Awaitable[None]]


@pytest.fixture
def in_memory() -> Iterator[Callable[[Body], None]]:
    from tests.support.agent_client import in_memory_server

    with in_memory_server() as run:
        yield run


def test_agent_summaries_and_pages(program: Path, in_memory: Callable[[Body], None]) -> None:
    _printers_installed(program)
    names = ["vi", "m", "up", "big"]
    replies = run_gdb(program, [f"break cpp_printers.cpp:{MAIN}", "run", *(f"print {n}" for n in names)],
                      env=gdb_env())  # fmt: skip
    printed = {name: printed_value(reply) for name, reply in zip(names, replies[2:], strict=True)}

    async def body(tools: Any) -> None:
        await tools.call("debug_launch", program=str(program), breakpoints=[f"cpp_printers.cpp:{MAIN}"])
        stop = await tools.call("debug_continue", timeout=60)
        shown = {name: stop["locals"][name] for name in names if name != "big"}  # past the 25 shown
        assert shown == {name: printed[name] for name in shown}  # as gdb's print
        big = (await tools.call("debug_variables", path="big", start=100, count=5))["variable"]
        assert big["value"].endswith("…") and printed["big"].startswith(big["value"][:-1])  # cut to 240
        assert big["children"] == 250
        assert [(m["name"], m["value"]) for m in big["members"]] == [(f"[{i}]", "1") for i in range(100, 105)]
        m = (await tools.call("debug_variables", path="m"))["variable"]
        assert [(k["name"], k["value"]) for k in m["members"]] == [('["a"]', "1"), ('["b"]', "2")]

    in_memory(body)


# --- a page of ten million: only the page is read --------------------------------------------
def test_first_page_reads_only_the_page(
    builder: Builder, debugger: Any, events: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vector's value line and its first 100 children (the map's first 100 pairs) pull
    that many items from the printer's children iterator, not ten million (nor a million)."""
    from aliceserver.debuggers.events import StopReason
    from tests.support.printer_pulls import count_pulled_children
    from tests.support.session import continue_to_stop, launch

    pulled = count_pulled_children(monkeypatch)
    launch(debugger, MoreBuilder(builder.cache_dir).build_cpp("cpp_big_containers"))
    [place] = debugger.resolve_location(f"cpp_big_containers.cpp:{marker_line(BIG_SOURCE, 'ready')}")
    debugger.insert_breakpoint(place.address)
    stop = continue_to_stop(debugger, events, StopReason.BREAKPOINT, timeout=120)
    for name, size, step in (("big", 10_000_000, 1), ("tree", 1_000_000, 2)):
        pulled[0] = 0
        info = debugger.evaluate(name, stop.thread_id)
        assert info.printer is not None and info.indexed_children == size
        page = debugger.variable_children(info.reference, 0, 100 * step)
        assert len(page) == 100 * step
        assert pulled[0] <= 100 * step + 4, (name, pulled[0])


def dap_types(argv: list[str], program: Path, names: list[str]) -> dict[str, str]:
    with DapClient.spawn(argv) as client:
        start_session(client, program, breakpoints={SOURCE: [MAIN]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        scope = next(s for s in client.scopes(frame) if s["name"].startswith("Local"))
        return {v["name"]: v.get("type", "") for v in client.variables(scope["variablesReference"])
                if v["name"] in names}


def test_dap_types_match_lldb_vscode(program: Path) -> None:
    """DAP `type` fields keep the full names, as lldb-vscode-16 shows them (and gdb's MI
    var objects): the type printers' short names are whatis's and ptype's alone."""
    _printers_installed(program)
    lldb = find_lldb_vscode()
    if lldb is None:
        pytest.skip("lldb-vscode-16 not found (Debian package lldb-16)")
    names = ["vi", "up", "sp", "str", "holder", "nested", "garbage", "empty", "big"]
    theirs = dap_types([lldb], program, names)
    assert theirs["vi"] == "std::vector<int, std::allocator<int> >"
    assert dap_types(alice_argv(), program, names) == theirs


def test_garbage_container_is_bounded(program: Path) -> None:
    """A vector read from garbage (10^12 elements at an unreadable address): MI var
    objects as gdb's (a dynamic array whose pages are errors), `print` fails as gdb's,
    and listing every child or paging in DAP ends, within a bound (gdb's listing hangs)."""
    _printers_installed(program)
    location = f"cpp_printers.cpp:{MAIN}"
    script = ["-enable-pretty-printing", "-var-create - * *garbage",
              "-var-list-children --all-values var1 0 3", "-var-info-num-children var1",
              '-interpreter-exec console "print *garbage"']  # fmt: skip
    expected = mi_replies(GDB, program, location, script)
    assert mi_replies(OURS, program, location, script) == expected
    everything = mi_replies(OURS, program, location, [*script[:2], "-var-list-children var1"])[-1]
    listed = re.match(r'\^done,numchild="(\d+)"', everything)
    assert listed is not None and 200 <= int(listed.group(1)) <= 20_003
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, program, breakpoints={SOURCE: [MAIN]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        garbage = client.call("evaluate", {"expression": "*garbage", "frameId": frame, "context": "watch"})
        assert 0 < garbage["indexedVariables"] < 1 << 31
        page = client.variables(garbage["variablesReference"], filter="indexed", start=1000, count=3)
        assert [v["name"] for v in page] == ["[1000]", "[1001]", "[1002]"]
        assert all("Cannot access memory" in v["value"] for v in page)
        client.assert_valid()
