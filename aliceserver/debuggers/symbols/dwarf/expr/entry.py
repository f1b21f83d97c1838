"""The expression evaluator's entry points: parse an expression (C's or Rust's grammar, by
the frame's language), evaluate it over one frame's symbols (FrameSymbols), `whatis`.

Imported by the package (__init__.py) on first use of one of these names."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from aliceserver.debuggers.symbols.dwarf.callsites import needs_frame
from aliceserver.debuggers.symbols.dwarf.dieattrs import attr_value
from aliceserver.debuggers.symbols.dwarf.dynamic import Rtti
from aliceserver.debuggers.symbols.dwarf.expr import ast
from aliceserver.debuggers.symbols.dwarf.expr.dollars import SessionValues
from aliceserver.debuggers.symbols.dwarf.expr.evalsymbols import EvalSymbols
from aliceserver.debuggers.symbols.dwarf.expr.evaluate import Evaluator
from aliceserver.debuggers.symbols.dwarf.expr.parser import SyntaxNear, parse
from aliceserver.debuggers.symbols.dwarf.expr.rust_eval import RustEvaluator
from aliceserver.debuggers.symbols.dwarf.expr.rust_parser import parse_rust
from aliceserver.debuggers.symbols.dwarf.framescope import FrameScope
from aliceserver.debuggers.symbols.dwarf.languages import C
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.type_builder import is_cplus
from aliceserver.debuggers.symbols.dwarf.types import QualifiedType, Type, TypedefType
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value
from aliceserver.debuggers.symbols.dwarf.variable import Variable, VarKind, is_constant

log = logging.getLogger(__name__)

__all__ = [
    "EvalSymbols",
    "EvaluationError",
    "FrameSymbols",
    "ast",
    "evaluate_expression",
    "parse",
    "parse_expression",
]


@dataclass
class FrameSymbols:
    """EvalSymbols over one module's DWARF at one frame (scope None: globals only)."""

    module: ModuleSymbols
    frame: FrameContext
    scope: FrameScope | None = None
    _types: dict[str, Type | None] = field(default_factory=dict)

    @classmethod
    def at(cls, module: ModuleSymbols, frame: FrameContext) -> FrameSymbols:
        return cls(module, frame, module.frame_scope(frame))

    @property
    def cplus(self) -> bool:
        if self.scope is None:
            return False
        return is_cplus(self.scope.cu.get_top_DIE())

    @property
    def c_names(self) -> bool:
        """The frame's unit is C: a struct, union or enum tag is no bare type name there."""
        return self.scope is not None and attr_value(self.scope.cu.get_top_DIE(), "DW_AT_language") in C

    @property
    def rust_scope(self) -> str | None:
        """The module path of the frame's function (`r::shapes`) when its unit is Rust."""
        return self.scope.rust_module if self.scope is not None else None

    def lookup(self, name: str) -> Value | None:
        if self.scope is not None:
            var = self.scope.lookup(name)
        else:
            var = self.module.find_global(name)
        return None if var is None else self.module.value_of(var, self.frame)

    def lookup_local(self, name: str) -> Value | None:
        """A local or parameter of the frame alone (Rust looks there before its scope)."""
        var = self.scope.local(name) if self.scope is not None else None
        return None if var is None else self.module.value_of(var, self.frame)

    def functions(self, name: str) -> list[Value]:
        """Every function called `name` with code in this module (C++ overloads)."""
        cu = self.scope.cu if self.scope is not None else None
        units = self.module.units
        return [
            self.module.value_of(Variable(name, VarKind.FUNCTION, die, self.module.function_type(die)), self.frame)
            for die in units.find_dies(name, first_cu=cu)
            if die.tag == "DW_TAG_subprogram" and units.die_ranges(die)
        ]

    def is_constant(self, name: str) -> bool:
        var = self.scope.lookup(name) if self.scope is not None else self.module.find_global(name)
        return var is not None and is_constant(var)

    def entry_parameter(self, name: str) -> Variable:
        """The parameter `name` has an entry value (NAME@entry): found in this scope with a
        location; else gdb's error, which it gives while parsing."""
        var = None if self.scope is None else self.scope.lookup(name)
        if var is None or var.kind is not VarKind.PARAMETER or not needs_frame(var.die):
            raise EvaluationError(f'@entry can be used only for function parameters, not for "{name}"')
        return var

    def entry_type(self, name: str) -> Type:
        return self.entry_parameter(name).type

    def entry_value(self, name: str) -> Value:
        return self.module.read_entry_value(self.entry_parameter(name), self.frame)

    def lookup_type(self, name: str) -> Type | None:
        if name not in self._types:
            cu = self.scope.cu if self.scope is not None else None
            self._types[name] = self.module.find_type(name, cu, c_names=self.c_names)
        return self._types[name]


