"""The remote backend over gdbserver against gdb over the same gdbserver: breakpoint hits
per second, `next` and `stepi` round trips, memory read throughput, small-request round trips.

    python -m bench.remote_rsp [--hits N] [--steps S] [--repeat R]

Hits: gdbserver runs bench/programs/hits.c; `remote` sets Z0 on `hit_target` and resumes
after each stop (the process layer alone); `engine-remote` is the whole engine over the
stub (`connect_remote`, a location breakpoint, resume at each Stopped event, as a front
end does); gdb does the same with `commands / silent / continue / end`. Each rate is hits over the run's time
minus the same run without the breakpoint. Memory: the C library's mapping read whole,
ours with `m` packets, gdb with `dump binary memory` timed by gdb's Python. Steps: `next`
in main's loop (a call in the line) and `stepi`, each from the request to the stop and
its frame (gdb: gdb.execute with the frame printed to a string, whose frame line names the
arguments only where the function changed). MI steps: the same two steps as an MI front
end sees them, `python -m aliceserver -i=mi` and `gdb -i=mi` each over its gdbserver, from
-exec-next / -exec-step-instruction sent to its *stopped read (both frames with their
arguments). Each figure is the best of R runs, ours and gdb's run in turn in each.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from elftools.elf.elffile import ELFFile

from aliceserver.debuggers.events import Exited
from aliceserver.debuggers.remote.process import RemoteProcess
from aliceserver.debuggers.symbols.auxv import AT_ENTRY
from bench.common import Rate, build_program, print_table

FUNCTION = "hit_target"
GDB_HITS = re.compile(r"already hit (\d+) times?")


@contextmanager
def gdbserver(program: Path, args: Sequence[str]) -> Iterator[tuple[str, int]]:
    """`gdbserver 127.0.0.1:0 PROGRAM ARGS`: (address, program's pid); both ended after."""
    process = subprocess.Popen(["gdbserver", "127.0.0.1:0", str(program), *args],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
    assert process.stderr is not None
    said = b""
    pid = 0
    try:
        while b"Listening on port" not in said:
            chunk = os.read(process.stderr.fileno(), 4096)
            if not chunk:
                raise RuntimeError(f"gdbserver failed: {said!r}")
            said += chunk
        pid = int(re.search(rb"pid = (\d+)", said).group(1))  # type: ignore[union-attr]
        port = int(re.search(rb"Listening on port (\d+)", said).group(1))  # type: ignore[union-attr]
        yield f"127.0.0.1:{port}", pid
    finally:
        if pid:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        process.kill()
        process.wait()
        process.stderr.close()


def _symbol(program: Path, name: str) -> tuple[int, int]:
    with program.open("rb") as stream:
        elf = ELFFile(stream)
        table = elf.get_section_by_name(".symtab")
        symbol = table.get_symbol_by_name(name)[0]  # type: ignore[union-attr]
        return int(symbol["st_value"]), int(elf.header["e_entry"])


def ours_hits(program: Path, hits: int, *, breakpoint: bool) -> tuple[float, int]:
    with gdbserver(program, [str(hits)]) as (address, _):
        process = RemoteProcess.connect(address)
        try:
            value, entry = _symbol(program, FUNCTION)
            if breakpoint:
                process.insert_breakpoint(process.auxv()[AT_ENTRY] - entry + value)
            counted = 0
            start = time.perf_counter()
            while True:
                process.resume()
                if isinstance(process.wait(timeout=60), Exited):
                    break
                counted += 1
            return time.perf_counter() - start, counted
        finally:
            process.close()


def engine_hits(program: Path, hits: int, *, breakpoint: bool) -> tuple[float, int]:
    from aliceserver.debuggers.events import Stopped
    from aliceserver.debuggers.ptrace.engine import PtraceDebugger

    with gdbserver(program, [str(hits)]) as (address, _):
        debugger = PtraceDebugger()
        events = debugger.subscribe()
        try:
            debugger.connect_remote(address, program=str(program))
            if breakpoint:
                debugger.insert_location_breakpoint(FUNCTION)
            counted = 0
            start = time.perf_counter()
            debugger.resume()
            while True:
                event = events.get(timeout=60)
                if isinstance(event, Exited):
                    break
                if isinstance(event, Stopped):
                    counted += 1
                    debugger.resume()
            return time.perf_counter() - start, counted
        finally:
            debugger.close()


def gdb_session(address: str, program: Path, commands: str) -> tuple[float, str]:
    gdb = shutil.which("gdb")
    if gdb is None:
        raise RuntimeError("gdb not found")
    script = "set pagination off\nset confirm off\nset debuginfod enabled off\n"
    script += f"target remote {address}\n{commands}"
    with tempfile.NamedTemporaryFile("w", suffix=".gdb") as file:
        file.write(script)
        file.flush()
        start = time.perf_counter()
        done = subprocess.run([gdb, "-nx", "-batch", "-x", file.name, str(program)],
                              stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              timeout=600)  # fmt: skip
        return time.perf_counter() - start, done.stdout + done.stderr


def gdb_hits(program: Path, hits: int, *, breakpoint: bool) -> tuple[float, int]:
    commands = f"break {FUNCTION}\ncommands 1\nsilent\ncontinue\nend\n" if breakpoint else ""
    with gdbserver(program, [str(hits)]) as (address, _):
        elapsed, output = gdb_session(address, program, commands + "continue\ninfo breakpoints\n")
    found = GDB_HITS.search(output)
    return elapsed, int(found.group(1)) if found else 0


STEP_KINDS = ("next", "stepi")


def ours_steps(program: Path, count: int) -> dict[str, float]:
    """Seconds per `next` (source level, main's loop) and per `stepi` through the engine
    over gdbserver, from the request to its Stopped event and the frame shown there."""
    from aliceserver.debuggers.events import Stopped
    from aliceserver.debuggers.model import StepKind
    from aliceserver.debuggers.ptrace.engine import PtraceDebugger

    with gdbserver(program, ["100000000"]) as (address, _):
        debugger = PtraceDebugger()
        events = debugger.subscribe()
        try:
            debugger.connect_remote(address, program=str(program))
            debugger.insert_location_breakpoint("main")
            debugger.resume()
            stop = events.get(timeout=60)
            while not isinstance(stop, Stopped):
                stop = events.get(timeout=60)
            tid = stop.thread_id
            took = {}
            for kind in STEP_KINDS:
                start = time.perf_counter()
                for _ in range(count):
                    if kind == "next":
                        debugger.step(tid, StepKind.OVER)
                    else:
                        debugger.step_instruction(tid)
                    while not isinstance(events.get(timeout=60), Stopped):
                        pass
                    debugger.stack_trace(tid, 0, 1)  # the frame a front end shows, as gdb prints it
                took[kind] = (time.perf_counter() - start) / count
            return took
        finally:
            debugger.close()


def gdb_steps(program: Path, count: int) -> dict[str, float]:
    """The same steps in gdb over the same gdbserver, timed by gdb's Python around
    gdb.execute (its line or frame printed into a string, not to the terminal)."""
    timing = "".join(
        f"python began = time.perf_counter()\n"
        f"python [gdb.execute('{kind}', to_string=True) for _ in range({count})]\n"
        f"python print('STEP {kind}', (time.perf_counter() - began) / {count})\n"
        for kind in STEP_KINDS
    )
    with gdbserver(program, ["100000000"]) as (address, _):
        _, said = gdb_session(address, program, "python import time\nbreak main\ncontinue\n" + timing)
    found = dict(re.findall(r"STEP (\w+) ([0-9.e-]+)", said))
    if set(found) != set(STEP_KINDS):
        raise RuntimeError(f"gdb did not step: {said[-500:]}")
    return {kind: float(found[kind]) for kind in STEP_KINDS}


def steps_table(program: Path, count: int, repeat: int) -> None:
    """Step round trips, ours and gdb's interleaved in each repeat; the best of each."""
    best: dict[tuple[str, str], float] = {}
    for _ in range(repeat):
        for tool, run in (("engine-remote", ours_steps), ("gdb-remote", gdb_steps)):
            for kind, seconds in run(program, count).items():
                best[tool, kind] = min(best.get((tool, kind), float("inf")), seconds)
    print(f"step round trips over gdbserver ({count} each, best of {repeat})")
    for kind in STEP_KINDS:
        ours, gdb = best["engine-remote", kind], best["gdb-remote", kind]
        print(f"  {kind:<6} ours {ours * 1e6:8.0f} us   gdb {gdb * 1e6:8.0f} us   ours/gdb {ours / gdb:5.2f}")


MI_STEPS = {"next": "-exec-next", "stepi": "-exec-step-instruction"}


def mi_steps(tool: str, program: Path, count: int) -> dict[str, float]:
    """Seconds per `next` and `stepi` as an MI front end sees them over gdbserver: the
    command sent to its `*stopped` read, whose frame carries the function's arguments in
    both debuggers (gdb's CLI prints them only where the function changes)."""
    from tests.support.mi_client import MiClient

    took = {}
    with gdbserver(program, ["100000000"]) as (address, _):
        args = ["-q", "-nx", "-iex", "set mi-async on", "-i=mi", str(program)]
        client = MiClient(args, cwd=program.parent, gdb=tool == "gdb")
        try:
            client.prompt()
            client.ok("-gdb-set sysroot /")
            if tool == "gdb":
                client.ok("-gdb-set debuginfod enabled off")
            connected, said = client.command(f"-target-select remote {address}")
            if connected.cls != "connected":
                raise RuntimeError(f"{tool} did not connect: {said[-3:]}")
            client.ok("-break-insert main")
            client.ok("-exec-continue")
            client.stopped()
            client.ok("-break-delete 1")
            for kind, command in MI_STEPS.items():
                start = time.perf_counter()
                for _ in range(count):
                    client.ok(command)
                    client.stopped()
                took[kind] = (time.perf_counter() - start) / count
        finally:
            client.close()
    return took


def mi_steps_table(program: Path, count: int, repeat: int) -> None:
    """Ours and gdb's, in turn in each repeat; the best of each."""
    best: dict[tuple[str, str], float] = {}
    for _ in range(repeat):
        for tool in ("aliceserver", "gdb"):
            for kind, seconds in mi_steps(tool, program, count).items():
                best[tool, kind] = min(best.get((tool, kind), float("inf")), seconds)
    print(f"MI step round trips over gdbserver, command to *stopped ({count} each, best of {repeat})")
    for kind in MI_STEPS:
        ours, gdb = best["aliceserver", kind], best["gdb", kind]
        print(f"  {kind:<6} ours {ours * 1e6:8.0f} us   gdb {gdb * 1e6:8.0f} us   ours/gdb {ours / gdb:5.2f}")


def libc_mapping(pid: int) -> tuple[int, int]:
    """The largest mapping of the C library in process `pid` (its code): (start, size)."""
    found = []
    for line in Path(f"/proc/{pid}/maps").read_text().splitlines():
        if "libc.so" in line or "libc-" in line:
            start, end = (int(part, 16) for part in line.split()[0].split("-"))
            found.append((end - start, start))
    if not found:
        raise LookupError("no libc mapping")
    size, start = max(found)
    return start, size


def memory(program: Path, repeat: int) -> None:
    value, entry = _symbol(program, "main")
    best_ours = best_gdb = best_small = float("inf")
    size = 0
    for _ in range(repeat):
        with gdbserver(program, ["1"]) as (address, pid):
            process = RemoteProcess.connect(address)
            process.insert_breakpoint(process.auxv()[AT_ENTRY] - entry + value)
            process.resume()
            process.wait(timeout=30)  # at main: the C library is mapped
            process.remove_breakpoint(process.auxv()[AT_ENTRY] - entry + value)
            start, size = libc_mapping(pid)
            began = time.perf_counter()
            data = process.read_memory(start, size)
            best_ours = min(best_ours, time.perf_counter() - began)
            assert len(data) == size
            began = time.perf_counter()
            for i in range(2000):
                process.memory.forget()  # a packet each time, not the stop's cached lines
                process.read_memory(start + 8 * i, 8)
            best_small = min(best_small, (time.perf_counter() - began) / 2000)
            process.close()  # gdbserver waits for the next client: gdb, on the same program
            with tempfile.TemporaryDirectory() as scratch:
                out = Path(scratch) / "dump"
                # Timed inside gdb: its start and symbol loading vary more than the dump.
                dump = (f"set sysroot /\npython import time; began = time.perf_counter()\n"
                        f"dump binary memory {out} {start:#x} {start + size:#x}\n"
                        f"python print('DUMPED', time.perf_counter() - began)\n")  # fmt: skip
                _, said = gdb_session(address, program, dump)
                if out.stat().st_size != size:
                    raise RuntimeError(f"gdb's dump is short: {said[-500:]}")
                seconds = float(said.split("DUMPED", 1)[1].split()[0])
            best_gdb = min(best_gdb, seconds)
    mib = size / (1 << 20)
    print(f"memory: {size} bytes of libc in one read")
    print(
        f"  ours {mib / best_ours:8.1f} MiB/s   gdb {mib / best_gdb:8.1f} MiB/s (dump binary memory, timed in gdb)"
    )
    print(
        f"  ours: an 8-byte read round trip {best_small * 1e6:.0f} us ({1 / best_small:,.0f} packets/s)"
    )


def hits_table(program: Path, hits: int, repeat: int) -> None:
    """Each tool once in each repeat (the machine's load then weighs on all alike); the
    best of each."""
    tools = (("remote", ours_hits), ("engine-remote", engine_hits), ("gdb-remote", gdb_hits))
    best: dict[str, tuple[float, int]] = {}
    bases: dict[str, float] = {}
    for _ in range(repeat):
        for tool, run in tools:
            elapsed, counted = run(program, hits, breakpoint=True)
            if tool not in best or elapsed < best[tool][0]:
                best[tool] = (elapsed, counted)
            bases[tool] = min(bases.get(tool, float("inf")), run(program, hits, breakpoint=False)[0])
    rates = [Rate(tool, best[tool][1], best[tool][0] - bases[tool], bases[tool]) for tool, _ in tools]
    print_table(rates)
    print(f"  engine-remote / gdb-remote: {rates[1].per_second / rates[2].per_second:.2f}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.remote_rsp", description=__doc__)
    parser.add_argument("--hits", type=int, default=2000)
    parser.add_argument("--steps", type=int, default=300, help="next and stepi round trips timed")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    if shutil.which("gdbserver") is None:
        print("gdbserver not installed: skipped")
        return 0
    program = build_program("hits")
    hits_table(program, args.hits, args.repeat)
    steps_table(program, args.steps, args.repeat)
    mi_steps_table(program, args.steps, args.repeat)
    memory(program, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
