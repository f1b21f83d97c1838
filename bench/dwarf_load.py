"""Debug info load time and memory on a large program, side by side with gdb.

Builds a synthetic C program (many units sharing a header full of types, like a real C
code base: >= 10 MB of .debug_info at -g -O0), then measures, each in a fresh process:
ours cold (empty index cache), ours warm (cached index), gdb (`break FUNC`), and gdb with
its own index cache. Each figure is the best of `--repeat` runs: wall time of the whole
process (interpreter start included) and its peak RSS.

`python -m bench.dwarf_load [--units N] [--repeat N]`; `main(argv)` for `python -m bench`.
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
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FUNCTION = "unit_7_func_3"
LINE_FILE = "unit_5.c"
LINE = 40

_CHILD = r"""
import resource, sys, time
started = time.perf_counter()
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.index import DebugInfo
from aliceserver.debuggers.symbols.elf import ElfImage
program, cache_dir, function, file, line = sys.argv[1:6]
imported = time.perf_counter()
info = DebugInfo.load(ElfImage.load(program), cache=IndexCache(cache_dir))
loaded = time.perf_counter()
found = info.functions_named(function)
resolved = info.resolve_line(file, int(line))
done = time.perf_counter()
assert found and resolved, (found, resolved)
print(f"{imported - started:.4f} {loaded - imported:.4f} {done - loaded:.4f} "
      f"{found[0].breakpoint_address:#x}")
