"""A frame's variables read for one scope (arguments, locals innermost block first, the
CU's globals), the arguments' values at the function's entry (gdb's NAME@entry), and
gdb's test that a value still equals its entry value (`x=x@entry=5`)."""

from __future__ import annotations

from aliceserver.debuggers.model import VariableScope
from aliceserver.debuggers.source.variables import FrameView
from aliceserver.debuggers.symbols.dwarf.dietree import children as die_children
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.types import ReferenceType, strip
from aliceserver.debuggers.symbols.dwarf.values import Value
from aliceserver.errors import TargetError


def scope_values(
    symbols: ModuleSymbols, view: FrameView, scope: VariableScope, lookup_pc: int
) -> list[tuple[str, Value, int, bool, int]]:
    """(name, value, block depth, whether it has no DW_AT_location, place in its block) of
    the frame's arguments, locals (innermost block first) or CU globals."""
    frame_scope = symbols.frame_scope(view, lookup_pc=lookup_pc, inline_outer=view.inline_outer)
    if frame_scope is None:
        return []
    if scope is VariableScope.ARGUMENTS:
        variables = frame_scope.arguments()
    elif scope is VariableScope.LOCALS:  # as gdb's info locals: shadowed names too
        variables = frame_scope.locals(include_shadowed=True)
    else:
        variables = []
        for name in cu_global_names(frame_scope.cu):
            var = symbols.find_global(name, frame_scope.cu)
            if var is not None:
                variables.append(var)
    if scope is VariableScope.ARGUMENTS:  # listed as declared, valued as gdb looks them up
        return [(var.name, symbols.value_of(shown, view), var.depth,
                 "DW_AT_location" not in var.die.attributes, var.position)
                for var, shown in zip(variables, frame_scope.shown_arguments(), strict=True)]  # fmt: skip
    return [(var.name, symbols.value_of(var, view), var.depth,
             "DW_AT_location" not in var.die.attributes, var.position) for var in variables]


def entry_values(symbols: ModuleSymbols, view: FrameView, lookup_pc: int) -> list[Value | None]:
    """The arguments' values at the function's entry (gdb's NAME@entry), in the order of
    scope_values' arguments; None where the caller's call site gives none."""
    frame_scope = symbols.frame_scope(view, lookup_pc=lookup_pc, inline_outer=view.inline_outer)
    if frame_scope is None:
        return []
    arguments = frame_scope.shown_arguments()
    candidates = frame_scope.entry_candidates(view)
    # No caller frame (main's, or one not found), or no argument with a location at the
    # entry: none has an entry value, told without looking each up (naming the missing
    # caller for each: 50 us at each of main's stops; a caller unwound for nothing: 30 us)
    if not any(candidates) or view.caller_frame() is None:
        return [None] * len(arguments)
    return [symbols.entry_value_of(var, view) if may else None
            for var, may in zip(arguments, candidates, strict=True)]  # fmt: skip


def same_as_entry(value: Value, entry: Value) -> bool:
    """gdb's test for `x=x@entry=5`: the same bytes, and for a reference the same bytes
    referred to (a value that cannot be read is never the same)."""
    try:
        if value.data() != entry.data():
            return False
        if isinstance(strip(value.type), ReferenceType):
            return value.pointer_target().data() == entry.pointer_target().data()
    except (EvaluationError, TargetError):
        return False
    return True


def cu_global_names(cu: object) -> list[str]:
    """Names of the variables declared at the top of a compilation unit."""
    top = cu.get_top_DIE()  # type: ignore[attr-defined]
    names = []
    for die in die_children(top):
        if die.tag == "DW_TAG_variable" and "DW_AT_name" in die.attributes:
            name = die.attributes["DW_AT_name"].value
            names.append(name.decode(errors="replace") if isinstance(name, bytes) else str(name))
    return names
