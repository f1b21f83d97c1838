"""The second architecture: aarch64 programs cross-compiled at test time (-O0 and -O2),
run under qemu-user's gdb stub and read through the remote backend with the engine's
aarch64 Architecture (debuggers/arch), each reading compared with gdb-multiarch's over
the same kind of stub: registers by their description's names, a breakpoint (Z0) and its
stop, backtraces through CFI and through frame records, disassembly, and arguments and
locals read through DWARF's aarch64 register numbers."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from aliceserver.debuggers.arch.registry import AARCH64_ARCH, checked_against_description, of_elf
from aliceserver.debuggers.events import Stopped, StopReason
from aliceserver.debuggers.model import VariableScope
from aliceserver.debuggers.remote.process import RemoteProcess
from aliceserver.debuggers.source.retvalue import return_value_of
from aliceserver.debuggers.source.scopevalues import scope_values
from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
from aliceserver.debuggers.source.variables import FloatRegisters, FrameView
from aliceserver.debuggers.symbols.disasm import Disassembler
from aliceserver.debuggers.symbols.dwarf.cache import IndexCache
from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols, evaluate_expression
from aliceserver.debuggers.symbols.dwarf.format import FormatOptions, format_value
from aliceserver.debuggers.symbols.dwarf.locexpr import ImplicitLoc
from aliceserver.debuggers.symbols.dwarf.unwind import (
    UnwoundFrame,
    saved_register_slots,
    unwind_stack,
)
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.debuggers.symbols.process import ProcessSymbols
from tests.support.build import Builder, marker_line
from tests.support.elf import entry_point
from tests.support.qemu import backtrace_frames, build, gdb_multiarch, qemu_stub, sections, tool

PROGRAM = "aarch64_frames"
SOURCE = f"{PROGRAM}.c"


@pytest.fixture(params=["-O0", "-O2"])
def program(request: pytest.FixtureRequest, builder: Builder) -> Path:
    return build(builder, PROGRAM, str(request.param))


@dataclass
class Remote:
    """Our side: the remote process and the program's symbols at its link addresses
    (static, not PIE: qemu loads it there)."""

    process: RemoteProcess
    source: SourceSymbols

    @property
    def tid(self) -> int:
        return self.process.thread_ids()[0]

    def breakpoint_address(self) -> int:
        locations = self.source.resolve(f"{SOURCE}:{marker_line(SOURCE, 'leaf')}")
        assert len(locations) == 1, locations
        return locations[0].address

    def frames(self, *, cfi: bool = True) -> list[UnwoundFrame]:
        registers = self.process.general_registers(self.tid)
        if cfi:
            return self.source.unwind(registers, self.process.read_memory, 64)
        # No CFI at all: frame records (x29/x30) and the link register only.
        return unwind_stack(registers, self.process.read_memory, self.source.symbols,
                            lambda module: None, 64, AARCH64_ARCH)  # fmt: skip

    def continue_to_stop(self) -> Stopped:
        self.process.resume()
        event = self.process.wait(timeout=60)
        assert isinstance(event, Stopped), event
        return event


@pytest.fixture
def remote(program: Path, tmp_path: Path) -> Iterator[Remote]:
    with qemu_stub(program) as stub:
        process = RemoteProcess.connect(stub.address, timeout=30)
        symbols = ProcessSymbols()
        symbols.set_main(str(program), 0)
        source = SourceSymbols(symbols, IndexCache(str(tmp_path / "index")))
        try:
            yield Remote(process, source)
        finally:
            source.close()
            process.kill()
            process.close()


def _gdb_at_leaf(program: Path, hits: int, *commands: str) -> list[str]:
    """gdb-multiarch stopped at the `leaf` breakpoint's `hits`th hit: the breakpoint's
    message, then each command's output."""
    line = marker_line(SOURCE, "leaf")
    script = [f"break {SOURCE}:{line}", *["continue"] * hits]
    for command in commands:
        script += ["echo @@\\n", command]
    output = gdb_multiarch(program, script)
    return [output.split("@@\n", 1)[0], *sections(output)]


