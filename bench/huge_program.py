"""Start to first stop in a program with far more debug info than CPython, side by side
with gdb.

The program is bench/dwarf_load's synthetic C code base scaled up (2,200 units sharing a
header full of types: about 240 MB of .debug_info at -g -O0), linked and runnable: its
main calls a function of a late unit. It is built once into the bench cache (the units
compiled in parallel), then each run is a fresh process of the same command line for
both debuggers, `-batch -ex 'break FUNC' -ex run PROG`: ours first ever (an empty index
cache, by --cache-dir), ours cold (only the system libraries' indexes cached), ours warm
(the cache the cold run filled), gdb, and gdb with its own index cache. Figures: whole-process wall time and peak RSS, the best of `--repeat` runs
(one run of each kind per round, so that a slow spell of this shared machine falls on
ours and gdb's alike), and their ratios to gdb's.

`python -m bench.huge_program [--units N] [--repeat N]`; `main(argv)` for `python -m bench`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import bench_cache
from bench.dwarf_load import _section_size, build_units

UNITS = 2200
FUNCTIONS = 12  # per unit
TYPES = 400  # in the shared header; most are emitted in every unit (their link chains)


def target_function(units: int) -> str:
    """The function the benchmark stops at: in a unit near the end of the link."""
    return f"unit_{units - 5}_func_3"


def build(units: int = UNITS) -> Path:
    """The program, built once into the bench cache while its shape is unchanged."""
    root = bench_cache() / f"huge-{units}-{FUNCTIONS}-{TYPES}-v1"
    target = target_function(units)
    t = ((units - 5) * 7 + 3) % TYPES  # the argument's type, as _unit chooses it
    main = (
        f'#include "big.h"\nlong {target}(struct type_{t} *p, int n);\n'
        f"static struct type_{t} value;\n"
        f"int main(void) {{ value.f{t}_0 = 7; return (int)({target}(&value, 3) & 1); }}\n"
    )
    return build_units(root / "hugeprog", units, FUNCTIONS, TYPES, main)


def _run(args: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in KiB, the stop's line) of one process."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            stdin=subprocess.DEVNULL, text=True)  # fmt: skip
    assert proc.stdout is not None
    output = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    stop = next((line for line in output.splitlines() if line.startswith("Breakpoint 1, ")), "")
    if os.waitstatus_to_exitcode(status) != 0 or not stop:
        raise RuntimeError(f"{args[0]} did not stop:\n{output}")
    return elapsed, usage.ru_maxrss, stop


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.huge_program", description=__doc__)
    parser.add_argument("--units", type=int, default=UNITS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    program = build(args.units)
    function = target_function(args.units)
    print(f"program: {program} (.debug_info {_section_size(program, '.debug_info') / 1e6:.1f} MB, "
          f".debug_line {_section_size(program, '.debug_line') / 1e6:.1f} MB; "
          f"ready in {time.perf_counter() - started:.1f} s), break {function}")  # fmt: skip
    repo = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(repo) + os.pathsep + env.get("PYTHONPATH", "")
    session = ["-nx", "-batch", "-ex", f"break {function}", "-ex", "run", str(program)]
    gdb = shutil.which("gdb")
    runs: dict[str, list[tuple[float, int, str]]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        gdb_env = {**env, "XDG_CACHE_HOME": os.path.join(scratch, "gdb-cache")}
        plain_env = {**env, "XDG_CACHE_HOME": os.path.join(scratch, "gdb-none")}
        indexed = [gdb or "gdb", "-iex", "set index-cache enabled on", *session]
        if gdb:
            _run(indexed, gdb_env)  # fills gdb's cache
        # "first ever": nothing cached. "cold": the system libraries' indexes cached, only
        # the program's built, as after any earlier session on this machine.
        libraries = os.path.join(scratch, "libraries")
        for i in range(args.repeat):
            first = os.path.join(scratch, f"first-{i}")
            ours = [sys.executable, "-m", "aliceserver", "--cache-dir", first, *session]
            runs.setdefault("ours first ever", []).append(_run(ours, env))
            if not os.path.isdir(libraries):
                _keep_libraries(first, libraries, program)
            cold = os.path.join(scratch, f"cold-{i}")
            shutil.copytree(libraries, cold)
            ours = [sys.executable, "-m", "aliceserver", "--cache-dir", cold, *session]
            runs.setdefault("ours cold", []).append(_run(ours, env))
            runs.setdefault("ours warm", []).append(_run(ours, env))
            if gdb:
                runs.setdefault("gdb", []).append(_run([gdb, *session], plain_env))
                runs.setdefault("gdb index-cache", []).append(_run(indexed, gdb_env))
    rows = [(name, *min(results)) for name, results in runs.items()]  # best of each kind
    print(f"{'run':<18}{'wall s':>8}{'peak MB':>9}  stop")
    for name, seconds, rss, stop in rows:
        print(f"{name:<18}{seconds:>8.3f}{rss / 1024:>9.1f}  {stop[:100]}")
    if gdb:
        by_name = {name: (seconds, rss) for name, seconds, rss, _stop in rows}
        gdb_time, gdb_rss = by_name["gdb"]
        print("ratio to gdb: " + ", ".join(
            f"{name[5:]} time {by_name[name][0] / gdb_time:.2f} memory {by_name[name][1] / gdb_rss:.2f}"
            for name in ("ours first ever", "ours cold", "ours warm")
        ))  # fmt: skip
    return 0


def _keep_libraries(cache: str, libraries: str, program: Path) -> None:
    """A copy of `cache` without the program's entry: the system libraries' indexes."""
    from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
    from aliceserver.debuggers.symbols.elf import ElfImage

    image = ElfImage.load(str(program))
    stat = program.stat()
    key = IndexCache.key_for(image.build_id, str(program), stat.st_mtime_ns, stat.st_size)
    shutil.copytree(cache, libraries)
    IndexCache(libraries).space.remove(key)


if __name__ == "__main__":
    sys.exit(main())
