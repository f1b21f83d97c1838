"""The names visible at one pc of one function: its parameters and the locals of the
lexical blocks and inlined subroutines around the pc, innermost first (those of an
inlined copy's abstract origin included, as gdb inherits them), then the globals."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass

from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import die_name, origin_die
from aliceserver.debuggers.symbols.dwarf.dietree import children, parent_of
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.dwarf.type_builder import is_rust
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value
from aliceserver.debuggers.symbols.dwarf.variable import Variable, VarKind

log = logging.getLogger(__name__)


@dataclass(slots=True)
class ArgumentPlan:
    """A function's arguments as its frames show them, the same at each of its pcs (the
    DIEs alone decide them); their values are read at each stop."""

    arguments: list[Variable] | None = None
    shown: list[Variable] | None = None  # shown_argument of each argument
    entry_candidates: list[bool] | None = None  # FrameScope.entry_candidates


class FrameScope:
    """The names visible at one pc of one function (innermost scope first)."""

    def __init__(
        self,
        symbols: ModuleSymbols,
        cu: CompileUnit,
        subprogram: DIE | None,
        scopes: tuple[DIE, ...],
        link_pc: int,
    ) -> None:
        self.symbols = symbols
        self.cu = cu
        self.subprogram = subprogram  # the concrete function: its frame base applies
        self.scopes = scopes
        self.link_pc = link_pc
        # The innermost function-like scope: an inlined subroutine when pc is inside one.
        inner = [
            i
            for i, d in enumerate(scopes)
            if d.tag in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine")
        ]
        self._function_index = inner[-1] if inner else 0
        self._lookups: dict[str, Variable | None] = {}
        # The scope is cached per pc (ModuleSymbols.frame_scope); its function's arguments
        # per function, shared by its pcs (each stepi's new pc walked them again: 70 us)
        fn = self.function
        self._plan = ArgumentPlan() if fn is None else symbols.argument_plan(fn.offset)
        self._outers: dict[int, FrameScope] = {}
        self._locals: dict[bool, list[Variable]] = {}

    @property
    def function(self) -> DIE | None:
        """The DIE of the function whose code this is (inlined subroutines included)."""
        return self.scopes[self._function_index] if self.scopes else None

    @property
    def function_name(self) -> str | None:
        fn = self.function
        return None if fn is None else die_name(fn)

    @property
    def rust_module(self) -> str | None:
        """The module path of the frame's function (`r::shapes`) when its unit is Rust: where
        gdb's Rust lookup tries a bare name after the frame's own (rust_lookup_symbol_nonlocal)."""
        if self.subprogram is None or not is_rust(self.cu.get_top_DIE()):
            return None
        parts = []
        die = parent_of(self.subprogram)
        while die is not None and die.tag == "DW_TAG_namespace":
            parts.append(die_name(die) or "")
            die = parent_of(die)
        return "::".join(reversed(parts))

    @property
    def inline_depth(self) -> int:
        return sum(1 for d in self.scopes if d.tag == "DW_TAG_inlined_subroutine")

    def outer(self, count: int) -> FrameScope:
        """The scope of the function `count` inlined calls out: the caller's, at the call."""
        cut = [i for i, d in enumerate(self.scopes) if d.tag == "DW_TAG_inlined_subroutine"]
        if count <= 0 or not cut:
            return self
        known = self._outers.get(count)
        if known is None:
            end = cut[-min(count, len(cut))]
            known = self._outers[count] = FrameScope(self.symbols, self.cu, self.subprogram, self.scopes[:end],
                                                     self.link_pc)  # fmt: skip
        return known

    def _vars_of(self, die: DIE, params: bool) -> Iterator[Variable]:
        for position, child in enumerate(_children_with_inherited(die)):
            tag = child.tag
            if params and tag == "DW_TAG_formal_parameter":
                kind = VarKind.PARAMETER
            elif not params and tag == "DW_TAG_variable":
                kind = VarKind.STATIC_LOCAL if _is_static(child) else VarKind.LOCAL
            else:
                continue
            name = die_name(child)
            if name is None:
                continue
            typed = origin_die(child, "DW_AT_type") or child
            yield Variable(
                name, kind, child, self.symbols.types.of_die_attr(typed), self.subprogram,
                position=position,
            )

    def arguments(self) -> list[Variable]:
        plan = self._plan
        if plan.arguments is None:
            fn = self.function
            plan.arguments = [] if fn is None else list(self._vars_of(fn, True))
        return list(plan.arguments)

    def shown_argument(self, var: Variable) -> Variable:
        """The parameter whose value gdb shows for `var`: it looks each one up by name in
        its function, where the last parameter of that name wins (gcc -O2 gives a varargs
        function's addressed parameter a second DIE, after the locals)."""
        found = var
        for other in self.arguments():
            if other.name == var.name:
                found = other
        return found

    def shown_arguments(self) -> list[Variable]:
        """shown_argument of each of arguments(), in their order."""
        plan = self._plan
        if plan.shown is None:
            plan.shown = [self.shown_argument(var) for var in self.arguments()]
        return list(plan.shown)

    def entry_candidates(self, ctx: FrameContext) -> list[bool]:
        """For each of shown_arguments(): whether it may have an entry value (NAME@entry),
        which needs a location at its function's entry; none at all spares the caller's
        frame. The same for every frame at this pc."""
        plan = self._plan
        if plan.entry_candidates is None:
            plan.entry_candidates = [self.symbols.has_entry_location(var, ctx) for var in self.shown_arguments()]
        return plan.entry_candidates

    def locals(self, include_shadowed: bool = False) -> list[Variable]:
        """Locals of the innermost block first, then the enclosing blocks up to the function;
        an outer variable hidden by an inner one of the same name is marked `shadowed`."""
        known = self._locals.get(include_shadowed)
        if known is None:
            known = self._locals[include_shadowed] = self._walk_locals(include_shadowed)
        return list(known)

    def _walk_locals(self, include_shadowed: bool) -> list[Variable]:
        out: list[Variable] = []
        blocks = self.scopes[self._function_index :]
        names: set[str] = set()
        for depth in range(len(blocks) - 1, -1, -1):
            for var in self._vars_of(blocks[depth], False):
                shadowed = var.name in names
                names.add(var.name)
                if shadowed and not include_shadowed:
                    continue
                if shadowed or depth:
                    var = Variable(var.name, var.kind, var.die, var.type, var.frame_function, shadowed, depth,
                                   var.position)
                out.append(var)
        return out

    def lookup(self, name: str) -> Variable | None:
        """The innermost local or parameter `name`, else a global (this CU first)."""
        if name in self._lookups:
            return self._lookups[name]
        found = self._lookup(name)
        self._lookups[name] = found
        return found

    def _lookup(self, name: str) -> Variable | None:
        found = self.local(name)
        return found if found is not None else self.symbols.find_global(name, self.cu)

    def local(self, name: str) -> Variable | None:
        """The innermost local or parameter `name` (an inlined call's function by its
        name in its frame); None: none in the frame's blocks."""
        blocks = self.scopes[self._function_index :]
        for block in reversed(blocks):
            for var in self._vars_of(block, False):
                if var.name == name:
                    return var
            if block.tag in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine"):
                params = [var for var in self._vars_of(block, True) if var.name == name]
                if params:
                    return params[-1]  # gdb's lookup: the last parameter of that name
        fn = self.function
        if fn is not None and fn.tag == "DW_TAG_inlined_subroutine" and die_name(fn) == name:
            # gdb keeps an inlined call's function in the call's own block: in its frame the
            # name is that copy of the code (its first range), as nowhere else
            if self.symbols.units.die_ranges(fn):
                return Variable(name, VarKind.FUNCTION, fn, self.symbols.function_type(fn))
        return None

    def this_type(self) -> Variable | None:
        return self.lookup("this")

    def value_of(self, var: Variable, ctx: FrameContext) -> Value:
        return self.symbols.value_of(var, ctx)


