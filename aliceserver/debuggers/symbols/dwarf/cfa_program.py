"""Call-frame programs: raw-byte readers, pointer encodings and the DW_CFA_* interpreter.

Works on the bytes of `.eh_frame` / `.debug_frame` directly: pyelftools scales
`DW_CFA_def_cfa_sf` by the wrong factor and keeps no CFA expressions, which PLT stubs and
signal trampolines need. The interpreter turns a CIE's initial instructions plus an FDE's
instructions into a list of rows, one per address range, each holding the rules in force.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from aliceserver.debuggers.symbols.dwarf.rawread import ByteReader
from aliceserver.errors import TargetError

# DW_EH_PE_* pointer encodings: low nibble = value format, next three bits = base.
DW_EH_PE_OMIT = 0xFF
DW_EH_PE_INDIRECT = 0x80
_PE_FORMAT_MASK = 0x0F
_PE_BASE_MASK = 0x70
PE_ABSPTR = 0x00
PE_PCREL = 0x10  # relative to the address of the encoded value
PE_TEXTREL = 0x20
PE_DATAREL = 0x30  # relative to .eh_frame_hdr (in the hdr) or the GOT
PE_FUNCREL = 0x40
PE_ALIGNED = 0x50
_FIXED = {  # format -> (size, signed)
    0x00: (8, False),
    0x02: (2, False),
    0x03: (4, False),
    0x04: (8, False),
    0x0A: (2, True),
    0x0B: (4, True),
    0x0C: (8, True),
}
_ULEB, _SLEB = 0x01, 0x09

MASK64 = (1 << 64) - 1
RA_COLUMN = 16  # x86-64: the return address (rip) column
MAX_STATE_STACK = 64  # remember_state depth; deeper is a corrupt program, not a real one


class Reader(ByteReader):
    """The kit's byte cursor (rawread.py); every overrun raises TargetError."""

    __slots__ = ()

    def error(self, at: int, runaway: bool) -> Exception:
        if runaway:
            return TargetError("LEB128 number too long in call frame information")
        return TargetError(f"call frame information truncated at offset {at:#x}")


@dataclass(frozen=True, slots=True)
class Bases:
    """Where the encoded bytes live, for pc-relative and data-relative pointers."""

    section_vaddr: int  # link-time address of the section's first byte
    data: int | None = None  # DW_EH_PE_datarel base (.eh_frame_hdr start, or the GOT)
    text: int | None = None  # DW_EH_PE_textrel base
    func: int | None = None  # DW_EH_PE_funcrel base (the FDE's initial location)


def read_encoded(reader: Reader, encoding: int, bases: Bases) -> int:
    """A DW_EH_PE_* encoded pointer. Indirect pointers are returned as the slot address
    (callers that need the target read it themselves; only personality routines use it)."""
    if encoding == DW_EH_PE_OMIT:
        return 0
    base_kind = encoding & _PE_BASE_MASK
    if base_kind == PE_ALIGNED:
        reader.pos = (reader.pos + 7) & ~7
    at = reader.pos
    fmt = encoding & _PE_FORMAT_MASK
    if fmt == _ULEB:
        value = reader.uleb()
    elif fmt == _SLEB:
        value = reader.sleb()
    elif fmt in _FIXED:
        size, signed = _FIXED[fmt]
        value = reader.signed(size) if signed else reader.unsigned(size)
    else:
        raise TargetError(f"unknown pointer encoding {encoding:#x}")
    if base_kind == PE_PCREL:
        value += bases.section_vaddr + at
    elif base_kind in (PE_DATAREL, PE_TEXTREL, PE_FUNCREL):
        base = {PE_DATAREL: bases.data, PE_TEXTREL: bases.text, PE_FUNCREL: bases.func}[base_kind]
        if base is None:
            raise TargetError(f"pointer encoding {encoding:#x} needs a base this table lacks")
        value += base
    elif base_kind not in (PE_ABSPTR, PE_ALIGNED):
        raise TargetError(f"unknown pointer encoding {encoding:#x}")
    return value & MASK64


def encoded_size(encoding: int) -> int | None:
    """Byte size of a fixed-size encoding, None for LEB128 or unknown ones."""
    found = _FIXED.get(encoding & _PE_FORMAT_MASK)
    return found[0] if found else None


# --- rules ---------------------------------------------------------------------------------


