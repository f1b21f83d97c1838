"""GDB/MI register lists: `python -m aliceserver -i=mi` against `gdb -i=mi`, in the same run.

What Emacs' gdb-mi does at each stop while its registers buffer is open: after
`-exec-next` and its `*stopped`, `-data-list-changed-registers` then
`-data-list-register-values x` (every register: 271 on an AVX-512 machine). Both debuggers
run over pipes under the same client (tests/support/mi_client.py), on
bench/programs/dap_loop.c stopped at its loop, natively or (`--gdbserver`) over a
gdbserver each. The first stop's lists are timed apart (nothing seen before), then
`--iterations` steps (default 100). Reported: the median ms of each command, and the ratio
gdb / ours (> 1: ours is faster).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.common import build_program
from bench.mi_next import loop_line
from tests.support.mi_client import MiClient

COMMANDS = ("-data-list-changed-registers", "-data-list-register-values x")


@dataclass(frozen=True)
class Lists:
    tool: str
    first_ms: dict[str, float]  # at the first stop
    step_ms: dict[str, list[float]]  # at each later stop

    def median(self, command: str) -> float:
        return statistics.median(self.step_ms[command])


@contextlib.contextmanager
def _target(program: Path, remote: bool) -> Iterator[str | None]:
    if not remote:
        yield None
        return
    from tests.support.gdbserver import gdbserver

    with gdbserver(program, ["100000"]) as server:
        yield server.address


def _timed(client: MiClient, command: str) -> float:
    start = time.perf_counter()
    client.ok(command)
    return (time.perf_counter() - start) * 1000


def session(tool: str, program: Path, iterations: int, remote: bool) -> Lists:
    with _target(program, remote) as address:
        args = ["-q", "-nx", "-iex", "set mi-async on", "-i=mi", str(program)]
        client = MiClient(args, cwd=program.parent, gdb=tool == "gdb")
        try:
            client.prompt()
            client.ok(f"-break-insert dap_loop.c:{loop_line()}")
            if address is None:
                client.ok("-exec-arguments 100000")
                client.ok("-exec-run")
            else:
                client.ok("-gdb-set sysroot /")  # the libraries read here, not through the stub
                connected, _ = client.command(f"-target-select remote {address}")
                if connected.cls != "connected":
                    raise RuntimeError(f"{tool}: could not connect: {connected}")
                client.ok("-exec-continue")
            client.stopped()
            client.ok("-break-delete 1")
            first = {command: _timed(client, command) for command in COMMANDS}
            steps: dict[str, list[float]] = {command: [] for command in COMMANDS}
            for _ in range(iterations):
                client.ok("-exec-next")
                client.stopped()
                for command in COMMANDS:
                    steps[command].append(_timed(client, command))
        finally:
            client.close()
    return Lists(tool, first, steps)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench --only mi_registers", description=__doc__
    )
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--gdbserver", action="store_true", help="each debugger over a gdbserver")
    args, _ = parser.parse_known_args(argv)
    program = build_program("dap_loop")
    results = [session("aliceserver", program, args.iterations, args.gdbserver)]
    if shutil.which("gdb") is None:
        print("gdb: not found, skipped")
    else:
        results.append(session("gdb", program, args.iterations, args.gdbserver))
    print(f"{'debugger':<13}{'command':<32}{'first ms':>10}{'median ms':>11}")
    for result in results:
        for command in COMMANDS:
            print(
                f"{result.tool:<13}{command:<32}{result.first_ms[command]:>10.2f}{result.median(command):>11.2f}"
            )
    for command in COMMANDS:
        if len(results) == 2:
            # > 1: ours answers faster than gdb
            print(
                f"{command} ratio vs gdb (gdb / ours): {results[1].median(command) / results[0].median(command):.2f}"
            )
        else:
            print(f"{command} ratio vs gdb: n/a")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
