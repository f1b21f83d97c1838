"""Load on one TCP DAP server: `--sequential` whole sessions one after another, then
`--rounds` rounds of `--concurrent` sessions at once (default 500, 8 x 4), each launch,
break in `leaf`, inspect, step, check a local, run to exit (tests/support/load.py).

Then a program writes `--output-mb` (100) to stdout at full speed under a client that
keeps asking `threads`. Reports sessions held, failures (wrong answers or errors), the server's RSS and open
descriptors after `--warm-up` sessions and at the end (growth in %), and the time taken.
Exit status 1 when a session failed or descriptors leaked (figures never fail it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from tests.support.build import Builder, find_compiler
from tests.support.dap_server import DapServerProcess
from tests.support.load import Scenario, run_load, run_output


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench --only dap_load", description=__doc__)
    parser.add_argument("--sequential", type=int, default=500)
    parser.add_argument("--concurrent", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--warm-up", type=int, default=20)
    parser.add_argument("--output-mb", type=int, default=100, help="then a program writing this much")
    args, _ = parser.parse_known_args(argv)
    compiler = find_compiler()
    if compiler is None:
        print("gcc not found", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="aliceserver-load-") as work:
        builder = Builder(cache_dir=Path(work) / "programs", compiler=compiler)
        scenario = Scenario(builder.build("src_basic"), builder.source("src_basic"))
        server = DapServerProcess.start(Path(work) / "server.log")
        try:
            report = run_load(
                server, scenario, sequential=args.sequential, concurrent=args.concurrent,
                concurrent_rounds=args.rounds, warm_up=args.warm_up,
                progress=lambda text: print("  " + text, flush=True),
            )  # fmt: skip
            output = run_output(server, builder.build("faults"), args.output_mb)
            problems = server.adapter.popen.poll() is not None
        finally:
            server.stop()
    print(f"sessions held        {report.sessions} ({args.warm_up} + {args.concurrent} warm-up, {args.sequential} "
          f"sequential, {args.rounds} x {args.concurrent} at once)")  # fmt: skip
    print(f"failed sessions      {len(report.failures)}")
    for failure in report.failures[:5]:
        print(f"  {failure}")
    print(f"RSS after warm-up    {report.warm_rss_kib / 1024:.1f} MiB")
    print(f"RSS at the end       {report.end_rss_kib / 1024:.1f} MiB "
          f"({100 * report.rss_growth:+.1f}%), peak {report.peak_rss_kib / 1024:.1f} MiB")  # fmt: skip
    print(f"RSS trend            sequential {100 * report.trend(report.sequential_rss):+.1f}% "
          f"(mean of the last 3 checkpoints over the first 3, every 50 sessions), "
          f"concurrent {100 * report.trend(report.round_rss):+.1f}% (last 3 rounds over first 3)")  # fmt: skip
    print(f"descriptors          {report.warm_fds} after warm-up, {report.end_fds} at the end")
    print(f"time                 {report.seconds:.0f} s ({report.sessions / report.seconds:.1f} sessions/s)")
    print(f"output {output.megabytes} MB       {output.received / 2**20:.0f} MB received in "
          f"{output.seconds:.1f} s, {output.requests_answered} requests answered meanwhile, "
          f"server RSS peak +{output.peak_growth_kib / 1024:.1f} MiB")  # fmt: skip
    short = output.received != output.megabytes << 20
    return 1 if report.failures or report.end_fds > report.warm_fds or problems or short else 0
