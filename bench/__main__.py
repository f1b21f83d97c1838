"""`python -m bench [--only NAME] [ARGS...]`: run every benchmark; ARGS go to each one.

Exits non-zero when a benchmark crashed (never because of the figures it measured).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from typing import cast

# name -> module with `main(argv: Sequence[str]) -> int`
BENCHMARKS = {
    "bp_hits": "bench.bp_hits",
    "cond_bp": "bench.cond_bp",
    "dwarf_load": "bench.dwarf_load",
    "first_stop": "bench.first_stop",
    "dap_roundtrip": "bench.dap_roundtrip",
    "dap_load": "bench.dap_load",
    "trace_calls": "bench.trace_calls",
    "trace_overhead": "bench.trace_overhead",
    "mi_next": "bench.mi_next",
    "mi_registers": "bench.mi_registers",
    "printer_children": "bench.printer_children",
    "remote_rsp": "bench.remote_rsp",
    "big_inspect": "bench.big_inspect",
    "huge_program": "bench.huge_program",
    "dap_requests": "bench.dap_requests",
    "scale": "bench.scale",
}


def run_one(name: str, argv: Sequence[str]) -> bool:
    print(f"== {name}", flush=True)
    start = time.perf_counter()
    try:
        module = importlib.import_module(BENCHMARKS[name])
        code = cast(Callable[[Sequence[str]], int], module.main)(argv)
    except SystemExit as stop:  # argparse errors and --help
        code = 0 if stop.code is None else 1 if isinstance(stop.code, str) else stop.code
    except Exception:  # noqa: BLE001 - report any crash, run the next benchmark
        traceback.print_exc()
        code = 1
    print(f"== {name}: {'ok' if code == 0 else 'FAILED'} in {time.perf_counter() - start:.1f} s")
    return code == 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--only", choices=sorted(BENCHMARKS), help="run just this benchmark")
    args, rest = parser.parse_known_args(argv)
    names = [args.only] if args.only else list(BENCHMARKS)
    failed = [name for name in names if not run_one(name, rest)]
    if failed:
        print(f"benchmarks failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
