"""evaluateName of children shown through pretty printers in DAP: `v[3]` of a vector
(through libstdc++'s operator[] xmethod), `vp[1].x` for a member of an element, and none
where no expression names the child (a std::list's or std::map's elements, a tuple's, the
`[raw]` view). Each one given must evaluate to the value shown. (lldb-vscode-16 gives
`vi._M_impl._M_start->[0]` and the like, which do not parse, so it is no oracle here.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.adapter_process import alice_argv
from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import CPP_FLAGS, MoreBuilder, find_cxx
from tests.support.dap_client import DapClient
from tests.support.dap_session import start_session
from tests.support.gdb import gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: its printers are used"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

SOURCE = PROGRAMS_DIR / "cpp_printers.cpp"
CONTAINERS = ["vi", "vp", "vb", "vs", "dq", "lst", "m", "msv", "st", "tup", "vvi", "nested", "up", "opt"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_printers", (*CPP_FLAGS, "-std=c++20"))


def _rows(client: DapClient, frame: int) -> list[tuple[str, dict[str, Any]]]:
    """(path, row) of each container and its children and grandchildren."""
    scope = next(s for s in client.scopes(frame) if s["name"].startswith("Local"))
    todo = [(var["name"], var, 0) for var in client.variables(scope["variablesReference"])
            if var["name"] in CONTAINERS]  # fmt: skip
    found = []
    while todo:
        path, row, depth = todo.pop()
        found.append((path, row))
        if row.get("variablesReference") and depth < 2 and row["name"] != "[raw]":  # raw: plain members
            todo += [(f"{path}/{kid['name']}", kid, depth + 1) for kid in client.variables(row["variablesReference"])]
    return found


def test_every_evaluate_name_evaluates_to_the_child(program: Path) -> None:
    with DapClient.spawn(alice_argv()) as client:
        start_session(client, program, breakpoints={SOURCE: [marker_line(SOURCE, "main")]})
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        rows = _rows(client, frame)
        names = {path: row.get("evaluateName") for path, row in rows}
        for path, row in rows:
            if row.get("evaluateName"):
                got = client.call("evaluate", {"expression": row["evaluateName"], "frameId": frame, "context": "watch"})
                assert (path, got["result"], got.get("type")) == (path, row["value"], row.get("type"))
        assert names["vi/[1]"] == "vi[1]" and names["dq/[2]"] == "dq[2]" and names["vs/[0]"] == "vs[0]"
        assert names["vp/[1]/x"] == "vp[1].x" and names["vvi/[1]/[0]"] == "vvi[1][0]"
        for unnamed in ("vi/[raw]", "lst/[1]", 'm/["b"]', "st/[0]", "tup/[1]", "nested/[1]/[0]"):
            assert names[unnamed] is None, unnamed
