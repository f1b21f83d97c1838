"""gdb as the oracle for backtraces, and the engine stopped at the same places."""

from __future__ import annotations

import hashlib
import queue
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import LaunchConfig, SignalPolicy
from aliceserver.debuggers.symbols.dwarf.cfi import CfiTables, UnwoundFrame, unwind_stack

PROGRAM = Path(__file__).with_name("unwind_program.c")
SIGUSR1, SIGSEGV = 10, 11

# gdb: dump every frame (level, pc, name, kind) of the selected thread after each stop.
GDB_PRELUDE = r"""
set pagination off
set confirm off
set backtrace past-main on
handle SIGUSR1 nostop noprint pass
handle SIGSEGV nostop noprint pass
python
def alice_dump():
    kinds = {gdb.INLINE_FRAME: "inline", gdb.TAILCALL_FRAME: "tailcall",
             gdb.SIGTRAMP_FRAME: "sigtramp"}
    f = gdb.newest_frame()
    while f is not None:
        print("ALICE-FRAME %#x %s %s" % (f.pc(), f.name(), kinds.get(f.type(), "normal")))
        f = f.older()
    print("ALICE-END")
end
"""


@dataclass(frozen=True)
class GdbFrame:
    pc: int
    name: str | None
    kind: str  # normal, sigtramp (inline and tail-call frames are dropped: no stack frame)


def gdb_snapshots(program: Path, args: list[str], location: str, steps: int = 0) -> list[
    list[GdbFrame]
]:  # fmt: skip
    """Run `program` under gdb to `break location`, then `stepi` `steps` times; the
    physical frames at each of the 1 + steps stops."""
    script = GDB_PRELUDE + f"break {location}\nrun {' '.join(args)}\npython alice_dump()\n"
    script += "stepi\npython alice_dump()\n" * steps
    key = hashlib.sha256(repr((location, steps, args)).encode()).hexdigest()[:12]
    script_path = program.with_name(f"{program.name}.{key}.gdb")
    script_path.write_text(script)
    result = subprocess.run(
        ["gdb", "-nx", "-batch", "-x", str(script_path), str(program)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    snapshots: list[list[GdbFrame]] = []
    frames: list[GdbFrame] = []
    for line in result.stdout.splitlines():
        if line.startswith("ALICE-FRAME "):
            _, pc, name, kind = line.split(" ", 3)
            if kind in ("inline", "tailcall"):
                continue  # no physical frame of their own: a CFI unwinder cannot see them
            frames.append(GdbFrame(int(pc, 16), None if name == "None" else name, kind))
        elif line == "ALICE-END":
            snapshots.append(frames)
            frames = []
    if len(snapshots) != steps + 1:
        raise AssertionError(f"gdb gave {len(snapshots)} stops:\n{result.stdout}\n{result.stderr}")
    return snapshots


@dataclass
class EngineSnapshot:
    frames: list[UnwoundFrame]
    registers: dict[str, int]


class Session:
    """The project's engine stopped somewhere, with unwind_stack over its state."""

    def __init__(self, dbg: Any) -> None:
        self.dbg = dbg
        self.events = dbg.subscribe()  # before the launch: its events are ours
        self.tables = CfiTables(dbg._symbols)
        self.thread = 0

    def launch(self, program: Path, args: list[str]) -> None:
        self.dbg.launch(LaunchConfig(str(program), tuple(args)))
        quiet = SignalPolicy(stop=False, pass_to_program=True, print_=False)
        for signo in (SIGUSR1, SIGSEGV):
            self.dbg.set_signal_policy(signo, quiet)

    def run_to(self, address: int) -> None:
        self.dbg.insert_breakpoint(address)
        deadline = time.monotonic() + 20
        self.dbg.resume()
        while True:
            stop = self._next_stop(deadline)
            if stop.reason is StopReason.BREAKPOINT:
                self.thread = stop.thread_id
                return
            self.dbg.resume()  # a crash signal stops regardless of the policy: pass it on

    def step(self) -> None:
        self.dbg.step_instruction(self.thread)
        stop = self._next_stop(time.monotonic() + 20)
        assert stop.reason is StopReason.STEP, stop

    def _next_stop(self, deadline: float) -> Stopped:
        while True:
            try:
                event = self.events.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError("the program did not stop") from None
            if isinstance(event, Stopped):
                return event

    def registers(self) -> dict[str, int]:
        return dict(self.dbg.read_registers(self.thread).values)

    def unwind(self, limit: int = 256) -> EngineSnapshot:
        registers = self.registers()
        frames = unwind_stack(
            registers, self.dbg.read_memory, self.dbg._symbols, self.tables, limit=limit
        )
        return EngineSnapshot(frames, registers)
