"""Expressions with no program at all (no file loaded): gdb still evaluates literals, its
own types, the value history and convenience variables, whose values live in gdb's memory.
Only a symbol looked up, a register read, or a value that must live in the program's
memory (a string's address) needs more, each with gdb's own error."""

from __future__ import annotations

from dataclasses import dataclass, field

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError, MemoryLoc
from aliceserver.debuggers.symbols.dwarf.types import ArrayType, Type, strip
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.errors import TargetError

NO_SYMBOL_TABLE = 'No symbol table is loaded.  Use the "file" command.'
NEEDS_TARGET = "evaluation of this expression requires the target program to be active"

# Without a file gdb's architecture is i386: its registers (and the generic $pc, $sp, $fp,
# $ps) are registers of no frame, "No registers."; x86-64's names are convenience variables.
_I386_REGISTERS = frozenset(
    ["pc", "sp", "fp", "ps", "eip", "eflags", "cs", "ss", "ds", "es", "fs", "gs", "fs_base", "gs_base"]
    + [f"{p}{r}" for p in ("e", "") for r in ("ax", "cx", "dx", "bx", "sp", "bp", "si", "di")]
    + [f"{r}{h}" for r in "acdb" for h in "lh"]
    + [f"st{n}" for n in range(8)] + [f"xmm{n}" for n in range(8)] + [f"mm{n}" for n in range(8)]
    + ["fctrl", "fstat", "ftag", "fiseg", "fioff", "foseg", "fooff", "fop", "mxcsr", "orig_eax"]
)


@dataclass(frozen=True)
class NoMemory:
    """The FrameContext of no program: nothing to read or write."""

    pc: int = 0
    load_bias: int = 0
    fs_base: int | None = None

    def read_memory(self, address: int, size: int) -> bytes:
        raise TargetError(f"Cannot access memory at address {address:#x}")

    def register(self, regno: int) -> int | None:
        return None

    def cfa(self) -> int | None:
        return None

    def write_memory(self, address: int, data: bytes) -> None:
        raise TargetError(f"Cannot access memory at address {address:#x}")

    def write_register(self, regno: int, value: int) -> None:
        raise TargetError("No registers.")


@dataclass
class NoProgramSymbols:
    """EvalSymbols with no symbol table: every name is gdb's error, no type is found
    beyond the evaluator's built-in ones."""

    frame: NoMemory = field(default_factory=NoMemory)
    cplus: bool = False
    input_radix: int = 10  # gdb's input-radix: numbers typed in

    def lookup(self, name: str) -> Value | None:
        return None  # the parser asks this of every name: the error is no_symbol's

    def lookup_type(self, name: str) -> Type | None:
        return None

    def check_register(self, name: str) -> None:
        """gdb's error when `$name` is a register; else it is a convenience variable."""
        if name in _I386_REGISTERS:
            raise EvaluationError("No registers.")


def no_symbol(symbols: object, name: str) -> str:
    """gdb's error for a name not found: without a symbol table, that there is none."""
    return NO_SYMBOL_TABLE if isinstance(symbols, NoProgramSymbols) else f'No symbol "{name}" in current context.'


def coerce_to_target(symbols: object, value: Value) -> None:
    """gdb's value_coerce_to_target: an array in gdb's memory (a string literal, a
    convenience variable's) used by address is copied into the program first, which
    cannot be done without one."""
    if isinstance(symbols, NoProgramSymbols) and isinstance(strip(value.type), ArrayType) \
            and not isinstance(value.location, MemoryLoc):
        raise EvaluationError(NEEDS_TARGET)
