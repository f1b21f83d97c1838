"""The DAP half of printers_diff: each library variable's children in the Locals scope.

Against lldb-vscode-16 (C++ only; its libstdc++ formatters are its own, so summary lines
differ by design and the comparison is of children): the number of children and each
element's value, names left out (lldb calls a unique_ptr's child `pointer`, the printer
`get()`). A child whose value is a summary (lldb: `size=2`, `Point @ 0x...`; ours: gdb's
`std::vector of length 2...`, `{x = 1, y = 2}`) is compared through its own children; a
map's row (ours `["a"] = 1`, lldb's pair `first`/`second`) as `{key, value}`; pointers by
address, written alike (dap_diff.normalize_value).

Against gdb's children of the same printers (both languages; for Rust the only reference,
lldb-vscode-16 showing Rust's raw members): our DAP children are gdb's
`-var-list-children` children, by name (a map's key/value pair of children is one row
named `[key]`) and value (a child gdb shows as `{...}` must be expandable).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from conformance.dap_diff import normalize_value
from conformance.printers_diff import (
    Difference,
    MiRun,
    Outcome,
    PrintersProgram,
    Subject,
    program_env,
)
from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.build import marker_line
from tests.support.dap_client import DapClient, DapError
from tests.support.dap_session import launch_arguments, start_session

TIMEOUT = 60.0
DEPTH = 3  # levels of children read below each variable (lldb: map, pair, vector)
RAW = "[raw]"  # our printer child holding the value without its printer


@dataclass(frozen=True)
class Node:
    name: str
    value: str
    reference: int
    children: tuple[Node, ...]


def read_tree(client: DapClient, variable: Mapping[str, Any], depth: int) -> Node:
    reference = int(variable.get("variablesReference") or 0)
    children: tuple[Node, ...] = ()
    if reference and depth < DEPTH:
        children = tuple(read_tree(client, child, depth + 1)
                         for child in client.variables(reference) if child["name"] != RAW)
    return Node(str(variable["name"]), str(variable.get("value", "")).strip(), reference, children)


def dap_locals(argv: Sequence[str], program: PrintersProgram, binary: Path) -> dict[str, Node]:
    """The program's subjects as one adapter shows them at the `@bp:main` line."""
    wanted = {s.variable for s in program.subjects}
    with DapClient.spawn(argv, cwd=binary.parent, env=program_env(binary)) as client:
        line = marker_line(program.source, "main")
        start_session(client, binary, breakpoints={program.source: [line]},
                      launch=launch_arguments(binary), timeout=TIMEOUT)
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        scope = next(s for s in client.scopes(frame) if s["name"].startswith("Local"))
        return {str(v["name"]): read_tree(client, v, 0)
                for v in client.variables(scope["variablesReference"]) if v["name"] in wanted}


# --- against lldb-vscode ------------------------------------------------------------------

_POINTER = re.compile(r"^0x[0-9a-fA-F]+$")
_LLDB_SUMMARY = re.compile(r"^size=\d+$| @ 0x[0-9a-f]+$|^Has Value=")


def element(node: Node, lldb: bool, key: str = "") -> str:
    """One child's value as both adapters' formatting reduces it: a leaf's text, else
    `{...}` of its children's (`{}`: an empty container)."""
    value = node.value
    leaf = (not node.reference or value.startswith('"') or _POINTER.match(value) is not None
            or (lldb and _LLDB_SUMMARY.search(value) is None))
    text = (normalize_value(value, exact_pointers=True) if leaf
            else "{" + ", ".join(element(child, lldb) for child in node.children) + "}")
    return "{" + f"{key}, {text}" + "}" if key else text


def _map_key(name: str) -> str:
    return name[1:-1] if name.startswith("[") and name.endswith("]") else name


def compare_lldb(program: PrintersProgram, mi: MiRun, lldb: Mapping[str, Node],
                 ours: Mapping[str, Node]) -> tuple[int, list[Difference]]:
    agree, found = 0, []
    for subject in program.subjects:
        theirs, mine = lldb.get(subject.variable), ours.get(subject.variable)
        if theirs is None or mine is None:
            found.append(_absent("dap-lldb", program, subject, theirs is not None, mine is not None))
            continue
        is_map = _hint(mi, subject) == "map"
        expected = [element(child, lldb=True) for child in theirs.children]
        got = [element(child, lldb=False, key=_map_key(child.name) if is_map else "")
               for child in mine.children]
        checks = [("count", str(len(expected)), str(len(got)))]
        checks += [(f"children[{i}]", a, b) for i, (a, b) in enumerate(zip(expected, got, strict=False))]
        agree += _judge("dap-lldb", program, subject, checks, found)
    return agree, found


# --- against gdb's children of the same printers -----------------------------------------

def _hint(mi: MiRun, subject: Subject) -> str:
    step = mi.var_create(subject)
    result = step.result if step is not None else None
    hint = result.get("displayhint", "") if isinstance(result, dict) else ""
    return hint if isinstance(hint, str) else ""


