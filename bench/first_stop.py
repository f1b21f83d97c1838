"""Start to first stop on a large real program, side by side with gdb.

Each run is a fresh process that starts the debugger, launches CPython (bench/large_program:
built from Debian's source with -g, about 17 MB of DWARF), puts a breakpoint on a function,
runs to it and shows the stop as gdb does (function, arguments, file:line). Figures, each the
best of `--repeat` runs, as whole-process wall time and peak RSS:

- ours first ever: no index cached at all (the program's, libc's and the loader's are built);
- ours cold: a program never seen (no file of its cache entry), the system libraries'
  indexes cached as after an earlier session on this machine that debugged another program
  (their index is kept by build id; their answers for the breakpoint's name are dropped:
  another program's session asked other names);
- ours warm: everything cached;
- gdb, and gdb with its own index cache;
- ours warm and gdb through the MI front end (`-i=mi`), as an editor starts a session.

Python's byte code is compiled beforehand and written (as after `pip install`), whatever
PYTHONDONTWRITEBYTECODE says in this shell. Ours runs on the interpreter running this
(printed with the load average): a distribution's python3 (profile-guided and link-time
optimized) starts the engine about a fifth faster than an unoptimized build (pyenv's default).

`python -m bench.first_stop [--repeat N]`; `main(argv)` for `python -m bench`.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench import large_program

_CHILD = r"""
import sys, time
started = time.perf_counter()
from aliceserver import programahead  # as gdb's command line does with its program:
programahead.start(sys.argv[1])  # its index built by a child while this imports
from aliceserver.startup import import_quietly  # as the front ends start
PtraceDebugger = import_quietly("aliceserver.debuggers.ptrace.engine").PtraceDebugger
from aliceserver.debuggers.events import Exited, Stopped
from aliceserver.debuggers.model import LaunchConfig, VariableScope
imported = time.perf_counter()
program, function, *args = sys.argv[1:]
debugger = PtraceDebugger()
events = debugger.subscribe()  # before the launch: its events are ours
try:
    debugger.launch(LaunchConfig(program, args=tuple(args)))
    debugger.insert_location_breakpoint(function)
    debugger.resume()
    while not isinstance(event := events.get(timeout=120), (Stopped, Exited)):
        pass
    assert isinstance(event, Stopped), event
    top = debugger.stack_trace(event.thread_id, 0, 1)[0]
    params = debugger.frame_variables(event.thread_id, 0, VariableScope.ARGUMENTS)
    shown = ", ".join(f"{v.name}={v.value}" for v in params)
    where = f"{top.source.path}:{top.source.line}" if top.source else "??"
    done = time.perf_counter()
    print(f"{top.function} ({shown}) at {where} | import {imported - started:.3f} s, "
          f"to stop {done - imported:.3f} s")
finally:
    debugger.close()
from aliceserver.startup import leave  # as our gdb command line (-batch) ends: no teardown
leave(0)
"""


# Through the MI front end, as Emacs and Vim start a session: break, run, and on the stop
# the frame's arguments, then quit. Sent only once the stop is seen, as a client would.
_MI_START = "-break-insert {function}\n-exec-run\n"
_MI_AFTER_STOP = "-stack-list-arguments 1 0 0\n-gdb-exit\n"


def _run(args: list[str], env: dict[str, str], mi_function: str | None = None
         ) -> tuple[float, int, str]:  # fmt: skip
    """(wall seconds, peak RSS in KiB, last line of output) of one process; with
    `mi_function`, an MI session to that function's first stop (the stop line is shown)."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdin=subprocess.PIPE if mi_function else None,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            text=True)  # fmt: skip
    assert proc.stdout is not None
    if mi_function is not None:
        assert proc.stdin is not None
        proc.stdin.write(_MI_START.format(function=mi_function))
        proc.stdin.flush()
        stop = next((line for line in proc.stdout if line.startswith("*stopped")), "")
        proc.stdin.write(_MI_AFTER_STOP)
        proc.stdin.close()
        output = proc.stdout.read() + "\n" + stop
    else:
        output = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{args[0]} failed:\n{output}")
    lines = output.strip().splitlines()
    return elapsed, usage.ru_maxrss, lines[-1] if lines else ""


def _dwarf_megabytes(program: Path) -> float:
    out = subprocess.run(["readelf", "-SW", str(program)], capture_output=True, text=True).stdout
    total = 0
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 5 and parts[1].startswith(".debug_"):
            total += int(parts[5], 16)
    return total / 1e6