def _ours(frames: list[UnwoundFrame], count: int) -> list[tuple[int | None, str | None]]:
    return [(None if frame.level == 0 else frame.pc, frame.symbol.name) for frame in frames[:count]]


def test_first_stop_registers_by_the_description_names(remote: Remote, program: Path) -> None:
    process = remote.process
    assert process.arch is AARCH64_ARCH
    assert checked_against_description(of_elf(str(program)), process.description.architecture)
    registers = process.general_registers(remote.tid)
    assert [f"x{n}" for n in range(31)] + ["sp", "pc", "cpsr"] == list(registers)[:34]
    # qemu waits at the program's first instruction: its ELF entry, static and not PIE.
    assert registers["pc"] == entry_point(program) == process.last_stop().address  # type: ignore[union-attr]
    gdb = gdb_multiarch(program, ["echo @@\\n", "p/x $pc", "echo @@\\n", "p $x30 == 0"])
    pc, x30_zero = sections(gdb)
    assert pc == f"$1 = {registers['pc']:#x}"
    assert x30_zero == f"$2 = {int(registers['x30'] == 0)}"
    floats = process.float_registers(remote.tid)
    assert sorted(floats) == list(range(64, 96))  # v0-v31 by their DWARF numbers
    assert all(len(data) == 16 for data in floats.values())


def test_breakpoint_stop_and_backtrace_match_gdb(remote: Remote, program: Path) -> None:
    address = remote.breakpoint_address()
    remote.process.insert_breakpoint(address, kind=AARCH64_ARCH.breakpoint_kind)
    stop = remote.continue_to_stop()
    assert stop.reason is StopReason.BREAKPOINT and stop.address == address
    # brk (qemu's own breakpoints too) leaves the pc at the breakpoint: nothing to rewind.
    assert remote.process.general_registers(remote.tid)["pc"] == address
    ours_first = remote.frames()
    for _ in range(2):  # past middle's two calls, to the one at the bottom of the recursion
        remote.continue_to_stop()
    ours_deep = remote.frames()
    ours_records = remote.frames(cfi=False)

    placed, first_bt = _gdb_at_leaf(program, 1, "bt")
    assert f"Breakpoint 1 at {address:#x}:" in placed
    _, deep_bt = _gdb_at_leaf(program, 3, "bt")
    for gdb_bt, ours in ((first_bt, ours_first), (deep_bt, ours_deep), (deep_bt, ours_records)):
        expected = backtrace_frames(gdb_bt)
        assert expected[-1][1] == "main" and len(expected) >= 3
        assert _ours(ours, len(expected)) == expected
    assert [frame.method for frame in ours_deep[:3]] == ["first", "cfi", "cfi"]
    outer = ours_records[1 : len(backtrace_frames(deep_bt))]
    assert {frame.method for frame in outer} == {"frame-pointer"}


_IMMEDIATE = re.compile(r"#?(-?0x[0-9a-f]+|-?\d+)\b")
_FLOAT_IMMEDIATE = re.compile(r"#?(-?\d+\.\d*(?:e[+-]?\d+)?)")


def _normalised(mnemonic: str, operands: str) -> str:
    """An instruction with its numbers as numbers: capstone writes `#0x10` and `#-0x30`,
    gdb (libopcodes) `#16`, `#-48` and branch targets bare with their `<symbol>`; both are
    made decimal without `#`, floating immediates Python floats, spaces dropped, and gdb's
    `<...>` and `// comments` dropped."""
    operands = re.sub(r"\s*<[^>]*>\s*$", "", re.sub(r"\s*//.*$", "", operands))
    if _FLOAT_IMMEDIATE.search(operands):  # fmov: capstone `#4.0...`, gdb `#4.000e+00`
        return f"{mnemonic} " + _FLOAT_IMMEDIATE.sub(
            lambda match: repr(float(match.group(1))), operands
        ).replace(" ", "")
    text = _IMMEDIATE.sub(lambda match: str(int(match.group(1), 0)), operands)
    return f"{mnemonic} {text.replace(' ', '')}"