class RuleKind(enum.Enum):
    UNDEFINED = "undefined"  # the caller's value is unknown (rip: this is the outermost frame)
    SAME_VALUE = "same"  # the caller's value is this frame's value
    OFFSET = "offset"  # saved at CFA + value
    VAL_OFFSET = "val_offset"  # the value is CFA + value
    REGISTER = "register"  # the value is in DWARF register `value`
    EXPRESSION = "expression"  # saved at the address the expression computes (CFA pushed first)
    VAL_EXPRESSION = "val_expression"  # the expression computes the value (CFA pushed first)


@dataclass(frozen=True, slots=True)
class Rule:
    kind: RuleKind
    value: int = 0  # offset or register number
    expression: bytes = b""


@dataclass(frozen=True, slots=True)
class CfaRule:
    """CFA = register + offset, or the value of `expression` when there is one."""

    register: int = 7
    offset: int = 8
    expression: bytes | None = None


@dataclass(frozen=True, slots=True)
class UnwindRow:
    """The rules in force over [low, high) (link-time addresses) of one FDE."""

    low: int
    high: int
    cfa: CfaRule
    rules: tuple[tuple[int, Rule], ...]  # (DWARF register, rule), sorted; absent = unspecified
    return_column: int = RA_COLUMN
    signal_frame: bool = False  # CIE augmentation "S": the pc is no return address
    args_size: int = 0  # DW_CFA_GNU_args_size

    def rule(self, register: int) -> Rule | None:
        for number, rule in self.rules:
            if number == register:
                return rule
        return None


@dataclass(frozen=True, slots=True)
class Cie:
    offset: int  # in its section
    code_align: int
    data_align: int
    return_column: int
    fde_encoding: int  # DW_EH_PE_* of FDE addresses ("R"), absptr without one
    lsda_encoding: int
    has_augmentation_data: bool  # "z": FDEs carry an augmentation length
    signal_frame: bool  # "S"
    address_size: int
    instructions: bytes


@dataclass(frozen=True, slots=True)
class Fde:
    offset: int
    cie: Cie
    low: int  # link-time
    high: int
    instructions: bytes
    instructions_vaddr: int  # for DW_CFA_set_loc with a pc-relative encoding


# --- the interpreter -------------------------------------------------------------------------

_State = tuple[CfaRule, dict[int, Rule]]