@dataclass(frozen=True)
class Row:
    """One of gdb's children as a DAP variable shows it."""

    name: str
    value: str
    expandable: bool  # children of its own (numchild, or a printer's)


def gdb_rows(mi: MiRun, subject: Subject) -> list[Row] | None:
    """gdb's children of the subject's var object: a map's key and value children are one
    row named `[key]`."""
    step = mi.gdb_children(subject)
    result = step.result if step is not None else None
    if not isinstance(result, dict):
        return None
    children = result.get("children", [])
    rows = [Row(_dap_name(str(c.get("exp", ""))), str(c.get("value", "")),
                c.get("numchild", "0") != "0" or c.get("dynamic") == "1")
            for c in (children if isinstance(children, list) else []) if isinstance(c, dict)]
    if _hint(mi, subject) != "map":
        return rows
    return [replace(value, name=f"[{key.value}]")
            for key, value in zip(rows[::2], rows[1::2], strict=False)]


def _dap_name(exp: str) -> str:
    """An array element is `[0]` in DAP (lldb-vscode's and ours), `0` in gdb's MI."""
    return f"[{exp}]" if exp.isdigit() else exp


def compare_gdb(program: PrintersProgram, mi: MiRun,
                ours: Mapping[str, Node]) -> tuple[int, list[Difference]]:
    agree, found = 0, []
    for subject in program.subjects:
        expected, mine = gdb_rows(mi, subject), ours.get(subject.variable)
        if expected is None or mine is None:
            found.append(_absent("dap-gdb", program, subject, expected is not None, mine is not None))
            continue
        checks = [("count", str(len(expected)), str(len(mine.children)))]
        for index, (row, child) in enumerate(zip(expected, mine.children, strict=False)):
            checks.append((f"children[{index}].name", row.name, child.name))
            if row.value == "{...}":  # gdb leaves it to the children: compared by having some
                checks.append((f"children[{index}].expandable", "yes" if row.expandable else "no",
                               "yes" if child.reference else "no"))
            else:
                checks.append((f"children[{index}].value", row.value, child.value))
        agree += _judge("dap-gdb", program, subject, checks, found)
    return agree, found


def _absent(protocol: str, program: PrintersProgram, subject: Subject, theirs: bool, mine: bool) -> Difference:
    """A variable one side's Locals lack: nothing of it can be compared."""
    return _difference(protocol, program, subject, "variable", "locals",
                       "present" if theirs else "<absent>", "present" if mine else "<absent>")


def _judge(protocol: str, program: PrintersProgram, subject: Subject, checks: list[tuple[str, str, str]],
           found: list[Difference]) -> int:
    """How many (path, theirs, ours) checks of a variable's children agree; the others go
    to `found`."""
    agree = 0
    for path, theirs, mine in checks:
        if theirs == mine:
            agree += 1
        else:
            found.append(_difference(protocol, program, subject, "children", path, theirs, mine))
    return agree


def _difference(protocol: str, program: PrintersProgram, subject: Subject, check: str,
                path: str, theirs: str, mine: str) -> Difference:
    return Difference(protocol, program.language, subject.variable, subject.type, check,
                      f"variables {subject.variable}", path, theirs, mine)


def dap_outcomes(program: PrintersProgram, binary: Path,
                 mi: MiRun) -> tuple[list[Outcome], list[str]]:
    """Our DAP children against gdb's and (C++) against lldb-vscode-16's."""
    started = time.monotonic()
    try:
        ours = dap_locals(alice_argv(), program, binary)
    except (DapError, AssertionError, OSError, LookupError) as error:
        return [_broken(program, "dap-gdb", "ours", error)], []
    agree, found = compare_gdb(program, mi, ours)
    outcomes = [Outcome(program, "dap-gdb", agree + len(found), found,
                        time.monotonic() - started)]
    if program.language != "c++":
        return outcomes, []
    lldb = find_lldb_vscode()
    if lldb is None:
        return outcomes, ["dap-lldb: lldb-vscode-16 not found (Debian package lldb-16)"]
    started = time.monotonic()
    try:
        theirs = dap_locals([lldb], program, binary)
    except (DapError, AssertionError, OSError, LookupError) as error:
        return [*outcomes, _broken(program, "dap-lldb", "lldb", error)], []
    agree, found = compare_lldb(program, mi, theirs, ours)
    outcomes.append(Outcome(program, "dap-lldb", agree + len(found), found,
                            time.monotonic() - started))
    return outcomes, []


def _broken(program: PrintersProgram, protocol: str, side: str, error: Exception) -> Outcome:
    """A session that failed: one difference, so the run fails."""
    text = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    difference = Difference(protocol, program.language, "", "", "session", "(session)", side,
                            "" if side == "ours" else text, text if side == "ours" else "")
    return Outcome(program, protocol, 1, [difference], note=f"{side} broke: {text[:80]}")
