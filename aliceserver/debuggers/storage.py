"""Where a symbol lives, for gdb's `info address` and `info scope`: its storage class and
its DWARF expressions decoded for showing (frozen, slotted dataclasses, as model.py's)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DwarfOperation:
    """One decoded operation of a DWARF expression, for showing it (gdb's `info address`)."""

    offset: int  # from the start of the whole expression
    end: int  # the offset after it
    name: str  # as the DWARF standard names it: "DW_OP_fbreg"
    operands: tuple[int, ...] = ()
    register: str = ""  # the register a DW_OP_reg*, breg*, regx or bregx names: "rbp"
    inner: DwarfExpression | None = None  # DW_OP_entry_value's expression


@dataclass(frozen=True, slots=True)
class DwarfExpression:
    """A DWARF expression decoded to its end, or up to the place `error` tells about."""

    operations: tuple[DwarfOperation, ...] = ()
    error: str = ""  # why decoding stopped: corrupt bytes, an operation it cannot read
    unsupported: bool = False  # the error is an operation aliceserver does not read (yet)


@dataclass(frozen=True, slots=True)
class LocationEntry:
    """One entry of a DWARF location list: the runtime range it covers, its expression, and
    the list's base address (link-time, as gdb shows it) when a base entry came just before."""

    low: int
    high: int
    expression: DwarfExpression
    base: int | None = None


class StorageKind(enum.Enum):
    """How a symbol is stored (gdb's address classes)."""

    FUNCTION = "function"
    STATIC = "static"  # at a fixed address
    COMPUTED = "computed"  # a DWARF expression
    LOCATION_LIST = "location list"
    OPTIMIZED_OUT = "optimized out"
    CONSTANT = "constant"
    NO_DEBUG_INFO = "no debug info"  # an ELF symbol only


@dataclass(frozen=True, slots=True)
class SymbolStorage:
    """Where a symbol lives, for gdb's `info address` and `info scope`."""

    name: str
    kind: StorageKind
    size: int = 0  # bytes of its type
    address: int | None = None  # FUNCTION, STATIC, NO_DEBUG_INFO (runtime)
    expression: DwarfExpression = DwarfExpression()  # COMPUTED
    entries: tuple[LocationEntry, ...] = ()  # LOCATION_LIST
    value: int | None = None  # CONSTANT
    frame_base: DwarfExpression = DwarfExpression()  # its function's DW_AT_frame_base (DW_OP_fbreg's base)
