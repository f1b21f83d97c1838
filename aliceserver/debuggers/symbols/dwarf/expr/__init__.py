"""The C-like expression evaluator behind conditions, watches, hovers, print and set var.

Its entry points (entry.py) are imported on first use of their names here: importing the
package for a light module of it (condition_ir, which jump patches compile, and whose
importers every start imports) loaded the parser and the evaluator, a dozen modules a
session to a first stop never runs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.expr import ast
    from aliceserver.debuggers.symbols.dwarf.expr.entry import (
        EvalSymbols,
        EvaluationError,
        FrameSymbols,
        evaluate_expression,
        parse,
        parse_expression,
        whatis_value,
    )

__all__ = [
    "EvalSymbols",
    "EvaluationError",
    "FrameSymbols",
    "ast",
    "evaluate_expression",
    "parse",
    "parse_expression",
    "whatis_value",
]

_ENTRY_POINTS = frozenset(__all__) - {"ast"}  # (ast is a submodule: imported as one)


def __getattr__(name: str) -> Any:
    if name in _ENTRY_POINTS:
        return getattr(importlib.import_module(f"{__name__}.entry"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