class _Machine:
    """Runs DW_CFA_* instructions, emitting a row each time the location advances."""

    def __init__(self, cie: Cie, fde: Fde, bases: Bases) -> None:
        self.cie = cie
        self.fde = fde
        self.bases = bases
        self.cfa = CfaRule()
        self.regs: dict[int, Rule] = {}
        self.initial: Mapping[int, Rule] = {}
        self.stack: list[_State] = []
        self.args_size = 0
        self.loc = fde.low
        self.rows: list[UnwindRow] = []

    def emit(self, until: int) -> None:
        if until <= self.loc:
            return
        high = min(until, self.fde.high)
        if high > self.loc:
            self.rows.append(
                UnwindRow(
                    low=self.loc,
                    high=high,
                    cfa=self.cfa,
                    rules=tuple(sorted(self.regs.items())),
                    return_column=self.cie.return_column,
                    signal_frame=self.cie.signal_frame,
                    args_size=self.args_size,
                )
            )
        self.loc = until

    def advance(self, delta: int) -> None:
        self.emit(self.loc + delta * self.cie.code_align)

    def run(self, reader: Reader, *, in_cie: bool) -> None:
        cie = self.cie
        daf = cie.data_align
        while reader.pos < reader.end:
            op = reader.u8()
            high2, low6 = op & 0xC0, op & 0x3F
            if high2 == 0x40:  # DW_CFA_advance_loc
                self.advance(low6)
            elif high2 == 0x80:  # DW_CFA_offset
                self.regs[low6] = Rule(RuleKind.OFFSET, reader.uleb() * daf)
            elif high2 == 0xC0:  # DW_CFA_restore
                self.restore(low6)
            elif op == 0x00:  # nop
                pass
            elif op == 0x01:  # set_loc
                where = Bases(
                    self.fde.instructions_vaddr, self.bases.data, self.bases.text, self.fde.low
                )
                self.emit(read_encoded(reader, cie.fde_encoding, where))
            elif op == 0x02:
                self.advance(reader.unsigned(1))
            elif op == 0x03:
                self.advance(reader.unsigned(2))
            elif op == 0x04:
                self.advance(reader.unsigned(4))
            elif op == 0x05:  # offset_extended
                reg = reader.uleb()
                self.regs[reg] = Rule(RuleKind.OFFSET, reader.uleb() * daf)
            elif op == 0x06:  # restore_extended
                self.restore(reader.uleb())
            elif op == 0x07:
                self.regs[reader.uleb()] = Rule(RuleKind.UNDEFINED)
            elif op == 0x08:
                self.regs[reader.uleb()] = Rule(RuleKind.SAME_VALUE)
            elif op == 0x09:  # register
                reg = reader.uleb()
                self.regs[reg] = Rule(RuleKind.REGISTER, reader.uleb())
            elif op == 0x0A:  # remember_state: the CFA too, like libgcc and gdb
                if len(self.stack) >= MAX_STATE_STACK:
                    raise TargetError("DW_CFA_remember_state nested too deeply")
                self.stack.append((self.cfa, dict(self.regs)))
            elif op == 0x0B:  # restore_state
                if not self.stack:
                    raise TargetError("DW_CFA_restore_state without remember_state")
                self.cfa, self.regs = self.stack.pop()
            elif op == 0x0C:  # def_cfa
                reg = reader.uleb()
                self.cfa = CfaRule(reg, reader.uleb())
            elif op == 0x0D:  # def_cfa_register (keeps the offset, drops any expression)
                self.cfa = CfaRule(reader.uleb(), self.cfa.offset)
            elif op == 0x0E:  # def_cfa_offset
                self.cfa = CfaRule(self.cfa.register, reader.uleb())
            elif op == 0x0F:  # def_cfa_expression
                self.cfa = CfaRule(self.cfa.register, 0, reader.take(reader.uleb()))
            elif op in (0x10, 0x16):  # expression, val_expression
                reg = reader.uleb()
                kind = RuleKind.EXPRESSION if op == 0x10 else RuleKind.VAL_EXPRESSION
                self.regs[reg] = Rule(kind, 0, reader.take(reader.uleb()))
            elif op == 0x11:  # offset_extended_sf
                reg = reader.uleb()
                self.regs[reg] = Rule(RuleKind.OFFSET, reader.sleb() * daf)
            elif op == 0x12:  # def_cfa_sf: the offset IS scaled by the data alignment factor
                reg = reader.uleb()
                self.cfa = CfaRule(reg, reader.sleb() * daf)
            elif op == 0x13:  # def_cfa_offset_sf
                self.cfa = CfaRule(self.cfa.register, reader.sleb() * daf)
            elif op == 0x14:  # val_offset
                reg = reader.uleb()
                self.regs[reg] = Rule(RuleKind.VAL_OFFSET, reader.uleb() * daf)
            elif op == 0x15:  # val_offset_sf
                reg = reader.uleb()
                self.regs[reg] = Rule(RuleKind.VAL_OFFSET, reader.sleb() * daf)
            elif op == 0x1D:  # MIPS_advance_loc8
                self.advance(reader.unsigned(8))
            elif op == 0x2D:  # GNU_window_save (SPARC): nothing to do on x86-64
                pass
            elif op == 0x2E:  # GNU_args_size
                self.args_size = reader.uleb()
            elif op == 0x2F:  # GNU_negative_offset_extended
                reg = reader.uleb()
                self.regs[reg] = Rule(RuleKind.OFFSET, -reader.uleb() * daf)
            else:
                raise TargetError(f"unknown call frame instruction {op:#x}")
        if in_cie:
            self.initial = dict(self.regs)

    def restore(self, reg: int) -> None:
        # Back to the CIE's initial rule; a register the CIE does not mention is unspecified.
        rule = self.initial.get(reg)
        if rule is None:
            self.regs.pop(reg, None)
        else:
            self.regs[reg] = rule


def fde_rows(fde: Fde, bases: Bases) -> list[UnwindRow]:
    """Every row of `fde`, covering [fde.low, fde.high) in address order."""
    machine = _Machine(fde.cie, fde, bases)
    machine.run(Reader(fde.cie.instructions), in_cie=True)
    if machine.stack:
        machine.stack.clear()  # a CIE's remembered states do not leak into its FDEs
    machine.loc = fde.low
    machine.rows.clear()  # advances in a CIE are meaningless; its rules hold from fde.low
    machine.run(Reader(fde.instructions), in_cie=False)
    machine.emit(fde.high)
    return machine.rows