"""


def _header(types: int) -> str:
    out = ["#ifndef BIG_H", "#define BIG_H"]
    for t in range(types):
        fields = "\n".join(
            f"    long f{t}_{m}; double g{t}_{m}; char s{t}_{m}[8];" for m in range(12)
        )
        out.append(f"struct type_{t} {{\n{fields}\n    struct type_{max(t - 1, 0)} *link;\n}};")
        out.append(f"typedef struct type_{t} type_{t}_t;")
        out.append(f"static inline long type_{t}_sum(const struct type_{t} *p)"
                   f" {{ return p->f{t}_0 + p->f{t}_1; }}")  # fmt: skip
    out.append("#endif")
    return "\n".join(out) + "\n"


def _unit(index: int, functions: int, types: int) -> str:
    out = ['#include "big.h"', f"long unit_{index}_total;"]
    for f in range(functions):
        t = (index * 7 + f) % types
        out.append(
            f"long unit_{index}_func_{f}(struct type_{t} *p, int n)\n{{\n"
            f"    long acc = 0;\n    type_{t}_t local = *p;\n"
            f"    for (int i = 0; i < n; i++) {{\n        acc += local.f{t}_{f % 12} * i;\n"
            f"        acc ^= type_{t}_sum(p);\n    }}\n"
            f"    unit_{index}_total += acc;\n    return acc + local.f{t}_0;\n}}"
        )
    return "\n".join(out) + "\n"


def build(units: int, functions: int = 12, types: int = 400) -> Path:
    """The synthetic program, cached in the temp dir while its shape is unchanged."""
    key = hashlib.sha256(f"{units} {functions} {types} v1".encode()).hexdigest()[:12]
    root = Path(tempfile.gettempdir()) / "aliceserver-bench" / f"dwarf-{key}"
    return build_units(root / "bigprog", units, functions, types, "int main(void) { return 0; }\n")


def build_units(program: Path, units: int, functions: int, types: int, main: str) -> Path:
    """`program`, built in its directory (once: while it exists, it is kept) from the shared
    header of `types` types, `units` units of `functions` functions and `main` (main.c's
    source): compiled in parallel (an interrupted build resumes at the objects it has not
    made), linked, then the objects removed (the program holds all of it)."""
    if program.exists():
        return program
    if shutil.which("gcc") is None:
        raise RuntimeError("gcc not found")
    root = program.parent
    root.mkdir(parents=True, exist_ok=True)
    (root / "big.h").write_text(_header(types))
    sources = []
    for i in range(units):
        path = root / f"unit_{i}.c"
        path.write_text(_unit(i, functions, types))
        sources.append(path)
    (root / "main.c").write_text(main)
    sources.append(root / "main.c")

    def compile_one(source: Path) -> Path:
        obj = source.with_suffix(".o")
        if not obj.exists():  # an interrupted build resumes where it stopped
            partial = obj.with_suffix(".o.tmp")
            subprocess.run(["gcc", "-g", "-O0", "-c", source.name, "-o", partial.name],
                           cwd=root, check=True)  # fmt: skip
            os.replace(partial, obj)
        return obj

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        objects = list(pool.map(compile_one, sources))
    partial = program.with_name(program.name + ".tmp")
    subprocess.run(["gcc", *[o.name for o in objects], "-o", partial.name], cwd=root, check=True)
    for obj in objects:  # the objects would double the disk
        obj.unlink()
    os.replace(partial, program)
    return program


def _run(args: list[str], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """(wall seconds, peak RSS in KiB, stdout) of one process."""
    started = time.perf_counter()
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                            text=True)  # fmt: skip
    assert proc.stdout is not None
    output = proc.stdout.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{args[0]} failed ({proc.returncode}):\n{output}")
    return elapsed, usage.ru_maxrss, output


def _section_size(program: Path, name: str) -> int:
    out = subprocess.run(["readelf", "-SW", str(program)], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 5 and parts[1] == name:
            return int(parts[5], 16)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.dwarf_load", description=__doc__)
    parser.add_argument("--units", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    program = build(args.units)
    info_size = _section_size(program, ".debug_info")
    line_size = _section_size(program, ".debug_line")
    print(f"program: {program} (.debug_info {info_size / 1e6:.1f} MB, "
          f".debug_line {line_size / 1e6:.1f} MB)")  # fmt: skip
    repo = str(Path(__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": repo + os.pathsep + os.environ.get("PYTHONPATH", "")}
    spec = [str(program), "", FUNCTION, LINE_FILE, str(LINE)]
    rows: list[tuple[str, float, int, str]] = []
    with tempfile.TemporaryDirectory() as scratch:
        cold = []
        for i in range(args.repeat):
            spec[1] = os.path.join(scratch, f"cold-{i}")
            cold.append(_run([sys.executable, "-c", _CHILD, *spec], env))
        rows.append(("ours cold", *min(cold)[:2], min(cold)[2].strip()))
        spec[1] = os.path.join(scratch, "cold-0")
        warm = [_run([sys.executable, "-c", _CHILD, *spec], env) for _ in range(args.repeat)]
        rows.append(("ours warm", *min(warm)[:2], min(warm)[2].strip()))
        gdb = shutil.which("gdb")
        if gdb:
            command = [gdb, "-nx", "-batch", "-ex", f"break {FUNCTION}",
                       "-ex", f"break {LINE_FILE}:{LINE}", str(program)]  # fmt: skip
            plain = [_run(command) for _ in range(args.repeat)]
            rows.append(("gdb", *min(plain)[:2], plain[0][2].strip().splitlines()[0]))
            gdb_env = {**os.environ, "XDG_CACHE_HOME": os.path.join(scratch, "gdb-cache")}
            indexed = command[:3] + ["-iex", "set index-cache enabled on"] + command[3:]
            _run(indexed, gdb_env)  # fills gdb's cache
            cached = [_run(indexed, gdb_env) for _ in range(args.repeat)]
            rows.append(("gdb index-cache", *min(cached)[:2], ""))
    print(f"{'run':<18}{'wall s':>9}{'peak MB':>10}  detail")
    for name, seconds, rss, detail in rows:
        print(f"{name:<18}{seconds:>9.3f}{rss / 1024:>10.1f}  {detail}")
    print("(ours: 'import s, load s, queries s, bp address' in detail)")
    if gdb:
        # The server is resident: its interpreter and imports are paid once, not per program.
        cold_work = sum(float(x) for x in rows[0][3].split()[1:3])
        warm_work = sum(float(x) for x in rows[1][3].split()[1:3])
        print(f"debug info load ratio vs gdb: {cold_work / rows[2][1]:.2f} "
              f"(in-process load + queries vs gdb's whole run; warm {warm_work / rows[2][1]:.2f}; "
              f"whole process incl. interpreter start: cold {rows[0][1] / rows[2][1]:.2f}, "
              f"warm {rows[1][1] / rows[2][1]:.2f})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
