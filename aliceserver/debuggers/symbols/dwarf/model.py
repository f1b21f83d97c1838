"""Results of the DWARF location layer (frozen; addresses are link-time)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SourceLine:
    """The line-table row covering an address."""

    file: str  # absolute, normalized
    line: int
    column: int  # 0: unknown
    address: int  # start of the run of rows with this file and line (gdb's "starts at")
    is_stmt: bool


@dataclass(frozen=True, slots=True)
class LineResolution:
    """Where a `file:line` breakpoint binds."""

    file: str  # the full path of the (first) matching source file
    requested_line: int
    line: int  # the line actually bound: the next line with code when `requested_line` has none
    addresses: tuple[int, ...]  # one per function (or inlined copy in another function), sorted
    past_prologue: tuple[int, ...] = ()  # those a function's entry moved to (prologue skip)


@dataclass(frozen=True, slots=True)
class FunctionMatch:
    """A function found by name or address."""

    name: str  # demangled and qualified: `ns::Class::method(int)`, `crate::module::func`
    linkage_name: str  # the symbol table's name
    low: int
    high: int  # exclusive; low when the symbol has no size
    breakpoint_address: int  # after the prologue, as gdb's `break NAME`
    step_address: int  # where `step` into it stops (gdb skips less there: no line flags)
    file: str | None  # of the breakpoint address; None without line info
    line: int | None