def _forget_program(cache_home: str, program: Path, function: str) -> None:
    """Make the cache rooted at `cache_home` one that never saw `program`: every file of its
    entry removed (its index, and the answers kept beside it), and the libraries' remembered
    answers for `function` (`break`'s search of their DWARF) dropped from their extras."""
    from aliceserver.debuggers.symbols.dwarf.cache import IndexCache, read_cache_file
    from aliceserver.debuggers.symbols.elf import ElfImage

    image = ElfImage.load(str(program))
    stat = program.stat()
    cache = IndexCache(os.path.join(cache_home, "aliceserver", "index"))
    cache.space.remove(IndexCache.key_for(image.build_id, str(program), stat.st_mtime_ns, stat.st_size))
    for path in Path(cache.directory).glob("*-extra.v*.idx"):
        data = read_cache_file(str(path), "index cache")
        payload = cache._decode(str(path), data) if data is not None else None  # noqa: SLF001
        extras = payload.get("extras") if payload is not None else None
        if payload is None or not isinstance(extras, dict):
            continue
        kept = {kind: {k: v for k, v in answers.items() if k != function}
                for kind, answers in extras.items()}  # fmt: skip
        if kept != extras:
            cache.store(path.name.split(".v")[0], payload["identity"], {"extras": kept})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.first_stop", description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    program = large_program.build()
    function, program_args = large_program.FUNCTION, list(large_program.ARGS)
    print(f"program: CPython {program} ({_dwarf_megabytes(program):.1f} MB of DWARF), "
          f"break {function}")  # fmt: skip
    # Ours runs on this interpreter: its build counts (Debian's python3 is built with
    # profile-guided and link-time optimization, a pyenv build by default with neither).
    print(f"interpreter: Python {sys.version.split()[0]} ({os.path.realpath(sys.executable)}); "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    repo = Path(__file__).resolve().parent.parent
    compileall.compile_dir(str(repo / "aliceserver"), quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(repo) + os.pathsep + env.get("PYTHONPATH", "")
    ours = [sys.executable, "-c", _CHILD, str(program), function, *program_args]
    ours_mi = [sys.executable, "-m", "aliceserver", "-i=mi", "--args", str(program),
               *program_args]  # fmt: skip
    gdb = shutil.which("gdb")
    runs: dict[str, list[tuple[float, int, str]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        cache_home = os.path.join(scratch, "f0")  # filled by the first "first ever" run
        warm_env = {**env, "XDG_CACHE_HOME": cache_home}
        plain_env = {**env, "XDG_CACHE_HOME": os.path.join(scratch, "gdb-none")}
        gdb_env = {**env, "XDG_CACHE_HOME": os.path.join(scratch, "gdb-cache")}
        command = [gdb or "gdb", "-nx", "-batch", "-ex", f"break {function}", "-ex", "run",
                   "--args", str(program), *program_args]  # fmt: skip
        indexed = command[:2] + ["-iex", "set index-cache enabled on"] + command[2:]
        gdb_mi = [gdb or "gdb", "-nx", "-q", "-i=mi", "--args", str(program), *program_args]
        if gdb:
            _run(indexed, gdb_env)  # fills gdb's cache
        # One run of each kind per round, so that a slow spell of this shared machine
        # falls on ours and gdb's alike.
        for i in range(args.repeat):
            first_env = {**env, "XDG_CACHE_HOME": os.path.join(scratch, f"f{i}")}
            runs.setdefault("ours first ever", []).append(_run(ours, first_env))
            _forget_program(cache_home, program, function)
            runs.setdefault("ours cold", []).append(_run(ours, warm_env))
            runs.setdefault("ours warm", []).append(_run(ours, warm_env))
            runs.setdefault("ours warm, MI", []).append(_run(ours_mi, warm_env, function))
            if gdb:
                runs.setdefault("gdb", []).append(_run(command, plain_env))
                runs.setdefault("gdb index-cache", []).append(_run(indexed, gdb_env))
                runs.setdefault("gdb, MI", []).append(_run(gdb_mi, plain_env, function))
    rows = [(name, *min(results)) for name, results in runs.items()]  # best of each kind
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    print(f"{'run':<18}{'wall s':>8}{'peak MB':>9}  stop")
    for name, seconds, rss, detail in rows:
        print(f"{name:<18}{seconds:>8.3f}{rss / 1024:>9.1f}  {detail[:110]}")
    if gdb:
        by_name = {name: seconds for name, seconds, _rss, _detail in rows}
        gdb_time = by_name["gdb"]
        print("ratio to gdb: " + ", ".join(
            f"{name[5:]} {by_name[name] / gdb_time:.2f}"
            for name in ("ours first ever", "ours cold", "ours warm")
        ) + f"; warm through MI to gdb through MI "
            f"{by_name['ours warm, MI'] / by_name['gdb, MI']:.2f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
