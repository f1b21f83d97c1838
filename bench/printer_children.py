"""A container's first page in DAP: aliceserver's adapter against lldb-vscode-16.

On tests/programs/cpp_big_containers.cpp (a std::vector<int> of 10 million elements and a
std::map<int, int> of 1 million), stopped at its `@bp:ready` line, each adapter answers
what a client asks to show one: `evaluate` of the container (its value line) and
`variables` of its first 100 indexed children; then a page of 100 in the middle, the page
after it (a client scrolling on) and the last page. Best of `--repeat` sessions,
milliseconds, and our time as a ratio of lldb-vscode's.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import bench_cache
from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.build import PROGRAMS_DIR, marker_line
from tests.support.build_more import MoreBuilder
from tests.support.dap_client import DapClient, DapTimeout
from tests.support.dap_session import start_session

SOURCE = PROGRAMS_DIR / "cpp_big_containers.cpp"
CONTAINERS = {"big": 10_000_000, "tree": 1_000_000}  # name -> its size
PAGE = 100
# (row label, first child of the page as a share of the size); "first" is the value line too
PAGES = {"first": 0.0, "middle": 0.5, "next": 0.5, "last": 1.0}
LABELS = {"big": "std::vector<int> (10^7)", "tree": "std::map<int,int> (10^6)"}


def _start(page: str, size: int) -> int:
    if page == "next":
        return size // 2 + PAGE
    return min(int(size * PAGES[page]), size - PAGE)


REQUEST_LIMIT = 300.0  # seconds: a page slower than this is shown as such, not waited for


def measure(argv: list[str], program: Path) -> dict[tuple[str, str], float]:
    """Milliseconds per (container, page): the first is the value line plus its first page
    of 100 children, the others one `variables` request of 100 each. A page past the time
    limit is infinite, and the ones after it are not asked (the adapter is still busy)."""
    spent = {(name, page): math.inf for name in CONTAINERS for page in PAGES}
    with DapClient.spawn(argv) as client:
        start_session(client, program, breakpoints={SOURCE: [marker_line(SOURCE, "ready")]}, timeout=120)
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        try:
            for name, size in CONTAINERS.items():
                _measure_container(client, frame, name, size, spent)
        except DapTimeout:
            print(f"{argv[0]}: a page took over {REQUEST_LIMIT:.0f} s; the rest not measured", flush=True)
    return spent


def _measure_container(client: DapClient, frame: int, name: str, size: int,
                       spent: dict[tuple[str, str], float]) -> None:  # fmt: skip
    begin = time.perf_counter()
    shown = client.call("evaluate", {"expression": name, "frameId": frame, "context": "watch"}, REQUEST_LIMIT)
    for page in PAGES:
        start = _start(page, size)
        arguments = {"variablesReference": shown["variablesReference"], "filter": "indexed",
                     "start": start, "count": PAGE}  # fmt: skip
        rows = client.call("variables", arguments, REQUEST_LIMIT).get("variables", [])
        spent[name, page] = (time.perf_counter() - begin) * 1000
        failed = any(str(row.get("value", "")).startswith("<error") for row in rows)
        if len(rows) != PAGE or failed:  # shown as failed (a printer's time budget ran out)
            spent[name, page] = float("nan")
        elif name == "big" and [row["name"] for row in rows] != [f"[{start + i}]" for i in range(PAGE)]:
            raise RuntimeError(f"{client.name}: {name} gave children other than [{start}]..")
        begin = time.perf_counter()


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only printer_children", description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args, _ = parser.parse_known_args(argv)
    cache = bench_cache()
    program = MoreBuilder(cache).build_cpp("cpp_big_containers")
    tools = {"aliceserver": alice_argv()}
    lldb = find_lldb_vscode()
    if lldb is not None:
        tools["lldb-vscode"] = [lldb]
    best: dict[str, dict[str, float]] = {}
    for tool, command in tools.items():
        runs = [measure(command, program)]
        while len(runs) < args.repeat and math.inf not in runs[0].values():  # no repeat of a timeout
            runs.append(measure(command, program))
        best[tool] = {key: min(run[key] for run in runs) for key in runs[0]}
    print(f"{'container, page of 100 from':<44}" + "".join(f"{tool:>14}" for tool in tools) + f"{'ratio':>8}")
    for name, size in CONTAINERS.items():
        for page in PAGES:
            label = f"{LABELS[name]}, {_start(page, size)}" + (" (+ value line)" if page == "first" else "")
            row = f"{label:<44}" + "".join(_shown(best[tool][name, page]) for tool in tools)
            if "lldb-vscode" in best:
                row += f"{best['aliceserver'][name, page] / best['lldb-vscode'][name, page]:>8.2f}"
            print(row)
    return 0


def _shown(ms: float) -> str:
    return f"{'> ' + str(int(REQUEST_LIMIT)) + ' s':>14}" if ms == math.inf else f"{ms:>11.1f} ms"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