def test_disassembly_matches_gdb(remote: Remote, program: Path) -> None:
    for function in ("middle", "leaf", "recurse", "make_quad"):
        address = remote.source.symbols.lookup_name(function)
        assert address is not None
        code = remote.process.read_memory(address, 6 * 4)
        ours = Disassembler(AARCH64_ARCH).disassemble(code, address, 6)
        (gdb,) = sections(gdb_multiarch(program, ["echo @@\\n", f"x/6i {function}"]))
        expected = []
        for line in gdb.splitlines():
            at, _, text = line.partition(":\t")
            mnemonic, _, operands = text.partition("\t")
            listed = int(at.split()[-2 if at.endswith(">") else -1], 16)
            assert listed == address + 4 * len(expected)
            expected.append(_normalised(mnemonic, operands))
        assert [_normalised(i.mnemonic, i.operands) for i in ours] == expected, function


def _values(remote: Remote, frame: UnwoundFrame, scope: VariableScope) -> list[str]:
    process, tid = remote.process, remote.tid
    lookup_pc = frame.pc if frame.level == 0 else frame.pc - 1
    module = remote.source.symbols.module_at(lookup_pc)
    assert module is not None
    symbols = remote.source.module_symbols(module)
    assert symbols is not None
    floats = FloatRegisters(lambda: process.float_registers(tid), None)
    view = FrameView(frame, module.base, process.read_memory, process.write_memory, None,
                     floats=floats)  # fmt: skip
    return [f"{name} = {format_value(value)}"
            for name, value, *_ in scope_values(symbols, view, scope, lookup_pc)]  # fmt: skip


def test_arguments_and_locals_match_gdb(remote: Remote, program: Path) -> None:
    remote.process.insert_breakpoint(remote.breakpoint_address(), kind=4)
    remote.continue_to_stop()
    remote.continue_to_stop()  # the second call: leaf(1, 2)
    frames = remote.frames()
    commands = ["info args", "info locals", "up", "info args", "info locals"]
    gdb = _gdb_at_leaf(program, 2, *commands)[1:]
    leaf_args, leaf_locals, _, middle_args, middle_locals = gdb
    assert _values(remote, frames[0], VariableScope.ARGUMENTS) == _plain(leaf_args)
    assert _values(remote, frames[0], VariableScope.LOCALS) == _plain(leaf_locals)
    assert _values(remote, frames[1], VariableScope.ARGUMENTS) == _plain(middle_args)
    assert _values(remote, frames[1], VariableScope.LOCALS) == _plain(middle_locals)


def _plain(text: str) -> list[str]:
    """gdb's `info args`/`info locals` lines (`No locals.` is none)."""
    return [line for line in text.splitlines() if " = " in line]


def test_return_values_match_gdb_finish(remote: Remote, program: Path) -> None:
    """AAPCS64's return registers: a struct of two longs in x0-x1, a float HFA in s0-s3
    (v0-v3), an int in w0, each read as `finish` reads it after the return."""
    process, functions = remote.process, ("make_point", "make_quad", "leaf")
    for function in functions:
        address = remote.source.symbols.lookup_name(function)
        assert address is not None
        process.insert_breakpoint(address, kind=AARCH64_ARCH.breakpoint_kind)
    ours = []
    for function in functions:
        stop = remote.continue_to_stop()
        assert stop.address == remote.source.symbols.lookup_name(function)
        entry = remote.frames()[0]
        view = _view(remote, entry)
        symbols = remote.source.module_symbols(remote.source.symbols.module_at(entry.pc))  # type: ignore[arg-type]
        assert symbols is not None
        scope = symbols.frame_scope(view, lookup_pc=entry.pc)
        assert scope is not None and scope.function is not None
        returns = symbols.function_type(scope.function).return_type
        back = entry.registers["x30"]
        process.insert_breakpoint(back, kind=AARCH64_ARCH.breakpoint_kind)
        assert remote.continue_to_stop().address == back
        process.remove_breakpoint(back, kind=AARCH64_ARCH.breakpoint_kind)
        registers = process.general_registers(remote.tid)
        data, address = return_value_of(
            returns, AARCH64_ARCH, registers, process.float_registers(remote.tid)
        )
        assert data is not None and address is None
        after = _view(remote, remote.frames()[0])
        ours.append(format_value(Value(returns, ImplicitLoc(data), after)))
    script = [f"break {function}" for function in functions]
    gdb = gdb_multiarch(program, [*script, *["continue", "finish"] * len(functions)])
    expected = re.findall(r"^Value returned is \$\d+ = (.*)$", gdb, re.MULTILINE)
    assert ours == expected, (ours, expected)


