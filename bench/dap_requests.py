"""The requests an editor sends on every edit and every step, in the sqlite shell
(bench/sqlite_program, at -O0 and -O2): aliceserver's DAP adapter against lldb-vscode-16 and
gdb's MI equivalents, in the same run.

Each session stops in `hexFunc` (a function breakpoint), then times, one request at a time:
- `setBreakpoints` on sqlite3.c with 20 lines (the first lines of 20 functions; two such
  sets alternate, as an edit replaces a file's list), gdb: 20 `-break-insert FILE:LINE`;
- `setFunctionBreakpoints` with 20 names (two sets alternate), gdb: 20 `-break-insert NAME`;
- `next` and `stepIn` (request sent -> `stopped` event), `--steps` of each from every stop in
  hexFunc, gdb: `-exec-next` / `-exec-step` (sent -> `*stopped`).
Figures are medians over the session, best session of `--repeat` (interleaved); ratios > 1
mean ours is slower.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench import sqlite_program
from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import parse_record

TIMEOUT = 120.0
REQUESTS = ("setBreakpoints", "setFunctionBreakpoints", "next", "stepIn")
# Two sets of 20 functions of sqlite3.c: their names for function breakpoints, the lines
# just inside them for line breakpoints.
NAMES = (
    ("sqlite3_open", "sqlite3_close", "sqlite3_exec", "sqlite3_prepare_v2", "sqlite3_step",
     "sqlite3_finalize", "sqlite3_reset", "sqlite3_column_text", "sqlite3_column_int",
     "sqlite3_bind_int", "sqlite3_bind_text", "sqlite3_errmsg", "sqlite3_malloc",
     "sqlite3_free", "sqlite3_mprintf", "sqlite3_value_blob", "sqlite3_value_bytes",
     "sqlite3_result_text", "sqlite3_changes", "sqlite3_get_autocommit"),
    ("sqlite3VdbeExec", "sqlite3VdbeHalt", "sqlite3VdbeMakeReady", "sqlite3BtreeInsert",
     "sqlite3BtreeNext", "sqlite3BtreePrevious", "sqlite3PagerGet", "sqlite3BtreeBeginTrans",
     "sqlite3RunParser", "sqlite3Select", "sqlite3Insert", "sqlite3Update",
     "sqlite3DeleteFrom", "sqlite3ExprCode", "sqlite3WhereBegin", "sqlite3WhereEnd",
     "sqlite3GetToken", "sqlite3DbMallocRaw", "sqlite3DbFree", "sqlite3StrICmp"),
)  # fmt: skip


def function_lines(source: Path, names: Sequence[str]) -> list[int]:
    """The line after each function's opening brace (its first declaration or statement)."""
    text = source.read_text(errors="replace").splitlines()
    lines: list[int] = []
    for name in names:
        start = re.compile(rf"^\S.*\b{re.escape(name)}\(")
        for number, line in enumerate(text, 1):
            if start.match(line) and not line.rstrip().endswith(";"):
                brace = next(n for n in range(number - 1, len(text)) if "{" in text[n])
                lines.append(brace + 2)
                break
        else:
            raise RuntimeError(f"{name} not defined in {source}")
    return lines


class Timings(dict[str, list[float]]):
    def add(self, name: str, began: float) -> None:
        self.setdefault(name, []).append((time.perf_counter() - began) * 1000)

    def median(self, name: str) -> float:
        return statistics.median(self[name]) if self.get(name) else float("nan")


def dap_session(tool: str, argv: Sequence[str], program: Path, args: argparse.Namespace) -> Timings:
    source = program.parent / "sqlite3.c"
    sets = [function_lines(source, names) for names in NAMES]
    spent = Timings()
    client = DapClient.spawn(argv, cwd=program.parent, name=tool)
    try:
        started = start_session(client, program, function_breakpoints=[sqlite_program.FUNCTION],
                                launch=launch_arguments(program, args=list(sqlite_program.ARGS)),
                                timeout=TIMEOUT)  # fmt: skip
        thread = started.thread_id
        where = {"name": source.name, "path": str(source)}
        for index in range(args.edits):
            lines = sets[index % 2]
            began = time.perf_counter()
            client.call("setBreakpoints", {"source": where, "breakpoints":
                        [{"line": line} for line in lines]}, TIMEOUT)  # fmt: skip
            spent.add("setBreakpoints", began)
        client.call("setBreakpoints", {"source": where, "breakpoints": []}, TIMEOUT)
        for index in range(args.edits):
            names = NAMES[index % 2]
            began = time.perf_counter()
            client.call("setFunctionBreakpoints",
                        {"breakpoints": [{"name": name} for name in names]}, TIMEOUT)
            spent.add("setFunctionBreakpoints", began)
        stop_here = {"breakpoints": [{"name": sqlite_program.FUNCTION}]}
        client.call("setFunctionBreakpoints", stop_here, TIMEOUT)
        for command in ("next", "stepIn"):
            for _ in range(args.stops):
                for _ in range(args.steps):
                    began = time.perf_counter()
                    event = client.resume(command, thread, TIMEOUT)
                    spent.add(command, began)
                    if event.get("event") != "stopped":
                        raise RuntimeError(f"{tool}: {command} ended with {event}")
                    thread = int(event["body"]["threadId"])
                event = client.continue_(thread, TIMEOUT)
                if event.get("event") != "stopped":
                    raise RuntimeError(f"{tool}: continue ended with {event}")
                thread = int(event["body"]["threadId"])
    finally:
        client.close()
    return spent


