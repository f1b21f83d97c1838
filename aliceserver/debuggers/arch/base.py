"""What the engine needs to know of a CPU, as one interface: gdb's name for it, its ELF
machine, its DWARF register numbers and gdb names, its pc / stack pointer / frame pointer /
link register, its breakpoint instruction, capstone's mode for it, the CFA and
return-address rules at a function's entry, the frame-record step that unwinds without CFI,
where a function's return value lives and gdb's `info registers` list.

Each architecture is one subclass (x86_64.py, aarch64.py); registry.py picks one by the
program's ELF e_machine or a target description's <architecture>. An architecture holds
no state: one instance serves every process of its kind.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from aliceserver.debuggers.model import SymbolLocation
    from aliceserver.debuggers.symbols.dwarf.types import Type

ReadMemory = Callable[[int, int], bytes]
Lookup = Callable[[int], "SymbolLocation"]
MASK64 = (1 << 64) - 1


@dataclass(frozen=True, slots=True)
class RegisterPiece:
    """`size` bytes from the low end of register `register` (a gdb name: rax, xmm0, st0,
    x0, v1...)."""

    register: str
    size: int


@dataclass(frozen=True, slots=True)
class ReturnLocation:
    """Where a function's return value is right after it returns: its bytes are the pieces
    in order (then zero-padded to the type's size), or it is in memory; then
    `address_register` holds its address after the return, or None where the ABI does not
    keep it (AAPCS64: x8 is not preserved, gdb cannot find the value either)."""

    pieces: tuple[RegisterPiece, ...] = ()
    in_memory: bool = False
    address_register: str | None = None


@dataclass(frozen=True, slots=True)
class CallerRegisters:
    """One frame-record step: the caller's CFA (its stack pointer at the call) and the
    registers known in it."""

    cfa: int
    registers: dict[str, int]


class Architecture(ABC):
    """One CPU as the engine sees it. Attributes are constants of the architecture."""

    name: str  # gdb's: `show architecture`, the target description's <architecture>
    e_machine: int  # ELF header's e_machine
    elf_machine_name: str  # pyelftools' name of it (EM_X86_64, EM_AARCH64)
    pointer_size: int
    byte_order: Literal["little", "big"]  # as int.from_bytes takes it
    # DWARF register number -> gdb name, for the registers the unwinder tracks.
    dwarf_registers: Mapping[int, str]
    pc: str
    sp: str
    fp: str
    link: str | None  # the link register, where calls leave the return address (x30)
    return_column: int  # the CFI column of the return address
    # What an outer frame keeps of its callee's registers where the CFI gives no rule
    # (gdb's same value): the callee-saved ones on x86-64, every one on aarch64.
    same_value: tuple[str, ...]
    breakpoint: bytes  # the trap instruction
    breakpoint_kind: int  # a Z0/Z1 packet's kind: the trap's size
    pc_after_trap: int  # bytes past the trap the pc stops (int3: 1; brk: 0)
    capstone_arch: str  # capstone's constant names, looked up when capstone is imported
    capstone_mode: str
    syntaxes: tuple[str, ...]  # disassembly flavours, the first the default
    gdb_registers: tuple[str, ...]  # `info registers` (general group) order

    # --- DWARF numbers ------------------------------------------------------------------
    def register_name(self, number: int) -> str | None:
        return self.dwarf_registers.get(number)

    def register_number(self, name: str) -> int | None:
        for number, known in self.dwarf_registers.items():
            if known == name:
                return number
        return None

    # --- unwinding ------------------------------------------------------------------------
    @abstractmethod
    def entry_cfa(self) -> tuple[str, int]:
        """The CFA at a function's first instruction: (register, offset)."""

    def entry_return_address(self, registers: Mapping[str, int], read: ReadMemory) -> int:
        """The return address at a function's first instruction (the default rule)."""
        register, offset = self.entry_cfa()
        cfa = (registers[register] + offset) & MASK64
        return self.read_pointer(read, cfa - self.pointer_size)

    def default_return_address(self, registers: Mapping[str, int]) -> int | None:
        """The return address when a CFI row gives no rule for it: the link register's
        value where there is one (a leaf that never saved it), None (no caller) where the
        return address is always on the stack."""
        return None if self.link is None else registers.get(self.link)

    @abstractmethod
    def frame_record_step(
        self, registers: Mapping[str, int], read: ReadMemory, lookup: Lookup, *, first: bool
    ) -> CallerRegisters | None:
        """The caller of a frame without CFI, through frame records (rbp chain, x29/x30
        records); frame 0 (`first`) may be in its prologue. None: nothing known."""

    def is_signal_trampoline(self, read: ReadMemory, pc: int) -> bool:
        """`pc` is the signal return trampoline (gdb's `<signal handler called>`)."""
        return False

    def signal_frame_step(self, registers: Mapping[str, int], read: ReadMemory) -> CallerRegisters:
        """The interrupted frame's registers from the signal frame the kernel pushed."""
        from aliceserver.errors import Unsupported

        raise Unsupported(f"Signal frames are not unwound on {self.name}.")

    # --- values ---------------------------------------------------------------------------
    @abstractmethod
    def return_location(self, value_type: Type) -> ReturnLocation:
        """Where a function returning `value_type` leaves its value (type class by type
        class, as its ABI says)."""

    def read_pointer(self, read: ReadMemory, address: int) -> int:
        from aliceserver.errors import TargetError

        data = read(address & MASK64, self.pointer_size)
        if len(data) != self.pointer_size:
            raise TargetError(f"short read at {address:#x}")
        return int.from_bytes(data, self.byte_order)

    def __repr__(self) -> str:
        return f"<Architecture {self.name}>"
