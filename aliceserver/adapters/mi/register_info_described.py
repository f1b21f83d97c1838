"""`info registers` and `info all-registers` on a CPU other than x86-64 (aarch64), in gdb's
numbering order (registers.register_names): the target description's registers, in the
groups the description gives them or their types put them in (tdesc_register_reggroup_p:
float, vector, general for the rest), then aarch64-tdep.c's pseudo registers (q, d, s, h
and b views, v0-v31 over SVE's z registers, w0-w30) in the groups gdb gives them. Each
line is the evaluator's `$name`, laid out by register_info.py."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.adapters.mi.registers import register_names
from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.debuggers.arch.base import Architecture
from aliceserver.debuggers.targetregisters import HasTargetRegisters, TargetRegister

# `info registers` group names, in the order a prefix is matched against them
GROUPS = ("general", "float", "system", "vector", "all", "save", "restore")
# aarch64_pseudo_register_reggroup_p: the groups of each pseudo register's letter
_PSEUDO_GROUPS = {"q": ("vector",), "d": ("vector", "float"), "s": ("vector", "float"), "h": ("vector",),
                  "b": ("vector",), "v": ("vector",), "w": ()}  # fmt: skip

Line = Callable[[str], str]  # a register's line, by the evaluator


def info_registers(
    ctx: Context, tid: int, arch: Architecture, text: str, print_all: bool, line: Line
) -> None:
    words = text.split()
    for word in ["all" if print_all else "general"] if print_all or not words else words:
        for name in _names(ctx, arch, word):  # each word's lines before the next's error, as gdb
            ctx.console(line(name))


def _described(ctx: Context) -> dict[str, TargetRegister]:
    debugger = ctx.session.debugger
    if not isinstance(debugger, HasTargetRegisters):
        return {}
    return {r.name: r for r in debugger.target_registers()}


def _in_group(
    name: str, group: str, described: dict[str, TargetRegister], arch: Architecture
) -> bool:
    register = described.get(name)
    if register is not None:
        return register.in_group(group) or (group in ("save", "restore"))
    if group == "all":
        return True
    letter, number = name[:1], name[1:]
    if letter in _PSEUDO_GROUPS and number.isdigit() and name not in arch.gdb_registers:
        return group in _PSEUDO_GROUPS[letter]
    # the architecture's own, where no description names them
    vector = letter == "v" and number.isdigit()
    return group == ("vector" if vector else "general") or (group in ("save", "restore"))


def _names(ctx: Context, arch: Architecture, word: str) -> tuple[str, ...]:
    """The registers `word` names: one register, or a group (by a prefix of its name)."""
    described = _described(ctx)
    numbered = tuple(name for name in register_names(ctx.session) if name)
    name = word[1:] if word.startswith("$") else word
    if not name:
        raise MiError("Missing register name")
    if name in numbered or name in ("lr", "fp"):
        return (name,)
    groups = GROUPS + tuple(sorted({r.group for r in described.values() if r.group} - set(GROUPS)))
    found = next((g for g in groups if g.startswith(name)), None)
    if found is None:
        raise MiError(f"Invalid register `{name}'")
    return tuple(each for each in numbered if _in_group(each, found, described, arch))
