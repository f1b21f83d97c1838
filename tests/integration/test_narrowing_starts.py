"""`break NAME` in a program never seen: after the byte search of .debug_info has chosen
the units that name NAME (mentions.py), the narrowing to those that may define it
(definers.may_define, inlines.py) looks for each needle from where that search found it
first in the unit, and not at all in a unit that lacks it (mentions.first_hits); before,
it searched each unit whole again for every needle (CPython's 35 units for
PyList_Append: 4.6 MB, three needles).

Real build: `narrowed` defined in one unit and called from five (each a caller with a
declaration naming it), a two-letter static inline function `ab` (its name written in
.debug_info itself, DW_FORM_string) inlined in two. Checked: every search of the
narrowing starts at its needle, or past the unit's end; the breakpoints, stop and
backtrace are gdb's.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.batch import needs_gdb, normalized, ours_cached, theirs

pytestmark = pytest.mark.timeout(120)

_HEADER = """
int narrowed(int v);
static inline int ab(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++)
        s += i ^ (s >> 1);
    return s;
}
"""
_CALLERS = 5
_UNITS = {
    "narrowed.c": '#include "t.h"\nint narrowed(int v) { return v * 7 + 1; }\n',
    **{f"c{n}.c": f'#include "t.h"\nint call{n}(int v) {{ return narrowed(v + {n}) + ab(v); }}\n'
       for n in range(_CALLERS)},
    "main.c": '#include <stdio.h>\n#include "t.h"\n'
    + "".join(f"int call{n}(int v);\n" for n in range(_CALLERS))
    + "int main(int argc, char **argv) { int s = narrowed(argc);\n"
    + "".join(f"  s += call{n}(argc);\n" for n in range(_CALLERS))
    + '  printf("%d\\n", s); return 0; }\n',
}  # fmt: skip
_SESSION = ("-batch", "-nx", "-ex", "break narrowed", "-ex", "break ab", "-ex", "info breakpoints",
            "-ex", "run", "-ex", "bt")  # fmt: skip

# Each search of definers._places, as (needle, where it starts, the unit's size, whether
# the needle is there: a string offset, or the name written inline): written at exit to
# $NARROWING_LOG.
_SITECUSTOMIZE = """
import atexit, json, os

from aliceserver.debuggers.symbols.dwarf import definers, inlines  # (before the bundle's finder)

searches = []
walks = []
places, positions, walk = definers._places, definers._positions, inlines.units_defining


def logged(unit, needle, start):
    # (a name written inline is looked for with NUL and '<' after it, both from where
    # either is first)
    there = unit.startswith(needle if len(needle) == 4 else needle[:-1], start)
    searches.append((needle.hex(), start, len(unit), there))
    return positions(unit, needle, start)


def traced(*args, **kwargs):
    definers._positions = logged
    try:
        return places(*args, **kwargs)
    finally:
        definers._positions = positions


def walked(unit, abbrev, strings, offsets, leaf):
    walks.append(leaf)
    return walk(unit, abbrev, strings, offsets, leaf)


definers._places = traced
inlines.units_defining = walked
atexit.register(lambda: open(os.environ["NARROWING_LOG"], "w").write(json.dumps([searches, walks])))
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("gcc") is None:
        pytest.skip("gcc not found")
    root = tmp_path_factory.mktemp("narrowing")
    (root / "t.h").write_text(_HEADER)
    for name, text in _UNITS.items():
        (root / name).write_text(text)
    subprocess.run(
        ["gcc", "-g", "-O2", "-fno-ipa-icf", *_UNITS, "-o", "prog"], cwd=root, check=True
    )
    (root / "custom").mkdir()
    (root / "custom" / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    return root / "prog"


def _session(
    program: Path, tmp_path: Path
) -> tuple[str, list[tuple[str, int, int, bool]], list[str]]:
    """(stdout, the narrowing's searches, the names whose units it walked) of a first
    session (an empty index cache)."""
    log = tmp_path / "searches.json"
    out = ours_cached(program, _SESSION, tmp_path / "cache", hooks=program.parent / "custom",
                      env={"NARROWING_LOG": str(log), "XDG_CACHE_HOME": str(tmp_path / "xdg")})  # fmt: skip
    searches, walks = json.loads(log.read_text())
    return out, [tuple(entry) for entry in searches], walks


def test_the_narrowing_searches_from_the_needles_first_place(program: Path, tmp_path: Path) -> None:
    out, searches, _walks = _session(program, tmp_path)
    assert "Breakpoint 1, narrowed (v=" in out, out
    # the callers' units and the defining one, each searched for `narrowed`'s string offset
    offsets = [s for s in searches if len(s[0]) == 8 and s[1] < s[2]]
    assert len(offsets) >= _CALLERS + 1, searches
    # each from its needle on (before: from the unit's header on), or not at all
    assert all(found or start >= size for _needle, start, size, found in searches), searches
    # `ab` is written inline: found where the search found it, in the units inlining it
    inline = [s for s in searches if s[0].startswith(b"ab".hex()) and s[1] < s[2]]
    assert len(inline) >= 2, searches


@needs_gdb
def test_the_breakpoints_and_stop_are_gdbs(program: Path, tmp_path: Path) -> None:
    ours, _searches, _walks = _session(program, tmp_path)
    gdb = theirs(list(_SESSION) + [str(program)], program.parent)
    assert normalized(ours) == normalized(gdb.stdout)


def test_a_function_never_inlined_is_told_without_a_walk(program: Path, tmp_path: Path) -> None:
    """No unit holds an abstract instance of `narrowed`: the narrowing tells that from the
    units' bytes first, and walks none of them for its definitions (before: the defining
    unit's top-level DIEs were walked, then dropped for want of an abstract instance).
    `ab`'s units, each inlining it, are walked as before."""
    out, _searches, walks = _session(program, tmp_path)
    assert "Breakpoint 2 at " in out and "(5 locations)" in out, out
    assert "narrowed" not in walks, walks
    assert walks.count("ab") >= _CALLERS, walks  # (and in libc, whose units name `ab` too)


def test_first_hits_take_the_units_in_any_order(program: Path) -> None:
    """mentions.first_hits bisects the units: given out of order, the same first places
    (before: a unit's hits could count for another one, its first one lost)."""
    from aliceserver.debuggers.symbols.dwarf import mentions
    from aliceserver.debuggers.symbols.dwarf.coderanges import unit_offsets
    from aliceserver.debuggers.symbols.dwarf.inlines import mention_needles, units_mentioning
    from aliceserver.debuggers.symbols.dwarf.sections import ElfSections

    sections = ElfSections(str(program))
    offsets = unit_offsets(sections)
    units = units_mentioning(sections, offsets, "narrowed") or []
    needles = mention_needles(sections, "narrowed") or []
    assert len(units) == _CALLERS + 2 and needles  # the callers, main and the definition
    ordered = mentions.first_hits(sections, needles, units)
    assert ordered is not None and all(
        len(firsts) in (0, len(units)) for firsts in ordered.values()
    )
    assert mentions.first_hits(sections, needles, units[::-1]) == ordered
