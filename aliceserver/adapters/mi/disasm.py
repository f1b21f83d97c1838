"""Disassembly as gdb shows it (AT&T, objdump spelling) for -data-disassemble and the console."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.adapters.gdbcommands.disasm_text import Label, instruction_text
from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.base import FunctionRanges
from aliceserver.debuggers.model import Instruction, SourcePosition
from aliceserver.errors import AliceError, TargetError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_MAX_FUNCTION = 20000  # instructions: a bound for a function without a size


@dataclass
class Line:
    insn: Instruction
    text: str  # `mov    -0x14(%rbp),%edx`

    @property
    def func(self) -> str | None:
        return self.insn.symbol.name if self.insn.symbol is not None else None

    @property
    def offset(self) -> int:
        return self.insn.symbol.offset if self.insn.symbol is not None else 0


class PartialDisassembly(TargetError):
    """The memory ended in the range (before run: its section's end): gdb fails there, its
    console having shown the instructions before (`lines`) and the address (`address`)."""

    def __init__(self, lines: list[Line], address: int) -> None:
        super().__init__(f"Cannot access memory at address {address:#x}")
        self.lines = lines
        self.address = address


def disassemble_range(session: MiSession, start: int, end: int) -> list[Line]:
    if end <= start:
        return []
    count = max(1, end - start)
    try:
        insns = session.debugger.disassemble(start, count, syntax="att")
    except TargetError as error:
        raise (PartialDisassembly([], start) if str(error).startswith("Cannot access memory") else error) from None
    lines = [Line(i, instruction_text(i, session_label(session))) for i in insns if i.address < end]
    reached = insns[-1].address + insns[-1].size if insns else start
    if reached < end:
        raise PartialDisassembly(lines, reached)
    return lines


def disassemble_count(session: MiSession, start: int, count: int) -> list[Line]:
    insns = session.debugger.disassemble(start, count, syntax="att")
    return [Line(i, instruction_text(i, session_label(session))) for i in insns]


def range_holding(session: MiSession, address: int) -> tuple[int, int] | None:
    """The range holding `address` of a function in several (gcc's f and f.cold), as gdb's
    find_pc_partial_function bounds it; None for a function in one piece."""
    debugger = session.debugger
    try:
        ranges = debugger.function_ranges(address) if isinstance(debugger, FunctionRanges) else None
    except AliceError:
        return None
    if ranges is None or len(ranges) < 2:
        return None
    return next(((low, high) for low, high in ranges if low <= address < high), None)


def function_at(session: MiSession, address: int) -> list[Line]:
    """The whole function holding `address` (by its symbol)."""
    symbol = session.debugger.lookup_address(address)
    if symbol.name is None:
        raise MiError("No function contains specified address.")
    start = address - symbol.offset
    lines: list[Line] = []
    at = start
    label = session_label(session)
    while len(lines) < _MAX_FUNCTION:
        try:
            insns = session.debugger.disassemble(at, 256, syntax="att")
        except TargetError:
            if not lines:
                raise
            break  # its section ends with it (before run, nothing is read past it)
        if not insns:
            break
        for insn in insns:
            if insn.symbol is None or insn.symbol.name != symbol.name or insn.address - insn.symbol.offset != start:
                return lines
            lines.append(Line(insn, instruction_text(insn, label)))
        at = insns[-1].address + insns[-1].size
    return lines


def session_label(session: MiSession) -> Label:
    """` <symbol+offset>` for an address, as gdb's print_address adds it."""

    def label(address: int) -> str:
        try:
            symbol = session.debugger.lookup_address(address)
        except AliceError:
            return ""
        if not symbol.name:
            return ""
        return f" <{symbol.name}{symbol.offset:+d}>" if symbol.offset else f" <{symbol.name}>"  # f.cold: <f-313>

    return label


def source_of(session: MiSession, address: int) -> SourcePosition | None:
    try:
        return session.debugger.source_position(address)
    except AliceError:
        return None


def address_of(session: MiSession, expression: str) -> int:
    """An address expression ($pc, &var, 0x401000, "$pc + 150", main) as a number."""
    text = expression.strip()
    try:
        number = int(text, 0)
    except ValueError:
        pass
    else:  # before `run`, a number is read from the program's image, as in gdb
        session.ensure_symbols()
        return number
    info = session.evaluate(text)
    if info.type.rstrip().endswith("]") and info.address is not None:
        return info.address  # an array decays to its address, as in gdb's value_as_address
    if info.type.rstrip().endswith(")") and info.address is not None and info.value.startswith("{"):
        return info.address  # a function is its entry (`{int (int)} <f>` under `print address off`)
    if info.value.startswith("(") and not re.search(r"0x[0-9a-fA-F]+", info.value):
        info = session.evaluate(text, fmt="x")  # `print address off` showed no number: /x does
    value = info.value
    match = re.search(r"0x[0-9a-fA-F]+", value)
    if value.startswith(("(", "{")) and match:
        return int(match.group(), 16)
    first = value.split()[0] if value.split() else ""
    try:
        return int(first, 0) % 2**64
    except ValueError:
        if match:
            return int(match.group(), 16)
        raise MiError(f"Invalid number \"{text}\".") from None