def parse_expression(text: str, symbols: EvalSymbols | None = None) -> ast.Expr:
    """Parse `text`; EvaluationError (never anything else) on bad input. `symbols` tells
    type names from variables (for casts); a variable of the same name wins, as in C."""

    def is_type(name: str) -> bool:
        assert symbols is not None
        # gdb's lookup goes module by module: a type of the frame's own module wins over a
        # variable of another (the program's `struct S` over a static `S` of libm's).
        own = getattr(symbols, "frame_symbols", None)
        if own is not None and own.lookup(name) is None and own.lookup_type(name) is not None:
            return True
        # The variable first: a local (the usual case, `(p)->x`) settles it without a
        # search of every unit for a type of that name; then a function, global in another
        # module (libc's `sigaction` over its `struct sigaction`, in C++ a type name too)
        if symbols.lookup(name) is not None:
            return False
        functions = getattr(symbols, "functions", None)  # an ELF symbol's address, or a frame's list
        if callable(functions) and functions(name):
            return False
        return symbols.lookup_type(name) is not None

    scope = _rust_scope(symbols)
    try:
        if scope is not None:
            return parse_rust(text, scope)
        radix: int = getattr(symbols, "input_radix", 10)  # gdb's input-radix, where the engine set one
        is_name = (lambda name: symbols.lookup(name) is not None) if symbols is not None else None
        cplus = symbols is not None and bool(symbols.cplus)
        return parse(text, is_type if symbols is not None else None, radix, is_name, cplus)
    except SyntaxNear as exc:
        if symbols is not None:  # `print nosuch )`: gdb's No symbol "nosuch", met first
            evaluator = Evaluator(symbols)
            for name in exc.names:
                evaluator.name(name)
        raise
    except EvaluationError:
        raise
    except Exception as exc:
        raise _typed(exc, "parsing", text) from (None if isinstance(exc, RecursionError) else exc)


def evaluate_expression(
    text: str | ast.Expr, symbols: EvalSymbols, rtti: Rtti | None = None, *, type_only: bool = False,
    values: SessionValues | None = None,
) -> Value:
    """Evaluate an expression (text or a parsed tree). Assignments write through the frame.
    With `rtti`, `p->m` looks m up in *p's dynamic type (gdb's print object on). With
    `type_only` (gdb's whatis and ptype), pointers are not followed and nothing is written:
    the result's type is right, its value may be zeros. `values`: the session's value
    history and convenience variables.

    The result's bytes may still be fetched lazily: format it with format.format_value, which
    turns unreadable parts into `<error: ...>`; call `.data()` to force a read."""
    try:
        tree = parse_expression(text, symbols) if isinstance(text, str) else text
        scope = _rust_scope(symbols)
        evaluator = Evaluator(symbols, rtti) if scope is None else RustEvaluator(symbols, scope)
        evaluator.type_only = type_only
        evaluator.dollars = values
        return evaluator.run(tree)
    except EvaluationError:
        raise
    except Exception as exc:
        raise _typed(exc, "evaluating", text) from (None if isinstance(exc, RecursionError) else exc)


def _typed(exc: Exception, doing: str, text: object) -> EvaluationError:
    """The typed error an unexpected exception of a parse or an evaluation becomes: a too
    deep tree in gdb's words, a bug still the typed error (logged with its traceback)."""
    if isinstance(exc, RecursionError):
        return EvaluationError("Expression too deeply nested.")
    log.exception("%s %r", doing, text)
    return EvaluationError(f"internal error {doing} the expression: {exc}")


def whatis_value(text: str, value: Value, symbols: EvalSymbols) -> Value:
    """gdb's whatis of a type named directly (OP_TYPE) shows its typedef's immediate target:
    `whatis const myint` is `int`, the const being the typedef's own (ptype keeps it)."""
    t = value.type
    if not (isinstance(t, QualifiedType) and isinstance(t.target, TypedefType)):
        return value
    if not isinstance(parse_expression(text, symbols), ast.TypeExpr):
        return value
    return value.with_type(t.target.target)


def _rust_scope(symbols: EvalSymbols | None) -> str | None:
    """The frame's Rust module path, None when the frame is not Rust: its expressions are
    read as Rust (symbol tables without the attribute, such as tests' fakes, are C)."""
    scope = getattr(symbols, "rust_scope", None)
    return scope if isinstance(scope, str) else None
