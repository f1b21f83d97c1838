"""A container's first page in DAP: aliceserver's adapter against lldb-vscode-16.

On tests/programs/cpp_big_containers.cpp (a std::vector<int> of 10 million elements and a
std::map<int, int> of 1 million), stopped at its `@bp:ready` line, each adapter answers
what a client asks to show one: `evaluate` of the container (its value line) and
`variables` of its first 100 indexed children. Best of `--repeat` sessions, milliseconds,
and our time as a ratio of lldb-vscode's.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tests.support.build import PROGRAMS_DIR, marker_line
from tests.support.build_more import MoreBuilder
from tests.support.dap_client import DapClient, alice_argv, find_lldb_vscode, start_session

SOURCE = PROGRAMS_DIR / "cpp_big_containers.cpp"
CONTAINERS = ("big", "tree")


def measure(argv: list[str], program: Path) -> dict[str, float]:
    """Milliseconds per container: value line plus its first page of 100 children."""
    spent: dict[str, float] = {}
    with DapClient.spawn(argv) as client:
        start_session(client, program, breakpoints={SOURCE: [marker_line(SOURCE, "ready")]}, timeout=120)
        frame = client.stack_trace(client.threads()[0]["id"], 0, 1)[0]["id"]
        for name in CONTAINERS:
            begin = time.perf_counter()
            shown = client.call("evaluate", {"expression": name, "frameId": frame, "context": "watch"}, 60)
            page = client.variables(shown["variablesReference"], filter="indexed", start=0, count=100)
            spent[name] = (time.perf_counter() - begin) * 1000
            if len(page) != 100:
                raise RuntimeError(f"{argv[0]}: {name} gave {len(page)} children, not 100")
    return spent


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only printer_children", description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    args, _ = parser.parse_known_args(argv)
    import tempfile

    cache = Path(tempfile.gettempdir()) / "aliceserver-bench"
    program = MoreBuilder(cache).build_cpp("cpp_big_containers")
    tools = {"aliceserver": alice_argv()}
    lldb = find_lldb_vscode()
    if lldb is not None:
        tools["lldb-vscode"] = [lldb]
    best: dict[str, dict[str, float]] = {}
    for tool, command in tools.items():
        runs = [measure(command, program) for _ in range(args.repeat)]
        best[tool] = {name: min(run[name] for run in runs) for name in CONTAINERS}
    print(f"{'container':<34}" + "".join(f"{tool:>14}" for tool in tools) + f"{'ratio':>8}")
    labels = {"big": "std::vector<int> (10^7), 100", "tree": "std::map<int,int> (10^6), 100"}
    for name in CONTAINERS:
        row = f"{labels[name]:<34}" + "".join(f"{best[tool][name]:>11.1f} ms" for tool in tools)
        if "lldb-vscode" in best:
            row += f"{best['aliceserver'][name] / best['lldb-vscode'][name]:>8.2f}"
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
