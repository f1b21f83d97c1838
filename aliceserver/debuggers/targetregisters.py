"""The registers a target describes beyond its architecture's own (a stub's target
description: qemu's system registers, SVE's vg...), for the front ends that list them as
gdb does (`info registers`, -data-list-register-*): their names in gdb's numbering order,
types and groups, and their raw values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from collections.abc import Sequence

    from aliceserver.debuggers.model import VariableInfo
    from aliceserver.debuggers.symbols.dwarf.types import Type

# The description's predefined scalar types (gdb's target-descriptions.c): the rest are
# floats, vectors, or the description's own unions and flags.
_INTEGERS = frozenset(("int", "int8", "int16", "int32", "int64", "int128", "uint8", "uint16", "uint32",
                       "uint64", "uint128", "long", "code_ptr", "data_ptr"))  # fmt: skip


@dataclass(frozen=True, slots=True)
class TargetRegister:
    name: str
    bitsize: int
    type: str  # the description's: int64, code_ptr, ieee_double, svev...
    group: str  # the description's group, "" where it gives none
    feature: str = ""  # the description's feature holding it (org.gnu.gdb.i386.core...)
    kind: str = ""  # its type seen by gdb's groups: "float", "vector" or neither ("")

    @property
    def integer(self) -> bool:
        return self.type in _INTEGERS

    @property
    def general(self) -> bool:
        """In gdb's general group (default_register_reggroup_p: neither float nor vector;
        a description's own type counts as neither only where it says `general`)."""
        return self.group == "general" or self.integer

    def in_group(self, group: str) -> bool:
        """gdb's tdesc_register_reggroup_p: the description's group, else by type."""
        if group in ("all", self.group):
            return True
        if group in ("float", "vector"):
            return self.kind == group
        return group == "general" and not self.kind


@runtime_checkable
class HasTargetRegisters(Protocol):
    def target_registers(self) -> tuple[TargetRegister, ...]:
        """The target description's registers in order; empty where there is none (a
        native process: its architecture's own registers are all there are)."""
        ...

    def read_target_register(self, thread_id: int, name: str) -> bytes:
        """A described register's raw bytes (target order) in thread `thread_id`."""
        ...


@runtime_checkable
class DescribedRegisters(Protocol):
    """A process whose registers a target description types (a stub's)."""

    def described_register(self, tid: int, name: str) -> tuple[Type, bytes] | None:
        """Register `name` with the type gdb gives it from the description, and its raw
        bytes in thread `tid`; None where the description has no such register (or types
        it as gdb does not from the description alone)."""
        ...


@runtime_checkable
class RegisterListing(Protocol):
    """Many registers of one frame in one request (an engine's `register_lists`)."""

    def contents(self, thread_id: int | None, level: int, names: Sequence[str]) -> list[bytes | None]:
        """Each register's raw bytes (a pseudo register's own), None where it has none."""
        ...

    def values(self, thread_id: int | None, level: int, names: Sequence[str], fmt: str | None) -> list[VariableInfo]:
        """Each register as print/FMT shows `$name` (`fmt` None: natural)."""
        ...
