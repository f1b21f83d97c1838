"""MI dynamic var objects (libstdc++'s printers' children) over a session, record for
record against gdb 13 in the same sequence: a vector listed by ranges (a bounded listing
after a full one starts again and deletes the children past its end, as gdb's does), a
vector that grows between stops (-var-update's new_num_children, new_children, has_more),
update ranges, a map that shrinks, -var-set-visualizer None and back, the counts of
-var-info-num-children and -var-delete, and --simple-values (a printer's value shows)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.build import PROGRAMS_DIR, Builder, marker_line
from tests.support.build_more import MoreBuilder, find_cxx
from tests.support.gdb import gdb_env, gdb_path

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(gdb_path() is None, reason="gdb not installed: it is the oracle"),
    pytest.mark.skipif(find_cxx() is None, reason="g++ not installed"),
]

SOURCE = PROGRAMS_DIR / "cpp_varobj_session.cpp"
STOPS = [
    "-enable-pretty-printing",
    *(f"-break-insert cpp_varobj_session.cpp:{marker_line(SOURCE, name)}"
      for name in ("first", "grown", "changed", "last")),
    "-exec-run",
]  # fmt: skip
GDB_MI = [str(gdb_path()), "-nx", "-q", "-i=mi"]
OURS_MI = [sys.executable, "-m", "aliceserver", "-nx", "-q", "-i=mi"]


@pytest.fixture(scope="module")
def program(builder: Builder) -> Path:
    return MoreBuilder(builder.cache_dir).build_cpp("cpp_varobj_session")


def records(argv: list[str], program: Path, script: list[str]) -> list[str]:
    """Each command's ^done/^error record, and `*stopped line N` where the program stops."""
    lines = [*STOPS, *script, "-gdb-exit"]
    done = subprocess.run(argv + [str(program)], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=120, env=gdb_env())  # fmt: skip
    out = []
    for line in done.stdout.splitlines():
        if line.startswith(("^done", "^error")):
            out.append(line)
        elif line.startswith("*stopped"):
            out.append("*stopped line " + line.partition('line="')[2].partition('"')[0])
    return out[len(STOPS) - 1:]  # from the first stop on


def compare(program: Path, script: list[str]) -> list[str]:
    expected = records(GDB_MI, program, script)
    got = records(OURS_MI, program, script)
    assert got == expected
    return expected


RANGES_AND_GROWTH = [
    "-var-create v * v", "-var-list-children v 0 5", "-var-list-children v",
    "-var-list-children v 2 4", "-var-info-num-children v",
    "-var-create m * m", "-var-list-children --all-values m",
    "-var-create w * v", "-var-list-children w 0 3", "-var-set-update-range w 0 3",
    "-exec-continue", "-var-update --all-values *", "-var-list-children --all-values v",
    "-exec-continue", "-var-update --all-values *", "-var-info-num-children v",
    "-var-info-num-children m",
    "-exec-continue", "-var-update --all-values *", "-var-update v",
    "-var-delete w", "-var-delete v", "-var-delete m",
]  # fmt: skip


def test_ranges_growth_and_shrinking_match_gdb(program: Path) -> None:
    expected = compare(program, RANGES_AND_GROWTH)
    # gdb ran the printers; `v 2 4` after the full listing kept 4 children
    assert expected[1].endswith('displayhint="array",dynamic="1",has_more="1"')
    assert expected[5] == '^done,numchild="4"'
    grown = next(r for r in expected if r.startswith("^done,changelist=[{name=\"v\""))
    assert 'new_num_children="11"' in grown and 'new_children=[{name="v.[4]"' in grown


VISUALIZERS_AND_SIMPLE_VALUES = [
    "-var-create r * v", "-var-set-update-range r 9 12", "-var-list-children r 9 12",
    "-var-create m * m", "-var-list-children m", "-var-create u * v", "-var-create e * m",
    "-var-info-num-children u",
    "-var-create x * v", "-var-set-visualizer x None", "-var-info-num-children x",
    "-var-list-children x", "-var-set-visualizer x gdb.default_visualizer",
    "-var-info-num-children x", "-var-list-children x 0 2", "-var-info-num-children x",
    "-exec-continue", "-var-update *", "-var-update --simple-values *",
    "-var-list-children --simple-values r",
    "-exec-continue", "-var-update --all-values *", "-var-set-visualizer m None",
    "-var-info-num-children m", "-var-update --all-values m", "-var-list-children --all-values m",
    "-exec-continue", "-var-update --all-values *", "-var-set-visualizer m gdb.default_visualizer",
    "-var-update --all-values *", "-var-list-children --all-values m", "-var-info-num-children m",
    "-var-delete r", "-var-delete m", "-var-delete -c x", "-var-delete x", "-var-delete u",
    "-var-delete e",
]  # fmt: skip


def test_visualizers_and_simple_values_match_gdb(program: Path) -> None:
    expected = compare(program, VISUALIZERS_AND_SIMPLE_VALUES)
    simple = next(r for r in expected if r.startswith('^done,changelist=[{name="r"'))
    assert 'value="{...}"' in simple  # --simple-values shows a dynamic var object's value


def test_update_range_bounds_match_gdb(program: Path) -> None:
    """-var-set-update-range reads its bounds as gdb does (atoi), and one below zero is
    no bound: -1 -1 reports every child again (it read none past the first range)."""
    script = ["-var-create w * v", "-var-list-children w 0 3", "-var-set-update-range w 0 3",
              "-var-set-update-range w -1 -1", "-exec-continue", "-var-update --all-values *",
              "-var-set-update-range w 1 x", "-exec-continue", "-var-update --all-values *"]  # fmt: skip
    expected = compare(program, script)
    assert 'new_num_children="11"' in expected[6] and 'new_children=[{name="w.[3]"' in expected[6]