def _view(remote: Remote, frame: UnwoundFrame) -> FrameView:
    process, tid = remote.process, remote.tid
    floats = FloatRegisters(lambda: process.float_registers(tid), None)
    return FrameView(frame, 0, process.read_memory, process.write_memory, None, floats=floats)


FUNCTIONS = ("leaf", "make_point", "make_quad", "middle", "recurse", "main")


def test_function_breakpoints_where_gdb_puts_them(program: Path, tmp_path: Path) -> None:
    """`break FUNCTION` past aarch64's prologue (the frame setup and the stores of its
    arguments, at -O0) as gdb's aarch64_skip_prologue; at its entry where gcc's location
    lists describe the arguments from there on (-O2)."""
    symbols = ProcessSymbols()
    symbols.set_main(str(program), 0)
    source = SourceSymbols(symbols, IndexCache(str(tmp_path / "index")))
    try:
        ours = [source.resolve(function)[0].address for function in FUNCTIONS]
    finally:
        source.close()
    script = [argument for function in FUNCTIONS for argument in ("-ex", f"break {function}")]
    gdb = subprocess.run(
        [tool("gdb-multiarch"), "-nx", "-batch", *script, str(program)],
        capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    assert ours == [
        int(at, 16) for at in re.findall(r"^Breakpoint \d+ at (0x[0-9a-f]+)", gdb, re.M)
    ]


REGISTERS = ("$pc", "$sp", "$lr", "$x1", "$w1", "$x29", "$fp", "$cpsr")  # $fp: gdb's frame base


def test_registers_by_gdbs_names_in_expressions(remote: Remote, program: Path) -> None:
    """`$pc`, `$sp`, `$lr`, `$xN`, `$wN`, `$fp` (gdb's frame base) and `$cpsr` as gdb's
    aarch64 names them, in the frame of the stop and (but $cpsr, which no frame saves) in
    its caller's."""
    remote.process.insert_breakpoint(remote.breakpoint_address(), kind=4)
    remote.continue_to_stop()
    frames = remote.frames()
    ours = []
    for frame, names in ((frames[0], REGISTERS), (frames[1], REGISTERS[:-1])):
        module = remote.source.symbols.module_at(frame.pc)
        assert module is not None
        symbols = remote.source.module_symbols(module)
        assert symbols is not None
        scope = FrameSymbols.at(symbols, _view(remote, frame))
        for name in names:
            ours.append(format_value(evaluate_expression(name, scope), FormatOptions(fmt="x")))
    commands = [f"p/x {name}" for name in REGISTERS] + ["up"]
    commands += [f"p/x {name}" for name in REGISTERS[:-1]]
    output = gdb_multiarch(
        program, [f"break {SOURCE}:{marker_line(SOURCE, 'leaf')}", "continue", *commands]
    )
    assert ours == re.findall(r"^\$\d+ = (.*)$", output, re.MULTILINE)


def test_saved_registers_of_a_caller_match_gdbs_info_frame(remote: Remote, program: Path) -> None:
    """Where middle's CFI saves its caller's x29 and x30 (the return column by its name)."""
    remote.process.insert_breakpoint(remote.breakpoint_address(), kind=4)
    remote.continue_to_stop()
    frames = remote.frames()
    slots = saved_register_slots(
        frames[1], remote.process.read_memory, remote.source.symbols, remote.source.cfi
    )
    (info,) = _gdb_at_leaf(program, 1, "up", "info frame")[2:]
    saved = info.split("Saved registers:\n", 1)[1].strip()
    assert ", ".join(f"{name} at {address:#x}" for name, address in slots) == saved
    assert frames[1].cfa is not None and f"frame at {frames[1].cfa:#x}:" in info
