"""gdb's error for a C++ name `A::B::c` that names nothing (c-exp.y's classify_name and
classify_inner_name): the first part of its scope that is no namespace or class is told,
or the namespace that lacks the name. A class that lacks it is the evaluator's
("There is no field named c")."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.names import split_qualified
from aliceserver.debuggers.symbols.dwarf.types import EnumType, FunctionType, StructType, strip

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr.evalsymbols import EvalSymbols


def missing_scoped_name(symbols: EvalSymbols, name: str) -> str | None:
    """gdb's words for `name` (qualified, not found), where its scope tells them; None
    where the symbols know no namespaces or the scope is a class."""
    is_namespace = getattr(symbols, "is_namespace", None)
    parts = split_qualified(name)
    if is_namespace is None or len(parts) < 2:
        return None

    def kind(scope: str) -> str | None:
        if is_namespace(scope):
            return "namespace"
        try:
            found = symbols.lookup_type(scope)
        except EvaluationError:
            return None
        return "class" if found is not None and isinstance(strip(found), (StructType, EnumType)) else None

    if kind(parts[0]) is None:
        if len(parts) == 2 and _is_function(symbols, parts[0]):  # gdb's FUNCTION::VARIABLE
            return f'No symbol "{parts[1]}" in specified context.'
        return f'No symbol "{parts[0]}" in current context.'
    for i in range(1, len(parts) - 1):
        if kind("::".join(parts[: i + 1])) is None:
            return f'No type "{parts[i]}" within class or namespace "{"::".join(parts[:i])}".'
    scope = "::".join(parts[:-1])
    return f'No symbol "{parts[-1]}" in namespace "{scope}".' if kind(scope) == "namespace" else None


def _is_function(symbols: EvalSymbols, name: str) -> bool:
    try:
        found = symbols.lookup(name)
    except EvaluationError:
        return False
    return found is not None and isinstance(strip(found.type), FunctionType)
