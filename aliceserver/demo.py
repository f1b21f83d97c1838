"""The quickstart demo: build the bundled example and debug it with the engine.

Stops at a function breakpoint, shows registers, the function's disassembly and a raw
backtrace, then runs to the end and prints the exit code.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

from aliceserver.debuggers.events import Exited, Output, Stopped
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import LaunchConfig, VariableScope
from aliceserver.debuggers.ptrace.engine import PtraceDebugger
from aliceserver.errors import AliceError

_SHOWN_REGISTERS = ("rip", "rsp", "rbp", "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "eflags")


def _build(workdir: Path) -> Path:
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        raise SystemExit("demo: a C compiler (gcc) is needed to build the example")
    source = workdir / "demo.c"
    source.write_text(resources.files("aliceserver.examples").joinpath("demo.c").read_text())
    program = workdir / "demo"
    flags = ["-g", "-O0", "-fno-omit-frame-pointer"]
    subprocess.run([compiler, *flags, "-o", str(program), str(source)], check=True)
    print(f"built {source.name} with {Path(compiler).name} {' '.join(flags)}")
    return program


def _next_stop(events: Subscription) -> Stopped | Exited:
    while True:
        event = events.get(timeout=30)
        if isinstance(event, Output):
            print(f"  program {event.category}: {event.text}", end="")
        elif isinstance(event, (Stopped, Exited)):
            return event


def _show(debugger: PtraceDebugger, stop: Stopped) -> None:
    tid = stop.thread_id
    where = debugger.lookup_address(stop.address or 0)
    print(f"\nstopped: {stop.reason.value} in {where.name}+{where.offset} (thread {tid})")
    values = debugger.read_registers(tid).values
    print("\nregisters:")
    for index, name in enumerate(_SHOWN_REGISTERS):
        end = "\n" if index % 2 else ""
        print(f"  {name:<7}{values[name]:#018x}", end=end)
    print(f"\ndisassembly of {where.name}:")
    start = (stop.address or 0) - where.offset
    for instruction in debugger.disassemble(start, 64):
        if instruction.symbol is None or instruction.symbol.name != where.name:
            break
        marker = "=>" if instruction.address == stop.address else "  "
        target = ""
        if instruction.target is not None and instruction.target.name:
            target = f" <{instruction.target.name}+{instruction.target.offset}>"
        text = f"{instruction.mnemonic} {instruction.operands}".strip()
        offset = instruction.address - start
        print(f"  {marker} {instruction.address:#x} <+{offset}>: {text}{target}")
    print("\nbacktrace (frame pointers):")
    for frame in debugger.backtrace(tid, limit=8):
        name = f"{frame.symbol.name}+{frame.symbol.offset}" if frame.symbol.name else "??"
        module = Path(frame.symbol.module).name if frame.symbol.module else "?"
        print(f"  #{frame.level} {frame.pc:#x} in {name} ({module})")
    print("\nstack (DWARF call frame information, with source lines):")
    for source_frame in debugger.stack_trace(tid, 0, 8):
        source = source_frame.source
        line = f"{Path(source.path).name}:{source.line}" if source else "no source"
        print(f"  #{source_frame.level} {source_frame.function or '??'} at {line}")
    print("\nlocals of the caller (frame 1):")
    for variable in debugger.frame_variables(tid, 1, VariableScope.LOCALS):
        print(f"  {variable.type} {variable.name} = {variable.value}")


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="aliceserver demo", description=__doc__)
    parser.add_argument("--function", default="fibonacci", help="where to stop (default: fibonacci)")
    options = parser.parse_args(args)
    with tempfile.TemporaryDirectory(prefix="aliceserver-demo-") as workdir:
        program = _build(Path(workdir))
        debugger = PtraceDebugger()
        events = debugger.subscribe()  # before the launch: its events are ours
        try:
            info = debugger.launch(LaunchConfig(str(program)))
            print(f"launched {program.name} as process {info.pid} (held before its first instruction)")
            address = debugger.lookup_symbol(options.function)
            breakpoint_ = debugger.insert_breakpoint(address)
            print(f"breakpoint {breakpoint_.id} at {address:#x} <{options.function}>")
            debugger.resume()
            stop = _next_stop(events)
            if isinstance(stop, Stopped):
                _show(debugger, stop)
                print("\ncontinuing to the end")
                debugger.remove_breakpoint(breakpoint_.id)
                debugger.resume()
                stop = _next_stop(events)
            if isinstance(stop, Exited):
                how = f"exit code {stop.code}" if stop.code is not None else f"signal {stop.signal_name}"
                print(f"process {stop.pid} exited with {how}")
                return 0
            print(f"unexpected stop: {stop}", file=sys.stderr)
            return 1
        except AliceError as error:
            print(f"demo: {error}", file=sys.stderr)
            return 1
        finally:
            debugger.close()
