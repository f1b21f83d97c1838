"""A variable as the DWARF describes it: its kind (parameter, local, static, global,
thread-local, function, enumerator), its DIE and type, and the tests on them."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import resolved_attr
from aliceserver.debuggers.symbols.dwarf.types import Type


class VarKind(enum.Enum):
    """Where a variable lives and how gdb names its class (info scope, info address)."""

    PARAMETER = "parameter"
    LOCAL = "local"
    STATIC_LOCAL = "static local"
    GLOBAL = "global"
    STATIC = "static"  # file-scope static
    THREAD_LOCAL = "thread local"
    FUNCTION = "function"
    CONSTANT = "constant"  # an enumerator


@dataclass(frozen=True, slots=True, eq=False)
class Variable:
    """A variable, parameter, function or enumerator found in the DWARF, with its type."""

    name: str
    kind: VarKind
    die: DIE
    type: Type
    frame_function: DIE | None = None  # the DW_TAG_subprogram whose frame base applies
    shadowed: bool = False
    depth: int = 0  # of a local: lexical blocks between its declaration and the function
    position: int = 0  # its place among its block's DIEs (inherited abstract ones last)


def is_constant(var: Variable) -> bool:
    """gdb's LOC_CONST: an enumerator, or a variable with DW_AT_const_value (no place)."""
    return var.kind is VarKind.CONSTANT or "DW_AT_const_value" in var.die.attributes


def global_kind(die: DIE) -> VarKind:
    """A file-scope variable's kind: thread-local when its location ends in
    DW_OP_form_tls_address / GNU_push_tls_address, else global (external) or static."""
    attr = die.attributes.get("DW_AT_location")
    if attr is not None and isinstance(attr.value, list) and attr.value:
        if attr.value[-1] in (0xE0, 0x9B):
            return VarKind.THREAD_LOCAL
    return VarKind.GLOBAL if resolved_attr(die, "DW_AT_external") else VarKind.STATIC
