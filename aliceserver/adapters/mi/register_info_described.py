"""`info registers` on a CPU other than x86-64 (aarch64): the architecture's general
registers (its gdb_registers: the core feature and the fpu's status words), then those the
target's description adds in gdb's general group (qemu's system registers, SVE's vg), in
gdb's numbering order. Named registers may be any of these, their w views, `lr` and `fp`.
Other groups and `info all-registers` are not listed yet, and say so."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.targetregisters import HasTargetRegisters, TargetRegister

# `info registers` group names, in the order a prefix is matched against them
GROUPS = ("general", "float", "system", "vector", "all", "save", "restore")
_NAME_COLUMN = 15
_NATURAL_COLUMN = 35

Line = Callable[[str], str]  # the architecture's own register's line, by the evaluator


def info_registers(ctx: Context, tid: int, arch: Architecture, text: str, print_all: bool, line: Line) -> None:
    described = _described(ctx, arch)
    for name in _names(arch, described, text, print_all):
        register = described.get(name)
        if register is not None:
            ctx.console(_described_line(ctx, tid, register))
            continue
        shown = line(name)
        if shown.startswith(name.ljust(_NAME_COLUMN - 1) + " $"):  # the evaluator's refusal
            raise MiError(shown[_NAME_COLUMN:].strip())
        ctx.console(shown)


def _described(ctx: Context, arch: Architecture) -> dict[str, TargetRegister]:
    """The description's registers beyond the architecture's own."""
    debugger = ctx.session.debugger
    if not isinstance(debugger, HasTargetRegisters):
        return {}
    return {r.name: r for r in debugger.target_registers() if r.name not in arch.gdb_registers}


def _names(arch: Architecture, described: dict[str, TargetRegister], text: str, print_all: bool) -> tuple[str, ...]:
    general = arch.gdb_registers + tuple(name for name, r in described.items() if r.general)
    words = text.split()
    if print_all:
        raise MiError(f"info all-registers is not supported on {arch.name} yet: use info registers.")
    if not words:
        return general
    names: tuple[str, ...] = ()
    for word in words:
        name = word[1:] if word.startswith("$") else word
        if not name:
            raise MiError("Missing register name")
        views = (f"w{n}" for n in range(31))  # the general registers' 32-bit halves
        if name in arch.gdb_registers or name in views or name in ("lr", "fp"):
            names += (name,)
        elif name in described and described[name].integer:
            names += (name,)
        elif name in described:
            raise MiError(f"info registers {name} is not supported on {arch.name} yet: its type is {described[name].type}.")
        elif any(group.startswith(name) for group in GROUPS):
            if not "general".startswith(name):
                raise MiError(f"Register group `{name}' is not supported on {arch.name} yet.")
            names += general
        else:
            raise MiError(f"Invalid register `{name}'")
    return names


def _described_line(ctx: Context, tid: int, register: TargetRegister) -> str:
    """gdb's line for an integer register of the description: hex, then its natural value
    (signed for `int`, a symbol after a code pointer)."""
    debugger = ctx.session.debugger
    assert isinstance(debugger, HasTargetRegisters)
    raw = int.from_bytes(debugger.read_target_register(tid, register.name), "little")
    hexed = hex(raw)
    if register.type == "code_ptr":
        found = debugger.lookup_address(raw)
        natural = hexed + (f" <{found.name}+{found.offset}>" if found.offset else f" <{found.name}>") if found.name else hexed
    elif register.type == "data_ptr":
        natural = hexed
    elif register.type.startswith("uint"):
        natural = str(raw)
    else:
        natural = str(raw - (1 << register.bitsize) if raw >> (register.bitsize - 1) & 1 else raw)
    head = register.name.ljust(_NAME_COLUMN - 1) + " " + hexed
    return head.ljust(_NATURAL_COLUMN - 1) + " " + natural + "\n"
