"""Scale in the program's state: many threads, many breakpoints, a deep stack. aliceserver's
MI against `gdb -i=mi` and its DAP adapter against lldb-vscode-16, side by side in one run.

- threads: tests/programs/blocked_threads.c starts `--threads` (1,000) threads that block, then
  calls `hit()` in a loop. At each stop (run, then `--rounds` continues): `-thread-info` and
  `-stack-list-frames --thread N` of every thread (DAP: `threads`, `stackTrace` 0-20 of
  every thread; DAP's `threads` at the first stop, where the names are read for the first
  time, is shown apart from its mean at the later stops).
- breakpoints: a generated C program of `--functions` (10,000) functions; `rbreak .` before
  `run`, run to the first stop with all of them inserted, then `--rounds` continues. One
  session of ours runs first, not counted: our on-disk index cache is warm, as after any
  earlier session (gdb keeps none).
- cpython: `rbreak .` on CPython (bench/large_program: built from Debian's source with -g)
  before `run`, then `run -c pass` to the first stop with all of them inserted, `--rounds`
  continues, delete all; the server's CPU beside each phase. The breakpoint counts, the
  functions only one tool chose and each tool's stops are printed after the table. They
  differ: before `run` gdb matches the program's functions alone, the ones without debug
  information (PLT entries, crt's) too, and sets each spec again in every library as it
  loads (its first stop: ld.so's `_start`); ours matches the dynamic loader's functions too
  (read before `run`: its first stop is in ld.so's tunables), and a function's .part /
  .constprop clones by their symbol names. Then `rbreak .` alone in a first-ever session: our
  index cache directory a new, empty one (gdb keeps none: its sessions are all alike).
- recursion: tests/programs/deep_stack.c stopped `--depth` (100,000) frames deep;
  `-stack-info-depth` and `-stack-list-frames L L+19` at several depths (DAP: `stackTrace`
  pages of 20 at those depths), at two stops in a row.

Every figure is milliseconds, the best of `--repeat` sessions per tool, the tools
interleaved; `ratio` is ours / theirs (< 1: ours is faster).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TypeVar

from bench import large_program
from bench.common import CFLAGS, bench_cache, build_program
from tests.support import mi_client
from tests.support.adapter_process import alice_argv, find_lldb_vscode
from tests.support.build import PROGRAMS_DIR
from tests.support.dap_client import DapClient
from tests.support.dap_session import launch_arguments, start_session
from tests.support.mi_client import MiClient
from tests.support.mi_grammar import List, Record, Tuple

TIMEOUT = 600.0
Figures = dict[str, float]  # phase -> milliseconds
T = TypeVar("T")


def clock(figures: Figures, phase: str, action: Callable[[], T], pid: int | None = None) -> T:
    """`action()`, its wall time added to `phase`; with `pid`, the CPU time that process
    spent meanwhile to `phase + CPU` (the server's threads all count; on a busy machine
    a server pinned to one CPU waits for it, and this figure does not)."""
    begin, spent = time.perf_counter(), process_cpu(pid)
    result = action()
    figures[phase] = figures.get(phase, 0.0) + (time.perf_counter() - begin) * 1000
    if pid is not None:
        figures[phase + CPU] = figures.get(phase + CPU, 0.0) + process_cpu(pid) - spent
    return result


CPU = ", server CPU"


def process_cpu(pid: int | None) -> float:
    """User and system time of process `pid` so far, in milliseconds (0 without one)."""
    if pid is None:
        return 0.0
    with open(f"/proc/{pid}/stat") as stat:  # fields after the command's closing paren
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


@contextmanager
def mi_session(tool: str, program: Path, cache: Path | None = None) -> Iterator[MiClient]:
    """`cache`: our index cache directory (else the user's)."""
    # A command's output comes when it ends: rbreak . on 10,000 functions can take longer
    # than the client's usual patience on a busy machine.
    mi_client.PATIENCE = max(mi_client.PATIENCE, TIMEOUT)
    args = ["-q", "-nx", "-iex", "set mi-async on", "-i=mi", str(program)]
    env = dict(os.environ, ALICESERVER_CACHE_DIR=str(cache)) if cache is not None else None
    client = MiClient(args, cwd=program.parent, gdb=tool == "gdb", env=env)
    try:
        client.prompt()
        client.ok("-gdb-set confirm off")
        yield client
    finally:
        client.close()


def mi_resume(client: MiClient, command: str) -> None:
    client.ok(command)
    stop = client.stopped()
    if stop.results.get("reason") not in ("breakpoint-hit", "function-finished"):
        raise RuntimeError(f"{command} stopped with {stop.results.items}")


def thread_ids(client: MiClient) -> list[str]:
    threads = client.ok("-thread-info").results["threads"]
    assert isinstance(threads, List)
    return [str(thread["id"]) for thread in threads.values if isinstance(thread, Tuple)]


def listed(record: object, key: str) -> int:
    """How many entries the list `key` of an MI result record holds."""
    assert isinstance(record, Record)
    value = record.results[key]
    assert isinstance(value, List)
    return len(value.values)


# --- 1,000 threads ------------------------------------------------------------------------


def mi_threads(tool: str, program: Path, args: argparse.Namespace) -> Figures:
    figures: Figures = {}
    with mi_session(tool, program) as client:
        client.ok(f"-exec-arguments {args.threads} 1000000")
        client.ok("-break-insert hit")
        clock(figures, "run to hit", lambda: mi_resume(client, "-exec-run"))
        pid = client.process.pid
        for round_ in range(args.rounds + 1):
            if round_:
                clock(figures, "continue", lambda: mi_resume(client, "-exec-continue"))
            ids = clock(figures, "-thread-info", lambda: thread_ids(client), pid)
            assert isinstance(ids, list) and len(ids) == args.threads + 1, len(ids)
            spent = process_cpu(pid)
            for ident in ids:
                clock(figures, "frames, all threads",
                      partial(client.ok, f"-stack-list-frames --thread {ident}"))  # fmt: skip
            figures["frames, all threads" + CPU] = figures.get("frames, all threads" + CPU, 0.0) + process_cpu(pid) - spent
    return per_round(figures, args.rounds)


def per_round(figures: Figures, rounds: int) -> Figures:
    """Each phase's mean per stop: `continue` and DAP's `threads` (at a later stop) are
    timed `rounds` times, the rest once more; the first stop's alone is itself."""
    once = ("run to hit", "threads, first stop")
    return {phase: value / (rounds if phase in ("continue", "threads") else rounds + 1) if phase not in once else value
            for phase, value in figures.items()}  # fmt: skip


def dap_threads(tool: str, argv: list[str], program: Path, args: argparse.Namespace) -> Figures:
    figures: Figures = {}
    client = DapClient.spawn(argv, cwd=program.parent, name=tool)
    try:
        begin = time.perf_counter()
        started = start_session(
            client, program, function_breakpoints=["hit"], timeout=TIMEOUT,
            launch=launch_arguments(program, args=[str(args.threads), "1000000"]),
        )  # fmt: skip
        figures["run to hit"] = (time.perf_counter() - begin) * 1000
        thread = started.thread_id
        pid = client.adapter.pid if client.adapter is not None else None
        for round_ in range(args.rounds + 1):
            if round_:
                event = clock(figures, "continue", lambda: client.continue_(thread, TIMEOUT))
                assert isinstance(event, dict) and event.get("event") == "stopped", event
            # the first stop's list reads each thread's name for the first time: shown apart
            threads = clock(figures, "threads" if round_ else "threads, first stop", client.threads)
            assert isinstance(threads, list) and len(threads) == args.threads + 1, len(threads)
            spent = process_cpu(pid)
            for entry in threads:
                clock(figures, "stackTrace, all threads",
                      partial(client.stack_trace, int(entry["id"]), 0, 20))  # fmt: skip
            if pid is not None:
                phase = "stackTrace, all threads" + CPU
                figures[phase] = figures.get(phase, 0.0) + process_cpu(pid) - spent
    finally:
        client.close()
    return per_round(figures, args.rounds)


# --- 10,000 breakpoints -------------------------------------------------------------------


def many_functions(count: int) -> Path:
    """A C program of `count` small functions; main calls a spread of them in turn."""
    lines = ["static volatile int sink;"]
    lines += [f"int f_{i:05d}(int x) {{ sink += x; return x + {i}; }}" for i in range(count)]
    lines.append("int main(void) {")
    lines += [f"    f_{(i * 7919) % count:05d}({i});" for i in range(50)]
    lines += ["    return 0;", "}"]
    source = "\n".join(lines) + "\n"
    digest = hashlib.sha256((source + " ".join(CFLAGS)).encode()).hexdigest()[:16]
    cache = bench_cache()
    binary = cache / f"many_functions-{digest}"
    if not binary.exists():
        cache.mkdir(parents=True, exist_ok=True)
        (cache / f"many_functions-{digest}.c").write_text(source)
        subprocess.run(["gcc", *CFLAGS, "-o", str(binary), str(binary) + ".c"], check=True)
    return binary


def mi_breakpoints(tool: str, program: Path, args: argparse.Namespace) -> Figures:
    figures: Figures = {}
    with mi_session(tool, program) as client:
        clock(figures, "rbreak .", lambda: client.ok('-interpreter-exec console "rbreak ."'))
        table = client.ok("-break-list").results["BreakpointTable"]
        assert isinstance(table, Tuple)
        body = table["body"]
        assert isinstance(body, List)
        count = len(body.values)
        clock(figures, "run to stop", lambda: mi_resume(client, "-exec-run"))
        for _ in range(args.rounds):
            clock(figures, "continue", lambda: mi_resume(client, "-exec-continue"))
        figures["continue"] /= args.rounds
        clock(figures, "delete all", lambda: client.ok("-break-delete"))
        figures["breakpoints"] = count
    return figures


# --- rbreak . on CPython -------------------------------------------------------------------

_SEEN: dict[str, tuple[list[str], list[str]]] = {}  # tool -> first counted session's names, stops


def spec_name(spec: str) -> str:
    """The function a breakpoint's original location names: gdb's rbreak writes
    `-qualified FILE:'NAME'` (or `-source FILE -function NAME`), ours the name."""
    name = spec.split(" -function ")[-1].rsplit(":", 1)[-1]
    return name.removeprefix("-qualified ").strip("'")


def stop_where(stop: Record) -> str:
    frame = stop.results.get("frame")
    assert isinstance(frame, Tuple)
    return f"{frame.get('func')} in {frame.get('file') or frame.get('from')}"


def mi_cpython(tool: str, program: Path, args: argparse.Namespace) -> Figures:
    figures: Figures = {}
    with mi_session(tool, program) as client:
        pid = client.process.pid
        client.ok("-exec-arguments " + " ".join(large_program.ARGS))
        clock(figures, "rbreak .", lambda: client.ok('-interpreter-exec console "rbreak ."'), pid)
        table = client.ok("-break-list").results["BreakpointTable"]
        assert isinstance(table, Tuple) and isinstance(body := table["body"], List)
        names = [spec_name(str(b.get("original-location") or b.get("what") or b.get("func")))
                 for b in body.values if isinstance(b, Tuple)]  # fmt: skip
        run = partial(mi_stop, client, "-exec-run")
        stops = [stop_where(clock(figures, "run to stop", run, pid))]
        for _ in range(args.rounds):
            resume = partial(mi_stop, client, "-exec-continue")
            stops.append(stop_where(clock(figures, "continue", resume, pid)))
        figures["continue"] /= args.rounds
        figures["continue" + CPU] /= args.rounds
        clock(figures, "delete all", lambda: client.ok("-break-delete"), pid)
        figures["breakpoints"] = len(names)
        _SEEN.setdefault(tool, (names, stops))
    return figures


def mi_cpython_first(tool: str, program: Path, args: argparse.Namespace) -> Figures:
    """`rbreak .` in a first-ever session: our index cache directory new and empty."""
    figures: Figures = {}
    with tempfile.TemporaryDirectory(prefix="aliceserver-first-") as cache:
        with mi_session(tool, program, Path(cache)) as client:
            rbreak = partial(client.ok, '-interpreter-exec console "rbreak ."')
            clock(figures, "rbreak . (first-ever)", rbreak, client.process.pid)
            table = client.ok("-break-list").results["BreakpointTable"]
            assert isinstance(table, Tuple) and isinstance(body := table["body"], List)
            figures["breakpoints"] = len(body.values)
    return figures


def mi_stop(client: MiClient, command: str) -> Record:
    client.ok(command)
    stop = client.stopped()
    if stop.results.get("reason") != "breakpoint-hit":
        raise RuntimeError(f"{command} stopped with {stop.results.items}")
    return stop


def show_choices() -> None:
    """How the tools' breakpoints and stops differ (their first counted sessions)."""
    for tool, (_names, stops) in _SEEN.items():
        print(f"  {tool}: stops at " + "; ".join(stops))
    if len(_SEEN) != 2:
        return
    (one, (first, _)), (other, (second, _)) = _SEEN.items()
    mine, theirs = Counter(first), Counter(second)
    for tool, only in ((one, mine - theirs), (other, theirs - mine)):
        names = sorted(only.elements())
        more = ", ..." if len(names) > 12 else ""
        print(f"  only {tool}'s ({len(names)}): " + ", ".join(names[:12]) + more)


# --- 100,000 frames -----------------------------------------------------------------------


def depths(args: argparse.Namespace) -> list[int]:
    """Pages from the top down, as a client's "load more" asks: the page after a deep one
    (middle + 20) shows what one more page costs once the frames above it are known."""
    middle = args.depth // 2
    return sorted({0, 20, 1000, middle, middle + 20, args.depth - 20})


def mi_recursion(tool: str, program: Path, args: argparse.Namespace) -> Figures:
    figures: Figures = {}
    with mi_session(tool, program) as client:
        client.ok(f"-exec-arguments {args.depth} 2")  # two stops at the bottom
        client.ok("-break-insert bottom")
        mi_resume(client, "-exec-run")
        for stop in (1, 2):
            if stop == 2:
                mi_resume(client, "-exec-continue")
            for low in depths(args):
                frames = clock(figures, f"stop {stop} frames {low}+20",
                               partial(client.ok, f"-stack-list-frames {low} {low + 19}"))  # fmt: skip
                assert listed(frames, "stack") == 20
            depth = clock(figures, f"stop {stop} -stack-info-depth",
                          lambda: client.ok("-stack-info-depth"))  # fmt: skip
            assert isinstance(depth, Record)
            figures["depth"] = float(str(depth.results["depth"]))
    return figures


def dap_recursion(tool: str, argv: list[str], program: Path, args: argparse.Namespace) -> Figures:
    figures: Figures = {}
    client = DapClient.spawn(argv, cwd=program.parent, name=tool)
    try:
        started = start_session(
            client, program, function_breakpoints=["bottom"], timeout=TIMEOUT,
            launch=launch_arguments(program, args=[str(args.depth), "2"]),
        )  # fmt: skip
        thread = started.thread_id
        for stop in (1, 2):
            if stop == 2:
                client.continue_(thread, TIMEOUT)
            for low in depths(args):
                frames = clock(figures, f"stop {stop} stackTrace {low}+20",
                               partial(client.stack_trace, thread, low, 20))  # fmt: skip
                assert isinstance(frames, list) and len(frames) == 20, frames
    finally:
        client.close()
    return figures


# --- the table ----------------------------------------------------------------------------


def compare(title: str, runs: Mapping[str, Callable[[], Figures]], repeat: int) -> None:
    results: dict[str, list[Figures]] = {tool: [] for tool in runs}
    for _ in range(repeat):  # interleaved: a slow spell of the machine falls on both
        for tool, run in runs.items():
            try:
                results[tool].append(run())
            except Exception as failure:  # noqa: BLE001 - a reference that cannot cope
                print(f"  {tool}: failed: {failure!r}"[:300])
    tools = [tool for tool in runs if results[tool]]
    if not tools:
        return
    phases = list(results[tools[0]][0])
    best = {t: {p: min(f.get(p, float("nan")) for f in results[t]) for p in phases} for t in tools}
    print(f"{title}\n  {'phase':<34}" + "".join(f"{t:>14}" for t in tools) + "     ratio")
    for phase in phases:
        cells = "".join(f"{best[t][phase]:>14.1f}" for t in tools)
        ratio = best[tools[0]][phase] / best[tools[1]][phase] if len(tools) == 2 else None
        shown = f"{ratio:>10.2f}" if ratio is not None and best[tools[1]][phase] > 0 else ""
        print(f"  {phase:<34}{cells}{shown}")


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only scale", description=__doc__)
    parts = ("threads", "breakpoints", "cpython", "recursion")
    parser.add_argument("--part", choices=parts, action="append")
    parser.add_argument("--threads", type=int, default=1000)
    parser.add_argument("--functions", type=int, default=10000)
    parser.add_argument("--depth", type=int, default=100000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--no-dap", action="store_true", help="MI against gdb only")
    args, _ = parser.parse_known_args(argv)
    parts = args.part or parts
    gdb = shutil.which("gdb") is not None
    lldb = None if args.no_dap else find_lldb_vscode()

    def mi(run: Callable[[str, Path, argparse.Namespace], Figures], program: Path) -> None:
        tools = ["aliceserver"] + (["gdb"] if gdb else [])
        calls = {t: partial(run, t, program, args) for t in tools}
        compare(f"MI, {program.name}", calls, args.repeat)

    def dap(run: Callable[[str, list[str], Path, argparse.Namespace], Figures],
            program: Path) -> None:  # fmt: skip
        if args.no_dap:
            return
        tools: dict[str, list[str]] = {"aliceserver": alice_argv()}
        if lldb is not None:
            tools["lldb-vscode"] = [lldb]
        calls = {t: partial(run, t, a, program, args) for t, a in tools.items()}
        compare(f"DAP, {program.name}", calls, args.repeat)

    if "threads" in parts:
        program = build_program("blocked_threads", PROGRAMS_DIR)
        mi(mi_threads, program)
        dap(dap_threads, program)
    if "breakpoints" in parts:
        program = many_functions(args.functions)
        mi_breakpoints("aliceserver", program, args)  # not counted: our index cache made warm
        mi(mi_breakpoints, program)
    if "cpython" in parts:
        program = large_program.build()
        mi_cpython("aliceserver", program, args)  # not counted: our index cache made warm
        _SEEN.clear()
        mi(mi_cpython, program)
        show_choices()
        tools = ["aliceserver"] + (["gdb"] if gdb else [])
        first = {t: partial(mi_cpython_first, t, program, args) for t in tools}
        compare(f"MI, {program.name}, first-ever session (no index cached)", first, args.repeat)
    if "recursion" in parts:
        program = build_program("deep_stack", PROGRAMS_DIR)
        mi(mi_recursion, program)
        dap(dap_recursion, program)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
