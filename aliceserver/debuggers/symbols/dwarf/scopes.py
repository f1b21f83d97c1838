"""What is in scope at a pc: parameters and locals (lexical blocks, inlined subroutines,
static locals), the CU's and the program's globals, thread-locals; and their values.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from elftools.dwarf.compileunit import CompileUnit
from elftools.dwarf.die import DIE
from elftools.dwarf.typeunit import TypeUnit

from aliceserver.debuggers.symbols.dwarf import type_builder
from aliceserver.debuggers.symbols.dwarf.callsites import (
    EntryRequest,
    NoEntryValue,
    Resolver,
    entry_location,
    entry_slot,
    needs_frame,
    parameter_entry,
    register_of,
)
from aliceserver.debuggers.symbols.dwarf.dies import (
    _CORRUPT,
    DwarfUnits,
    attr_value,
    origin_die,
    resolved_attr,
)
from aliceserver.debuggers.symbols.dwarf.dietree import children, parent_of
from aliceserver.debuggers.symbols.dwarf.implicitptr import pointee
from aliceserver.debuggers.symbols.dwarf.languages import CPLUS
from aliceserver.debuggers.symbols.dwarf.locexpr import (
    EvaluationError,
    ExprEnv,
    ImplicitLoc,
    Location,
    LoopDetected,
    MemoryLoc,
    OptimizedOut,
    RegisterLoc,
    evaluate,
    loclist_bounds,
    loclist_end,
    loclist_v4,
    loclist_v5,
)
from aliceserver.debuggers.symbols.dwarf.rawread import uleb
from aliceserver.debuggers.symbols.dwarf.type_builder import (
    TypeBuilder,
    is_prototyped,
    is_rust,
    is_this_param,
)
from aliceserver.debuggers.symbols.dwarf.typedstack import Entry, base_type_in
from aliceserver.debuggers.symbols.dwarf.typefind import IndexedTypes
from aliceserver.debuggers.symbols.dwarf.typenames import TypeNameIndex
from aliceserver.debuggers.symbols.dwarf.types import (
    FunctionType,
    QualifiedType,
    ReferenceType,
    Type,
    strip,
)
from aliceserver.debuggers.symbols.dwarf.values import FrameContext, Value, const_location
from aliceserver.debuggers.symbols.dwarf.variable import Variable, VarKind, global_kind
from aliceserver.debuggers.symbols.elf import ElfImage, ElfSymbol
from aliceserver.errors import TargetError

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.framescope import ArgumentPlan, FrameScope

log = logging.getLogger(__name__)

_PARAMETER_TAGS = ("DW_TAG_formal_parameter", "DW_TAG_unspecified_parameters")

__all__ = ["FrameContext", "ModuleSymbols"]

_TYPE_TAGS = {
    "struct": ("DW_TAG_structure_type", "DW_TAG_class_type"),
    "class": ("DW_TAG_class_type", "DW_TAG_structure_type"),
    "union": ("DW_TAG_union_type",),
    "enum": ("DW_TAG_enumeration_type",),
    "": (
        "DW_TAG_typedef",
        "DW_TAG_base_type",
        "DW_TAG_structure_type",
        "DW_TAG_class_type",
        "DW_TAG_union_type",
        "DW_TAG_enumeration_type",
    ),
    "ordinary": ("DW_TAG_typedef", "DW_TAG_base_type"),  # C's bare name (typefind.py)
}


_SCOPE_CACHE = 1024
_LIST_ENTRIES = 65536  # location lists' entries remembered
_LIST_READ = 4096  # bytes read for a location list at first (16 times more while it goes on)


_CALL_FRAME_CFA = bytes([0x9C])  # DW_OP_call_frame_cfa, the usual DW_AT_frame_base
_FBREG = 0x91  # DW_OP_fbreg
_MASK64 = (1 << 64) - 1


def _lone_fbreg(expr: bytes) -> int | None:
    """N where `expr` is DW_OP_fbreg N and nothing more; None for any other expression."""
    if len(expr) < 2 or expr[0] != _FBREG or len(expr) > 11:
        return None
    value = shift = 0
    for index in range(1, len(expr)):
        byte = expr[index]
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            if index != len(expr) - 1:
                return None  # more operations follow
            return value - (1 << shift) if byte & 0x40 else value
    return None  # the number does not end

class ModuleSymbols:
    """Variables and types of one image (executable or library) from its DWARF."""

    def __init__(
        self, image: ElfImage, units: DwarfUnits | None = None, *, is_executable: bool = True
    ) -> None:
        self.image = image
        self.units = units if units is not None else DwarfUnits(image)
        self.types = TypeBuilder(self._static_address, self._type_unit_die, self._defining_die)
        self._is_executable = is_executable
        # A library's TLS block for the frame's thread (set by the engine; see tls.py).
        self.tls_block: Callable[[FrameContext], int] | None = None
        # Scopes by link-time pc; a FrameScope holds no frame state, only DIEs and names.
        self._scopes: dict[int, FrameScope | None] = {}
        self._argument_plans: dict[int, ArgumentPlan] = {}  # by function DIE offset
        # The type-name index (set by the engine with its on-disk cache, else made here)
        # and find_type's answers, misses too: printers ask for the same names again.
        self.type_index: TypeNameIndex | None = None
        self._indexed: IndexedTypes | None = None
        self._found_types: dict[tuple[str, int | None, bool], Type | None] = {}
        # Location lists' entries by (unit, list offset, pc, entry pc, function DIE offset).
        self._list_entries: dict[tuple[int, int, int, int | None, int | None], bytes | None] = {}
        # Call sites of a function (DIE offset) by return pc, filled by callsites.py.
        self.call_sites: dict[int, dict[int, DIE]] = {}
        self.call_site_at: dict[int, DIE | None] = {}  # by return pc, from call_sites
        # (call site DIE offset, EntrySlot) -> its parameter giving that slot's value
        self.site_parameters: dict[tuple[int, object], DIE | None] = {}
        # (caller's return pc, callee, EntrySlot) -> the parameter and its value's expression
        # (and its location where that is a constant) where the site names its callee
        # (callsites.entry_location)
        self.entry_sites: dict[tuple[int, int, object], tuple[DIE, bytes, Location | None]] = {}
        self._site_functions: dict[int, DIE | None] = {}  # call_site_env's, by link-time pc
        # (function, load bias) -> why its entry values are not trusted (tail calls to itself)
        self.tail_call_checks: dict[tuple[int, int], str | None] = {}
        # (caller's return pc, callee) -> pcs of the tail calls between them (tailcalls.py)
        self.tail_chains: dict[tuple[int, int], tuple[int, ...]] = {}
        self._function_addresses: dict[tuple[bool, int], int | None] = {}  # by DIE
        self._last_env: tuple[FrameContext, DIE | None, CompileUnit | TypeUnit, ExprEnv] | None = None

    @property
    def has_dwarf(self) -> bool:
        return self.units.info is not None

    # --- frames ----------------------------------------------------------------------
    def frame_scope(
        self, ctx: FrameContext, lookup_pc: int | None = None, inline_outer: int = 0
    ) -> FrameScope | None:
        """The scope at the frame's pc (`lookup_pc`: the runtime pc to look up, pc - 1 for
        caller frames so a call at a function's end stays inside it); None without DWARF.
        `inline_outer`: that many inlined calls out from the innermost (gdb's inline frames)."""
        runtime = ctx.pc if lookup_pc is None else lookup_pc
        link = runtime - ctx.load_bias
        if link in self._scopes:
            scope = self._scopes[link]
        else:
            scope = self._frame_scope(link)
            if len(self._scopes) >= _SCOPE_CACHE:
                self._scopes.pop(next(iter(self._scopes)))
            self._scopes[link] = scope
        return scope.outer(inline_outer) if scope is not None and inline_outer else scope

    def argument_plan(self, function: int) -> ArgumentPlan:
        """The plan of the arguments of the function at DIE offset `function`, made once."""
        from aliceserver.debuggers.symbols.dwarf.framescope import ArgumentPlan

        found = self._argument_plans.get(function)
        if found is None:
            if len(self._argument_plans) >= _SCOPE_CACHE:
                self._argument_plans.clear()
            found = self._argument_plans[function] = ArgumentPlan()
        return found

    def _frame_scope(self, link: int) -> FrameScope | None:
        # framescope builds on this module's Variable: imported here, not at the top.
        from aliceserver.debuggers.symbols.dwarf.framescope import FrameScope

        cu = self.units.cu_for_address(link)
        if cu is None:
            return None
        at = self.units.function_die_at(cu, link)
        if at is None:
            return FrameScope(self, cu, None, (), link)
        return FrameScope(self, cu, at.subprogram, at.scopes, link)

    # --- globals -------------------------------------------------------------------------
    def find_global(self, name: str, cu: CompileUnit | None = None) -> Variable | None:
        """A global, file-static, function or enumerator named `name`, this CU first.

        Scanning other CUs parses their top-level DIEs (cached): the cost of an unknown name."""
        if not self.has_dwarf:
            return None
        fallback: DIE | None = None
        for die in self.units.find_dies(name, first_cu=cu):
            tag = die.tag
            if tag == "DW_TAG_enumerator":
                parent = parent_of(die)
                if parent is None:
                    continue
                return Variable(name, VarKind.CONSTANT, die, self.types.build(parent))
            if tag == "DW_TAG_subprogram":
                if self.units.die_ranges(die):
                    return Variable(name, VarKind.FUNCTION, die, self.function_type(die))
                continue
            if tag != "DW_TAG_variable":
                continue
            if "DW_AT_location" in die.attributes or "DW_AT_const_value" in die.attributes:
                return Variable(
                    name,
                    global_kind(die),
                    die,
                    self.types.of_die_attr(origin_die(die, "DW_AT_type") or die),
                )
            if fallback is None:
                fallback = die
        if fallback is not None:  # only `extern` declarations: use the ELF symbol
            return Variable(name, VarKind.GLOBAL, fallback, self.types.of_die_attr(fallback))
        return None

    def _static_address(self, qualified: str) -> int | None:
        """Link-time address of a static member's definition (`Shape::count`)."""
        for die in self.units.find_dies(qualified):
            attr = die.attributes.get("DW_AT_location")
            if die.tag == "DW_TAG_variable" and attr is not None and isinstance(attr.value, list):
                expr = bytes(attr.value)
                if len(expr) == 9 and expr[0] == 0x03:  # DW_OP_addr
                    return int.from_bytes(expr[1:], "little")
                if expr[:1] == b"\xa1":  # DW_OP_addrx (clang's DWARF 5): from .debug_addr
                    index, end = uleb(expr, 1)
                    if end == len(expr):
                        return self.units.addrx(die.cu, index)
        return None

    def _type_unit_die(self, signature: int) -> DIE | None:
        """The type DIE of the type unit with `signature` (DW_FORM_ref_sig8)."""
        try:
            return self.indexed_types().by_signature(signature)
        except (*_CORRUPT, TargetError, KeyError) as exc:
            log.debug("type unit %#x unreadable: %s", signature, exc)
            return None

    def _defining_die(self, name: str) -> DIE | None:
        """The DIE defining the struct, class or union `name` (`struct ns::C`), if any."""
        keyword, _, bare = name.partition(" ")
        return self.indexed_types().find(bare, keyword)[1] if self.has_dwarf else None

    def indexed_types(self) -> IndexedTypes:
        if self._indexed is None:
            if self.type_index is None:
                self.type_index = TypeNameIndex(self.image.path, self.image.build_id)
            self._indexed = IndexedTypes(self.units, self.type_index)
        return self._indexed

    def is_namespace(self, name: str, cu: CompileUnit | None = None) -> bool:
        """Whether the module's DWARF declares the namespace `name` (`cu`'s first)."""
        return self.has_dwarf and self.units.is_namespace(name, cu)

    def find_type(self, name: str, cu: CompileUnit | None = None, *, c_names: bool = False) -> Type | None:
        """A named type: `point`, `struct point`, `union u`, `enum color`, a typedef,
        `ns::outer<int>::inner` (any spelling: see typekeys.py). With `c_names` (C's rules),
        a bare `point` is only a typedef or a base type, never `struct point`."""
        if not self.has_dwarf:
            return None
        key = (name, cu.cu_offset if cu is not None else None, c_names)
        if key in self._found_types:
            return self._found_types[key]
        found = self._found_types[key] = self._find_type(name, cu, c_names)
        return found

    def _find_type(self, name: str, cu: CompileUnit | None, c_names: bool) -> Type | None:
        keyword, _, bare = name.partition(" ")
        if keyword not in ("struct", "class", "union", "enum"):
            keyword, bare = ("ordinary" if c_names else ""), name
        bare = bare.strip()
        indexed = self.indexed_types()
        known, die = indexed.find(bare, keyword, cu)
        if die is not None:
            return self.types.build(die)
        if known and ("::" in bare or "<" in bare or indexed.index.covers_all):
            return None  # only C++ and Rust units have such names, and all are indexed
        tags = _TYPE_TAGS[keyword]
        best: DIE | None = None
        for die in self.units.find_dies(bare.strip(), first_cu=cu):
            if die.tag in tags:
                if not attr_value(die, "DW_AT_declaration"):
                    return self.types.build(die)
                best = best or die
        return self.types.build(best) if best is not None else None

    def function_type(self, die: DIE, *, with_this: bool = True) -> FunctionType:
        """The function's type; a method's has its `this` first (made const, as gdb's value
        of the method), unless not `with_this` (its declaration, `info functions`)."""
        source = origin_die(die, "DW_AT_name") or die
        fn = FunctionType(self.types.of_die_attr(origin_die(die, "DW_AT_type") or die))
        fn.prototyped = bool(resolved_attr(die, "DW_AT_prototyped")) or is_prototyped(source)
        fn.rust = is_rust(die)
        fn.unknown_return = type_builder.returns_unknown(source)
        # gdb's read_subroutine_type reads the DIE's own parameters: an out-of-line copy's
        # (DW_AT_abstract_origin) in its order, `PyBytes_FromStringAndSize(Py_ssize_t, const char *)`
        own = "DW_AT_abstract_origin" in die.attributes and any(c.tag in _PARAMETER_TAGS for c in children(die))
        for child in children(die if own else source):
            if child.tag == "DW_TAG_formal_parameter":
                param = self.types.of_die_attr(origin_die(child, "DW_AT_type") or child)
                if resolved_attr(child, "DW_AT_artificial") and not with_this:
                    continue
                if not fn.params and is_this_param(child, param) and attr_value(die.cu.get_top_DIE(), "DW_AT_language") in CPLUS:
                    param = QualifiedType(param, const=True)  # gdb: `Sink * const` (GCC PR 43053)
                fn.params.append(param)
            elif child.tag == "DW_TAG_unspecified_parameters":
                fn.varargs = True
        return fn

    # --- values --------------------------------------------------------------------------
    def value_of(self, var: Variable, ctx: FrameContext) -> Value:
        """The variable's value in this frame (bytes read lazily)."""
        if var.kind is VarKind.CONSTANT:
            return Value.of_int(var.type, int(attr_value(var.die, "DW_AT_const_value")), ctx)
        if var.kind is VarKind.FUNCTION:
            low = self.units.die_ranges(var.die)[0][0]
            return Value(var.type, MemoryLoc(low + ctx.load_bias), ctx)
        return Value(var.type, self.location(var, ctx), ctx)

    def location(self, var: Variable, ctx: FrameContext) -> Location:
        die = var.die
        const = die.attributes.get("DW_AT_const_value")
        if const is not None:
            return const_location(const.value, strip(var.type).size)
        attr = die.attributes.get("DW_AT_location")
        if attr is None:
            if var.kind is VarKind.GLOBAL:  # an extern declaration: the symbol's address
                sym = self.declared_symbol(var)
                if sym is not None:
                    return MemoryLoc(sym.address + ctx.load_bias)
            return OptimizedOut()
        expr = self._expression(die, attr, ctx, function=var.frame_function)
        if expr is None:
            return OptimizedOut()
        offset = _lone_fbreg(expr) if var.frame_function is not None else None
        if offset is not None and var.frame_function is not None:
            # DW_OP_fbreg N alone (-O0's every variable): what the evaluator would give, without
            # its environment's closures made for each variable of each stop
            try:
                return MemoryLoc((self.frame_base(var.frame_function, ctx) + offset) & _MASK64)
            except EvaluationError as exc:
                log.debug("location of %s: %s", var.name, exc)
                return OptimizedOut(str(exc))
        env = self._env(ctx, var.frame_function, die.cu)
        try:
            return evaluate(expr, ctx, env)
        except EvaluationError as exc:
            log.debug("location of %s: %s", var.name, exc)
            return OptimizedOut(str(exc), error=isinstance(exc, LoopDetected))  # gdb's error, not a value

    def _env(
        self, ctx: FrameContext, function: DIE | None, cu: CompileUnit | TypeUnit, resolve: Resolver | None = None
    ) -> ExprEnv:
        """What evaluating an expression of a DIE of `cu` needs; DW_OP_addrx reads the
        .debug_addr table of the DIE's own unit (a global has no function). `resolve`
        answers its entry values (entrychain.resolve_entry's, unless a chain of them asks)."""
        # A frame's arguments ask in turn with the same three (6 closures each, 12 us)
        last = self._last_env
        if resolve is None and last is not None and last[0] is ctx and last[1] is function and last[2] is cu:
            return last[3]
        resolver = _resolve_entry if resolve is None else resolve

        def frame_base() -> int:
            if function is None:
                raise EvaluationError("no frame base outside a function")
            return self.frame_base(function, ctx)

        def entry_value(block: bytes) -> Entry:
            regno = register_of(block)
            start = None if function is None else self.function_address(function)
            if regno is None or start is None:  # gdb's other forms (DW_OP_bregN; deref)
                raise NoEntryValue("DW_OP_entry_value is supported only for a DW_OP_reg*")
            return resolver(EntryRequest(ctx, start + ctx.load_bias, regno, self))

        def parameter_ref(offset: int) -> Entry:
            return parameter_entry(ctx, None if function is None else self.function_address(function), offset, self)

        env = ExprEnv(
            load_bias=ctx.load_bias,
            frame_base=frame_base,
            tls_block_offset=self.units.tls_block_offset if self._is_executable else None,
            tls_block=None if self.tls_block is None else partial(self.tls_block, ctx),
            addrx=lambda i: self.units.addrx(cu, i),
            entry_value=entry_value,
            parameter_ref=parameter_ref,
            implicit_pointer=partial(pointee, self, ctx, function),
            base_type=partial(base_type_in, cu),
        )
        if resolve is None:
            self._last_env = (ctx, function, cu, env)  # holds ctx: its id is not taken meanwhile
        return env

    def call_site_env(self, ctx: FrameContext, die: DIE, resolve: Resolver | None = None) -> ExprEnv:
        """The environment of a call site's expressions in the caller's frame `ctx`: its
        function's frame base, its unit's .debug_addr, its own entry values."""
        return self._env(ctx, self._site_function(ctx), die.cu, resolve)

    def _site_function(self, ctx: FrameContext) -> DIE | None:
        link = ctx.pc - ctx.load_bias - 1
        if link not in self._site_functions:  # asked by each argument of each thread's frame
            cu = self.units.cu_for_address(link)
            at = None if cu is None else self.units.function_die_at(cu, link)
            self._site_functions[link] = None if at is None else at.subprogram
        return self._site_functions[link]

    def declared_symbol(self, var: Variable) -> ElfSymbol | None:
        """The ELF symbol of an `extern` variable's declaration: by its linkage name where
        it has one (C++'s `_ZSt4cout` for std::cout, a copy in the program's .bss), else
        by its name."""
        linkage = attr_value(var.die, "DW_AT_linkage_name")
        return self.image.find_symbol(linkage.decode(errors="replace") if isinstance(linkage, bytes) else var.name)

    def site_function_start(self, ctx: FrameContext) -> int | None:
        """The runtime entry of the function holding the call site a caller frame `ctx` is
        in: what its call values' own entry values ask for (as call_site_env's)."""
        function = self._site_function(ctx)
        start = None if function is None else self.function_address(function)
        return None if start is None else start + ctx.load_bias

    def function_address(self, die: DIE) -> int | None:
        """The link-time entry of a function's DIE (gdb's block entry pc: its first range);
        a declaration's through the ELF symbol of its name."""
        # Asked for each argument of each frame (twice for an entry value): kept by DIE
        # (its section's offset: .debug_types has offsets of its own).
        key = (isinstance(die.cu, TypeUnit), die.offset)
        if key in self._function_addresses:
            return self._function_addresses[key]
        found = self._function_addresses[key] = self._function_address(die)
        return found

    def _function_address(self, die: DIE) -> int | None:
        ranges = self.units.die_ranges(die)
        if ranges:
            return ranges[0][0]
        spec = die
        for ref in ("DW_AT_specification", "DW_AT_abstract_origin"):
            if ref in die.attributes:
                spec = die.get_DIE_from_attribute(ref)
        linkage = attr_value(spec, "DW_AT_linkage_name") or attr_value(spec, "DW_AT_name")
        if not isinstance(linkage, bytes):
            return None
        sym = self.image.find_symbol(linkage.decode(errors="replace"))
        return None if sym is None else sym.address

    def entry_value_of(self, var: Variable, ctx: FrameContext) -> Value | None:
        """read_entry_value, None where gdb shows none (NO_ENTRY_VALUE_ERROR, optimized out)."""
        try:
            value = self.read_entry_value(var, ctx)
            return None if value.optimized_out else value
        except LoopDetected as exc:  # gdb shows this one: NAME@entry=<error reading variable: ...>
            return Value(var.type, OptimizedOut(str(exc), error=True), ctx)
        except EvaluationError as exc:
            log.debug("entry value of %s: %s", var.name, exc)
            return None

    def has_entry_location(self, var: Variable, ctx: FrameContext) -> bool:
        """Whether read_entry_value may find a value: a parameter with a location at the
        entry of its frame's function (it depends on the DIEs alone, not on `ctx`)."""
        attr = var.die.attributes.get("DW_AT_location")
        if not needs_frame(var.die) or attr is None or parent_of(var.die) is None:
            return False
        start = None if var.frame_function is None else self.function_address(var.frame_function)
        return start is not None and self._expression(var.die, attr, ctx, start, start) is not None

    def read_entry_value(self, var: Variable, ctx: FrameContext) -> Value:
        """A parameter's value at its function's entry (gdb's NAME@entry), from the caller's
        DW_AT_call_value for where the parameter is at the entry (a register or the frame
        base); optimized out without a location there; NoEntryValue in gdb's words."""
        attr, block = var.die.attributes.get("DW_AT_location"), parent_of(var.die)
        if not needs_frame(var.die) or attr is None or block is None:
            raise EvaluationError(f'@entry can be used only for function parameters, not for "{var.name}"')
        # Read where the frame's real function starts (gdb's get_frame_func), an inline or
        # tail-call frame's too: an inlined call's list seldom covers that pc (no value then).
        start = None if var.frame_function is None else self.function_address(var.frame_function)
        expr = None if start is None else self._expression(var.die, attr, ctx, start, start)
        if expr is None or start is None:
            return Value(var.type, OptimizedOut(), ctx)
        reference = isinstance(strip(var.type), ReferenceType)
        loc, caller = entry_location(ctx, start + ctx.load_bias, entry_slot(expr), self, reference)
        if isinstance(loc, RegisterLoc):  # the caller's register as it is: a value, not an lvalue
            number = caller.register(loc.regno)
            size = max(strip(var.type).size, 1)
            loc = OptimizedOut() if number is None else ImplicitLoc(number.to_bytes(8, "little")[:size])
        return Value(var.type, loc, caller)

    def frame_base(self, function: DIE, ctx: FrameContext) -> int:
        attr = function.attributes.get("DW_AT_frame_base")
        if attr is None:
            raise EvaluationError("the function has no frame base")
        expr = self._expression(function, attr, ctx)
        if expr is None:
            raise EvaluationError("the frame base is unavailable here")
        if expr == _CALL_FRAME_CFA:  # what gcc and clang emit: no need for the evaluator
            cfa = ctx.cfa()
            if cfa is not None:
                return cfa
        loc = evaluate(expr, ctx, ExprEnv(load_bias=ctx.load_bias))
        if isinstance(loc, MemoryLoc):
            return loc.address
        if isinstance(loc, RegisterLoc):
            reg = ctx.register(loc.regno)
            if reg is not None:
                return reg
        raise EvaluationError("the frame base is unavailable here")

    def expression_at(self, die: DIE, name: str, ctx: FrameContext) -> bytes | None:
        """The DWARF expression of the attribute `name` (DW_AT_location, DW_AT_frame_base)
        at the frame's pc (a location list's entry covering it); None: absent or no entry."""
        attr = die.attributes.get(name)
        return None if attr is None else self._expression(die, attr, ctx)

    def _expression(
        self, die: DIE, attr: object, ctx: FrameContext, link_pc: int | None = None, entry_pc: int | None = None,
        function: DIE | None = None,
    ) -> bytes | None:
        """The expression itself, or the location-list entry covering the frame's pc (or
        link-time `link_pc`); an empty entry at the entry of `function` (link-time
        `entry_pc`) covers that pc alone."""
        form = getattr(attr, "form", "")
        value = getattr(attr, "value", None)
        if form == "DW_FORM_exprloc" or form.startswith("DW_FORM_block"):
            return bytes(value or b"")
        if not isinstance(value, int):
            return None
        cu = die.cu
        # A caller frame's lists are read inside its call, at pc - 1 (gdb's
        # get_frame_address_in_block): a list may change at the return address.
        pc = getattr(ctx, "location_pc", ctx.pc) - ctx.load_bias if link_pc is None else link_pc
        # The entry depends on the list and the pcs alone: 1,000 threads stopped in one
        # function read their arguments' lists at the same pc.
        key = (cu.cu_offset, value, pc, entry_pc, function.offset if function is not None else None)
        spans: list[tuple[int, int]] | None = getattr(ctx, "spans", None)
        if spans is not None and link_pc is None:  # where the entry found stays the one (keptsteps.py)
            low, high = self._list_span(cu, value, pc)
            spans.append((low + ctx.load_bias, high + ctx.load_bias))
        if key in self._list_entries:
            return self._list_entries[key]
        if len(self._list_entries) >= _LIST_ENTRIES:
            self._list_entries.pop(next(iter(self._list_entries)))
        found = self._list_entries[key] = self._list_entry(cu, value, pc, entry_pc, function)
        return found

    def _list_span(self, cu: CompileUnit | TypeUnit, value: int, pc: int) -> tuple[int, int]:
        """The link-time pcs around `pc` where the list's entries covering it are the same."""
        version = cu.header.version
        data = self._location_list(".debug_loc" if version < 5 else ".debug_loclists", value, version)
        if data is None:
            return pc, pc + 1
        try:
            bounds = loclist_bounds(data, version, self.units.cu_base(cu), lambda i: self.units.addrx(cu, i))
        except (EvaluationError, IndexError, ValueError):  # a list loclist_v5 refuses too
            return pc, pc + 1
        return max((b for b in bounds if b <= pc), default=0), min((b for b in bounds if b > pc), default=1 << 64)

    def _list_entry(
        self, cu: CompileUnit | TypeUnit, value: int, pc: int, entry_pc: int | None, function: DIE | None
    ) -> bytes | None:
        base = self.units.cu_base(cu)
        if entry_pc is None and function is not None:
            entry_pc = self.function_address(function)
        version = cu.header.version
        # pyelftools has resolved a DW_FORM_loclistx index to its list's offset already.
        data = self._location_list(".debug_loc" if version < 5 else ".debug_loclists", value, version)
        if data is None:
            return None
        if version < 5:
            return loclist_v4(data, 0, base, pc, entry_pc)
        return loclist_v5(data, 0, base, pc, lambda i: self.units.addrx(cu, i), entry_pc)

    def _location_list(self, name: str, offset: int, version: int) -> bytes | None:
        """The bytes of the location list at `offset` of section `name`, to its end (or the
        section's): not the whole section (CPython's .debug_loclists: 4 MB for a stop's
        arguments), a list being some tens of bytes."""
        size = _LIST_READ
        while True:
            data = self.units.section_part(name, offset, size)
            if data is None or len(data) < size or loclist_end(data, 0, version) is not None:
                return data
            size *= 16


def _resolve_entry(request: EntryRequest) -> Entry:
    """entrychain.resolve_entry, imported at a DW_OP_entry_value's first evaluation (a
    frame's arguments in registers, as at a first stop, read none)."""
    from aliceserver.debuggers.symbols.dwarf.entrychain import resolve_entry

    return resolve_entry(request)
