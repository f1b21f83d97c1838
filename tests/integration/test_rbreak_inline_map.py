"""`rbreak` on many functions in a first session (an empty index cache) finds every
function's inlined copies by one walk of the program's units (inlinemap.py), not by one
byte search and unit walk per name: the breakpoints, their inlined copies' locations
included, are gdb's, and those the search per name finds.

Real build: a C program generated with 80 functions, each calling two static inline
helpers that gcc -O2 inlines into them (one also kept out of line, its address taken).
A sitecustomize hook notes each search per name in a file (inlines.units_mentioning of the
program's DWARF; outofline._search of any module's, as ld.so's debug file for functions
its symbol table lacks); with RBREAK_PER_NAME set it leaves the one walk unused
(inlinemap.MANY raised), so that both ways are compared on the same program.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Tuple

pytestmark = [needs_gdb, pytest.mark.timeout(300)]

_FUNCTIONS = 80
_HELPERS = """
static inline __attribute__((always_inline)) int f_mix(int v)
{
    int r = v * 7;
    return r ^ (v >> 2);
}

static inline int f_twice(int v)
{
    return v + v;
}

int (*volatile f_keep)(int) = f_mix;  /* an out-of-line copy too */
"""
_FUNCTION = """
__attribute__((noinline)) int f_{n}(int v)
{{
    int m = f_mix(v + {n});
    return m + f_twice(m);
}}
"""
_MAIN = """
int main(int argc, char **argv)
{{
    int total = argc;
{calls}
    return total & 1;
}}
"""
_HOOK = """
import os

_notes = os.environ.get("RBREAK_SEARCHES")
if _notes:
    from aliceserver.debuggers.symbols.dwarf import inlines

    _search = inlines.units_mentioning

    def _noted(sections, unit_offsets, text):
        with open(_notes, "a") as notes:
            notes.write(f"{sections.path} {text}\\n")
        return _search(sections, unit_offsets, text)

    inlines.units_mentioning = _noted

    from aliceserver.debuggers.symbols.dwarf import outofline

    _defined = outofline._search

    def _noted_defined(info, finder, key):
        with open(_notes, "a") as notes:
            notes.write(f"defined {info.sections.path} {key}\\n")
        return _defined(info, finder, key)

    outofline._search = _noted_defined
    if os.environ.get("RBREAK_PER_NAME"):
        from aliceserver.debuggers.symbols.dwarf import inlinemap

        inlinemap.MANY = 1 << 30
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("rbreak-inline-map")
    calls = "\n".join(f"    total += f_{n}(total);" for n in range(_FUNCTIONS))
    text = (
        _HELPERS
        + "".join(_FUNCTION.format(n=n) for n in range(_FUNCTIONS))
        + _MAIN.format(calls=calls)
    )
    (root / "many.c").write_text(text)
    subprocess.run(["gcc", "-g", "-O2", "many.c", "-o", "many"], cwd=root, check=True)
    (root / "hooks").mkdir()
    (root / "hooks" / "sitecustomize.py").write_text(_HOOK)
    return root / "many"


Place = tuple[str, str, str]  # (address, function, line)


def _places(entry: object) -> list[Place]:
    """A breakpoint's places: its locations', or its own."""
    assert isinstance(entry, Tuple)
    locations = entry.get("locations")
    rows = locations.values if isinstance(locations, List) else [entry]
    return sorted(
        (str(r.get("addr")), str(r.get("func")), str(r.get("line")))
        for r in rows
        if isinstance(r, Tuple)
    )


def _session(
    program: Path, tmp_path: Path, tool: str, per_name: bool = False
) -> tuple[list[list[Place]], list[Place], list[str]]:
    """The places of the breakpoints `rbreak ^f_` sets (gdb: none set), then of `break
    f_mix`'s; the searches per name made for the program (ours: a session with an empty
    cache directory of its own)."""
    notes = tmp_path / f"searches-{tool}-{per_name}"
    hooks = [str(program.parent / "hooks"), os.environ.get("PYTHONPATH", "")]
    env = dict(os.environ, ALICESERVER_CACHE_DIR=str(tmp_path / f"cache-{per_name}"), RBREAK_SEARCHES=str(notes),
               PYTHONPATH=os.pathsep.join(p for p in hooks if p))  # fmt: skip
    if per_name:
        env["RBREAK_PER_NAME"] = "1"
    client = MiClient(
        ["-q", "-nx", "-i=mi", str(program)], cwd=program.parent, gdb=tool == "gdb", env=env
    )
    try:
        client.prompt()
        listed = []
        if tool != "gdb":
            client.ok('-interpreter-exec console "rbreak ^f_"')
            table = client.ok("-break-list").results["BreakpointTable"]
            assert isinstance(table, Tuple) and isinstance(body := table["body"], List)
            listed = [_places(entry) for entry in body.values]
        mix = _places(client.ok("-break-insert f_mix").results["bkpt"])
    finally:
        client.close()
    searched = notes.read_text().split("\n") if notes.exists() else []
    return listed, mix, [line for line in searched if line.startswith((f"{program} ", "defined "))]


def test_rbreak_in_a_first_session_finds_inlined_copies_in_one_walk(
    program: Path, tmp_path: Path
) -> None:
    _none, theirs, _ = _session(program, tmp_path, "gdb")
    ours, mix, searched = _session(program, tmp_path, "ours")
    per_name, mix_per_name, searched_per_name = _session(program, tmp_path, "ours", per_name=True)
    assert ours == per_name and len(ours) == _FUNCTIONS + 1  # f_0..f_79, f_mix
    # `break f_mix` after: its out-of-line copy and one inlined in each f_N, as gdb's
    assert mix == theirs == mix_per_name
    assert len(mix) == _FUNCTIONS + 1
    assert searched == []  # no search per name: the one walk answered all, `break` after too
    assert (
        len([line for line in searched_per_name if not line.startswith("defined ")]) >= _FUNCTIONS
    )
