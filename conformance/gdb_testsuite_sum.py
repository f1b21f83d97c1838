"""Side-by-side counts of two DejaGnu gdb.sum files (gdb's and aliceserver's), per .exp file.

usage: python3 conformance/gdb_testsuite_sum.py GDB.sum ALICESERVER.sum
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

_RUNNING = re.compile(r"^Running .*/(gdb\.[\w-]+/[^/ ]+\.exp) \.\.\.")
# ERROR lines are left out: DejaGnu follows each with an UNRESOLVED one
_RESULT = re.compile(r"^(PASS|FAIL|XFAIL|KFAIL|XPASS|KPASS|UNRESOLVED|UNTESTED|UNSUPPORTED):")
# non-stop is excepted (aliceserver is all-stop): user-selected-context-sync.exp runs
# every test in both modes, named "mode=all-stop" and "mode=non-stop"
_EXCEPTED = re.compile(r": mode=non-stop: ")
_OURS = ("PASS", "FAIL", "UNRESOLVED")


def counts(path: Path) -> dict[str, Counter[str]]:
    """Result kind counts per .exp file, in the order the files ran."""
    files: dict[str, Counter[str]] = {}
    current = None
    if not path.exists():
        return files
    for line in path.read_text(errors="replace").splitlines():
        if m := _RUNNING.match(line):
            current = m.group(1)
            files.setdefault(current, Counter())
        elif (m := _RESULT.match(line)) and current and not _EXCEPTED.search(line):
            files[current][m.group(1)] += 1
    return files


def main(argv: list[str]) -> int:
    gdb, ours = counts(Path(argv[1])), counts(Path(argv[2]))
    names = list(dict.fromkeys([*gdb, *ours]))
    head = f"{'test file':44} {'gdb PASS':>8} {'FAIL':>5}   {'ours PASS':>9} {'FAIL':>5} {'UNRES':>5}  {'%':>4}"
    print(head)
    total_g, total_o = Counter[str](), Counter[str]()
    for name in names:
        g, o = gdb.get(name, Counter()), ours.get(name, Counter())
        total_g += g
        total_o += o
        print(_row(name, g, o))
    print("-" * len(head))
    print(_row(f"total ({len(names)} files)", total_g, total_o))
    return 0


def _row(name: str, g: Counter[str], o: Counter[str]) -> str:
    share = f"{100 * o['PASS'] / g['PASS']:.0f}" if g["PASS"] else "-"
    cells = " ".join(f"{o[k]:>{w}}" for k, w in zip(_OURS, (9, 5, 5), strict=True))
    return f"{name:44} {g['PASS']:>8} {g['FAIL']:>5}   {cells}  {share:>4}"


if __name__ == "__main__":
    sys.exit(main(sys.argv))