def gdb_session(program: Path, args: argparse.Namespace) -> Timings:
    source = program.parent / "sqlite3.c"
    sets = [function_lines(source, names) for names in NAMES]
    spent = Timings()
    argv = ["-q", "-nx", "-iex", "set mi-async on", "-i=mi", str(program)]
    client = MiClient(argv, cwd=program.parent, gdb=True)
    numbers: list[str] = []

    def insert_all(name: str, locations: Sequence[str]) -> None:
        began = time.perf_counter()
        for location in locations:
            record = client.ok(f"-break-insert {location}")
            bkpt = record.results.get("bkpt")
            numbers.append(str(bkpt.get("number") if hasattr(bkpt, "get") else ""))
        spent.add(name, began)
        client.ok("-break-delete " + " ".join(n for n in numbers if n))
        numbers.clear()

    def timed_stop(name: str, command: str, check: Callable[[str], bool]) -> None:
        began = time.perf_counter()
        result, seen = client.command(command)
        early = [line for line in seen if line.startswith("*stopped")]  # before the prompt
        stop = parse_record(early[0]) if early else client.stopped()
        spent.add(name, began)
        if result.cls != "running":
            raise RuntimeError(f"gdb: {command}: {seen}")
        if not check(str(stop.results.get("reason"))):
            raise RuntimeError(f"gdb: {command} stopped with {stop.results.items}")

    try:
        client.prompt()
        client.ok("-exec-arguments " + " ".join(f"'{a}'" for a in sqlite_program.ARGS))
        client.ok(f"-break-insert {sqlite_program.FUNCTION}")
        client.ok("-exec-run")
        client.stopped()
        for index in range(args.edits):
            insert_all("setBreakpoints", [f"sqlite3.c:{line}" for line in sets[index % 2]])
        for index in range(args.edits):
            insert_all("setFunctionBreakpoints", NAMES[index % 2])
        for name, command in (("next", "-exec-next"), ("stepIn", "-exec-step")):
            for _ in range(args.stops):
                for _ in range(args.steps):
                    timed_stop(name, command, lambda reason: reason == "end-stepping-range")
                timed_stop("continue", "-exec-continue", lambda reason: reason == "breakpoint-hit")
    finally:
        client.close()
    return spent


def checkout_argv(root: str) -> list[str]:
    """Our adapter run from the checkout at `root` rather than this one."""
    if not (Path(root) / "aliceserver" / "__main__.py").is_file():  # else this one would run
        raise SystemExit(f"--also {root}: no aliceserver checkout there")
    start = ("import runpy, sys; sys.path.insert(0, sys.argv.pop(1)); "
             "sys.argv[0] = 'aliceserver'; runpy.run_module('aliceserver', run_name='__main__')")  # fmt: skip
    return [sys.executable, "-c", start, str(Path(root).resolve()), "--adapter", "dap"]


def measure(optimization: str, args: argparse.Namespace) -> None:
    program = sqlite_program.build(optimization)
    sessions: dict[str, Callable[[], Timings]] = {
        "aliceserver": lambda: dap_session("aliceserver", alice_argv(), program, args)
    }
    for root in args.also or []:  # another checkout of ours, e.g. a worktree of an older commit
        name = f"alice@{Path(root).name}"
        sessions[name] = lambda r=root, n=name: dap_session(n, checkout_argv(r), program, args)
    lldb = find_lldb_vscode()
    if lldb is not None:
        sessions["lldb-vscode"] = lambda: dap_session("lldb-vscode", [lldb], program, args)
    if shutil.which("gdb") is not None:
        sessions["gdb-mi"] = lambda: gdb_session(program, args)
    for run in sessions.values():  # warms the on-disk caches; not counted
        run()
    runs: dict[str, list[Timings]] = {tool: [] for tool in sessions}
    for _ in range(args.repeat):  # interleaved, so a slow spell falls on all alike
        for tool, run in sessions.items():
            runs[tool].append(run())
    best = {tool: {name: min(t.median(name) for t in timings) for name in REQUESTS}
            for tool, timings in runs.items()}  # fmt: skip
    print(f"sqlite {optimization}: median ms per request (best of {args.repeat} sessions)")
    print(f"  {'tool':<13}" + "".join(f"{name:>24}" for name in REQUESTS))
    for tool, figures in best.items():
        print(f"  {tool:<13}" + "".join(f"{figures[name]:>24.2f}" for name in REQUESTS))
    ours = best["aliceserver"]
    for other in (tool for tool in best if tool != "aliceserver"):
        ratios = "".join(f"{ours[n] / max(best[other][n], 1e-3):>24.2f}" for n in REQUESTS)
        print(f"  {'/ ' + other:<13}{ratios}")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only dap_requests", description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--edits", type=int, default=10, help="timed setBreakpoints (and functions)")
    parser.add_argument("--stops", type=int, default=3, help="hexFunc stops stepped from")
    parser.add_argument("--steps", type=int, default=6, help="steps from each stop")
    parser.add_argument("--opt", action="append", help="optimization levels (default -O0, -O2)")
    parser.add_argument("--also", action="append", help="another checkout of ours to measure")
    args, _ = parser.parse_known_args(argv)
    for optimization in args.opt or ["-O0", "-O2"]:
        measure(optimization, args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