def _children_with_inherited(die: DIE) -> Iterator[DIE]:
    """The DIE's children, then (as gdb's inherit_abstract_dies) those of its abstract
    origin no concrete child refers to: variables the optimizer dropped from this copy,
    which then read as optimized out. An abstract lexical block without code adds its
    variables to this scope."""
    yield from children(die)
    if "DW_AT_abstract_origin" not in die.attributes:
        return
    try:
        origin = die.get_DIE_from_attribute("DW_AT_abstract_origin")
        referred = set()
        for child in children(die):
            if child.tag in ("DW_TAG_call_site", "DW_TAG_GNU_call_site"):
                continue
            if "DW_AT_abstract_origin" in child.attributes:
                referred.add(child.get_DIE_from_attribute("DW_AT_abstract_origin").offset)
        pending = [c for c in children(origin) if c.offset not in referred]
    except Exception as exc:  # noqa: BLE001 - a broken reference: the concrete children only
        log.debug("abstract origin of %#x: %s", die.offset, exc)
        return
    while pending:
        child = pending.pop(0)
        if child.tag == "DW_TAG_lexical_block" and not child.attributes.get("DW_AT_low_pc"):
            pending[:0] = list(children(child))
        else:
            yield child


def _is_static(die: DIE) -> bool:
    attr = die.attributes.get("DW_AT_location")
    if attr is None or attr.form not in ("DW_FORM_exprloc", "DW_FORM_block1"):
        return False
    expr = attr.value
    return bool(expr) and expr[0] in (0x03, 0xA1)  # DW_OP_addr / addrx: a fixed address
