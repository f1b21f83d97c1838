"""Whether a breakpoint condition makes sense at one of its locations, with no program
stopped there: gdb parses a condition in the block of each location, looking up every
name it uses (a local or parameter there, a global, a function, a symbol of the ELF
tables), and refuses it, or disables that location, on the first name it cannot find.

Only names are checked, as gdb's parser does: members, types and values are the business
of each hit's evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf import types
from aliceserver.debuggers.symbols.dwarf.expr import ast

if TYPE_CHECKING:
    from aliceserver.debuggers.source.sourcesymbols import SourceSymbols
    from aliceserver.debuggers.symbols.dwarf.framescope import FrameScope


@dataclass(frozen=True, slots=True)
class _Link:
    """The little of a FrameContext that finding the scope at an address needs."""

    pc: int
    load_bias: int


def used_names(tree: ast.Expr) -> list[str]:
    """The names `tree` looks up, left to right (gdb's parse order); qualified names,
    whose scope may be a class or namespace, are left to the evaluation."""
    names: list[str] = []
    stack: list[object] = [tree]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Name):
            if "::" not in item.name.lstrip(":"):
                names.append(item.name.lstrip(":"))
        elif isinstance(item, tuple):
            stack.extend(reversed(item))
        elif hasattr(item, "__dataclass_fields__") and not isinstance(item, ast.TypeName):
            stack.extend(reversed([getattr(item, f) for f in item.__dataclass_fields__]))
    return names


def unknown_name(source: SourceSymbols, tree: ast.Expr, address: int) -> str | None:
    """gdb's error for the first name of `tree` not visible at `address`; None: all are."""
    module = source.symbols.module_at(address)
    symbols = source.module_symbols(module) if module is not None else None
    scope: FrameScope | None = None
    if module is not None and symbols is not None:
        scope = symbols.frame_scope(_Link(address, module.base), lookup_pc=address)  # type: ignore[arg-type]
    # In a C++ method a bare name may be a member of `this`'s class (or of a base), as
    # gdb's parser finds it; an object whose class is not known leaves it to the evaluation.
    this = scope.lookup("this") if scope is not None else None
    for name in used_names(tree):
        if this is not None and _class_knows(this.type, name):
            continue
        if scope is not None and scope.lookup(name) is not None:
            continue
        if any(other.find_global(name) is not None for _, other in source.all_module_symbols()):
            continue
        if source.symbols.lookup_name(name) is not None:
            continue
        if symbols is not None and symbols.find_type(name) is not None:
            continue  # a type name the parser took for a variable (`sizeof(T)`)
        return f'No symbol "{name}" in current context.'
    return None


def _class_knows(this_type: types.Type, name: str) -> bool:
    """Whether `name` is a member, static member or method of the class `this` points
    to or of one of its bases (True where the class cannot be read: not refused)."""
    target = types.strip(this_type)
    cls = types.strip(target.target) if isinstance(target, types.PointerType) else None
    return cls is None or _has_member(cls, name, 0)


def _has_member(cls: types.Type, name: str, depth: int) -> bool:
    if not isinstance(cls, types.StructType) or depth > 16:
        return not isinstance(cls, types.StructType)  # (unreadable: left to the evaluation)
    if any(m.name == name for m in cls.members if not m.is_base) or any(s.name == name for s in cls.statics):
        return True
    if cls.methods is not None and cls.methods(name):
        return True
    return any(_has_member(types.strip(m.type), name, depth + 1) for m in cls.members if m.is_base)
