"""Entry values: a parameter's value when its function was entered, read through the
caller's DW_TAG_call_site (DWARF 5, or gcc's DW_TAG_GNU_call_site in DWARF 4) as gdb's
dwarf2/loc.c does (DW_OP_entry_value, NAME@entry).

The call site is the one whose return pc is the caller frame's pc; it must call this very
function (DW_AT_call_origin or DW_AT_call_target) and the function must not reach itself
through tail calls; its DW_TAG_call_site_parameter for the register gives DW_AT_call_value,
an expression evaluated in the caller's frame. Anything short of that: no entry value.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.dies import attr_value
from aliceserver.debuggers.symbols.dwarf.dietree import children
from aliceserver.debuggers.symbols.dwarf.locexpr import (
    EvaluationError,
    ImplicitLoc,
    Location,
    MemoryLoc,
    RegisterLoc,
    evaluate,
)
from aliceserver.debuggers.symbols.dwarf.rawread import sleb, uleb
from aliceserver.debuggers.symbols.dwarf.typedstack import Entry, Typed

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
    from aliceserver.debuggers.symbols.dwarf.values import FrameContext

_CALL_SITES = ("DW_TAG_call_site", "DW_TAG_GNU_call_site")
_PARAMETERS = ("DW_TAG_call_site_parameter", "DW_TAG_GNU_call_site_parameter")
_TAIL_CALLS = 64  # functions visited looking for a tail-call cycle
_STACK_VALUE = b"\x9f"
_LIT0, _LIT31 = 0x30, 0x4F


class NoEntryValue(EvaluationError):
    """gdb's NO_ENTRY_VALUE_ERROR: the entry value cannot be known (shown as nothing, or
    as <optimized out>)."""


@dataclass(frozen=True, slots=True)
class EntrySlot:
    """Where a parameter lives at its function's entry, as gdb matches it with the call
    site's parameters: a register, or an offset from the frame base (DW_OP_fbreg), which
    on x86-64 is the caller's stack pointer at the call (a DW_OP_breg7 parameter); or the
    unit offset of the parameter's DIE (DW_OP_GNU_parameter_ref: a call site parameter
    naming it by DW_AT_call_parameter, without a location)."""

    regno: int | None = None
    fb_offset: int | None = None
    param_offset: int | None = None


def entry_slot(expr: bytes) -> EntrySlot:
    """The slot of a parameter's location at its function's entry; NoEntryValue (gdb's
    words) for any other expression."""
    regno = register_of(expr)
    if regno is not None:
        return EntrySlot(regno=regno)
    offset = _offset_from(expr, b"\x91")  # DW_OP_fbreg
    if offset is not None:
        return EntrySlot(fb_offset=offset)
    raise NoEntryValue("DWARF-2 expression error: DW_OP_entry_value is supported only for single "
                       "DW_OP_reg* or for DW_OP_fbreg(*)")


@dataclass(frozen=True, slots=True)
class CallerFrame:
    """The frame that called a physical frame, as the context to evaluate the call site's
    expressions in, with the symbols of its module."""

    ctx: FrameContext
    symbols: ModuleSymbols
    # A function's runtime address by its ELF symbol in any module (gdb's
    # lookup_minimal_symbol): a declared callee defined in another module (main -> libs.so).
    functions: Callable[[str], int | None] | None = None
    # Entry values found at this stop (entrychain.py), shared by the frames' callers
    answers: dict[Hashable, Any] | None = None


@runtime_checkable
class HasCaller(Protocol):
    """A FrameContext that can give its caller (the engine's frames; not every context can)."""

    def caller_frame(self) -> CallerFrame | None: ...


def register_of(expr: bytes) -> int | None:
    """The register of an expression that is only DW_OP_regN, DW_OP_regx or (as gdb's
    dwarf_block_to_dwarf_reg, its type ignored) DW_OP_regval_type, else None."""
    if len(expr) == 1 and 0x50 <= expr[0] <= 0x6F:
        return expr[0] - 0x50
    if expr[:1] == b"\x90":
        regno, size = _uleb(expr, 1)
        return regno if size == len(expr) else None
    if expr[:1] in (b"\xa5", b"\xf5") and len(expr) > 1:  # DW_OP_regval_type, GNU_regval_type
        regno, end = _uleb(expr, 1)
        _, end = _uleb(expr, end) if end < len(expr) else (0, -1)
        return regno if end == len(expr) else None
    return None


def _offset_from(expr: bytes, opcode: bytes) -> int | None:
    """N of an expression that is only `opcode` N (a SLEB128 operand), else None."""
    if expr[:1] != opcode:
        return None
    try:
        value, end = sleb(expr, 1)
    except (IndexError, ValueError):  # truncated, or a runaway number
        return None
    return value if end == len(expr) else None


def _matches(where: bytes, slot: EntrySlot) -> bool:
    """Whether a call site parameter's DW_AT_location is the callee's entry slot."""
    if slot.regno is not None:
        return register_of(where) == slot.regno
    offset = _offset_from(where, b"\x77")  # DW_OP_breg7 (rsp): a stack argument
    if offset is None and where[:2] == b"\x92\x07":  # DW_OP_bregx rsp
        offset = _offset_from(b"\x77" + where[2:], b"\x77")
    return offset is not None and offset == slot.fb_offset


def symbol_name(symbols: ModuleSymbols | None, ctx: FrameContext, pc: int) -> str:
    """gdb's minimal symbol name for a runtime pc in the module of `symbols` (`???`)."""
    found = None if symbols is None else symbols.image.symbol_at(pc - ctx.load_bias)
    return "???" if found is None else found[0].name


def needs_frame(die: DIE) -> bool:
    """gdb's symbol_read_needs_frame for a variable's DIE: a location (a list, or an
    expression not empty) and no constant value; only such a parameter has NAME@entry."""
    attr = die.attributes.get("DW_AT_location")
    if attr is None or "DW_AT_const_value" in die.attributes:
        return False
    if attr.form == "DW_FORM_exprloc" or attr.form.startswith("DW_FORM_block"):
        return bool(attr.value)
    return True


def _uleb(data: bytes, pos: int) -> tuple[int, int]:
    try:
        return uleb(data, pos)
    except (IndexError, ValueError):  # truncated, or a runaway number
        raise NoEntryValue("truncated DWARF data") from None


# What a call site's parameter gives: its DIE, DW_AT_call_value + DW_OP_stack_value, and
# the value itself when that is a lone DW_OP_litN
CallValue = tuple[DIE, bytes, "Location | None"]


def caller_of(ctx: FrameContext) -> CallerFrame | None:
    # What isinstance(ctx, HasCaller) tells, without a runtime Protocol's check: 8 us
    # each, for every argument of every thread's frame (24,000 at a -thread-info of 1,000).
    caller_frame: Callable[[], CallerFrame | None] | None = getattr(ctx, "caller_frame", None)
    return caller_frame() if caller_frame is not None else None


def entry_location(
    ctx: FrameContext, function_pc: int, slot: EntrySlot, callee: ModuleSymbols | None = None,
    reference: bool = False,
) -> tuple[Location, FrameContext]:
    """Where the value of `slot` at the entry of the function at runtime `function_pc` (in
    the module of `callee`) is known: DW_AT_call_value made a value (DW_OP_stack_value
    after it, as gdb), evaluated in the caller's frame (gdb's NAME@entry). NoEntryValue,
    in gdb's words, when gdb would find none. `reference`: the parameter is a reference,
    whose entry value gdb makes only with what it referred to (DW_AT_call_data_value)."""
    caller = caller_of(ctx)
    known = call_value(ctx, caller, function_pc, slot, callee)
    assert caller is not None  # call_value found one
    if reference and _attr_block(known[0], "DW_AT_call_data_value", "DW_AT_GNU_call_site_data_value") is None:
        raise NoEntryValue("Cannot resolve DW_AT_call_data_value")  # gdb's value_of_dwarf_reg_entry
    return evaluate_call_value(caller, known), caller.ctx


def call_value(
    ctx: FrameContext, caller: CallerFrame | None, function_pc: int, slot: EntrySlot, callee: ModuleSymbols | None
) -> CallValue:
    """The caller's call site parameter for `slot` of the function at `function_pc` called
    from `caller` (ctx's caller); NoEntryValue, in gdb's words, when gdb would find none."""
    if caller is None:
        name = symbol_name(callee, ctx, function_pc)
        raise NoEntryValue(f"DW_OP_entry_value resolving requires caller of {function_pc:#x} ({name})")
    symbols, caller_ctx = caller.symbols, caller.ctx
    # Threads blocked alike ask the same call site for the same slot: where the site names
    # its callee (no register read for the target), its parameter is found once.
    key = (caller_ctx.pc - caller_ctx.load_bias, function_pc - caller_ctx.load_bias, slot)
    known = symbols.entry_sites.get(key)
    if known is None:
        parameter = _parameter(caller, function_pc, slot, callee, ctx)
        value = _attr_block(parameter, "DW_AT_call_value", "DW_AT_GNU_call_site_value")
        assert value is not None  # _parameter takes only those with one, as gdb reads them
        known = (parameter, value + _STACK_VALUE, _literal(value))
        site = call_site(symbols, key[0])
        if site is not None and any(name in site.attributes for name in _STATIC_TARGETS):
            symbols.entry_sites[key] = known
    return known


def evaluate_call_value(caller: CallerFrame, known: CallValue, resolve: Resolver | None = None) -> Location:
    """The call value evaluated in the caller's frame; `resolve` gives its own entry values
    (entrychain.resolve_entry's unless given)."""
    if known[2] is not None:  # a constant (gcc's DW_OP_lit1 for a flag): no frame to read
        return known[2]
    env = caller.symbols.call_site_env(caller.ctx, known[0], resolve)
    return evaluate(known[1], caller.ctx, env)


def _literal(value: bytes) -> ImplicitLoc | None:
    """What a DW_AT_call_value of a lone DW_OP_litN gives (as evaluate does), else None."""
    if len(value) != 1 or not _LIT0 <= value[0] <= _LIT31:
        return None
    return ImplicitLoc((value[0] - _LIT0).to_bytes(8, "little"))


@dataclass(frozen=True, slots=True)
class EntryRequest:
    """DW_OP_entry_value(DW_OP_regN) asked in frame `ctx` of the function at runtime
    `function_pc` (in the module of `callee`)."""

    ctx: FrameContext
    function_pc: int
    regno: int
    callee: ModuleSymbols | None = None


Resolver = Callable[[EntryRequest], Entry]


def register_entry(loc: Location, caller: FrameContext) -> Entry:
    """DW_OP_entry_value(DW_OP_regN) of a call value evaluated to `loc` in frame `caller`
    (of its base type where it is typed: a double in an xmm register)."""
    if isinstance(loc, ImplicitLoc):
        if loc.typed is not None:
            return Typed(loc.typed, loc.data)
        return int.from_bytes(loc.data[:8], "little")
    if isinstance(loc, MemoryLoc):
        return loc.address
    if isinstance(loc, RegisterLoc):
        value = caller.register(loc.regno)
        if value is not None:
            return value
    raise NoEntryValue("the call site parameter has no value")


def _parameter(
    caller: CallerFrame, function_pc: int, slot: EntrySlot, callee: ModuleSymbols | None, callee_ctx: FrameContext
) -> DIE:
    symbols, ctx = caller.symbols, caller.ctx
    site = call_site(symbols, ctx.pc - ctx.load_bias)
    if site is None:
        raise NoEntryValue(f"DW_OP_entry_value resolving cannot find DW_TAG_call_site {ctx.pc:#x} "
                           f"in {symbol_name(symbols, ctx, ctx.pc)}")
    target = call_target(symbols, site, ctx, caller.functions)
    if target != function_pc:
        raise NoEntryValue(
            f"DW_OP_entry_value resolving expects callee {symbol_name(symbols, ctx, target)} at {target:#x} "
            f"but the called frame is for {symbol_name(callee, callee_ctx, function_pc)} at {function_pc:#x}")
    # The callee's tail calls, in its own module (main's call into a library's function).
    owner, owner_ctx = (callee, callee_ctx) if callee is not None else (symbols, ctx)
    _verify_no_self_tail_call(owner, function_pc - owner_ctx.load_bias, owner_ctx)
    # Each argument of each thread's frame asks its call site again: the parameter for a
    # slot depends on the site alone (its DIEs parsed once, not 1,000 times).
    key = (site.offset, slot)
    if key not in symbols.site_parameters:
        symbols.site_parameters[key] = _site_parameter(site, slot)
    found = symbols.site_parameters[key]
    if found is None:
        raise NoEntryValue(f"Cannot find matching parameter at DW_TAG_call_site {ctx.pc:#x} "
                           f"at {symbol_name(symbols, ctx, ctx.pc)}")
    return found


def _site_parameter(site: DIE, slot: EntrySlot) -> DIE | None:
    for child in children(site):
        if child.tag in _PARAMETERS:
            where = _attr_block(child, "DW_AT_location")
            has_value = _attr_block(child, "DW_AT_call_value", "DW_AT_GNU_call_site_value") is not None
            if slot.param_offset is not None:  # only a parameter without a location names one
                found = where is None and _parameter_offset(child) == slot.param_offset
            else:
                found = where is not None and _matches(where, slot)
            if has_value and found:
                return child
    return None


def _parameter_offset(parameter: DIE) -> int | None:
    """The unit offset of the parameter a call site parameter names (gdb's read.c:
    DW_AT_call_parameter, else DW_AT_abstract_origin, a reference in its unit)."""
    for name in ("DW_AT_call_parameter", "DW_AT_abstract_origin"):
        attr = parameter.attributes.get(name)
        if attr is not None:
            if attr.form not in ("DW_FORM_ref1", "DW_FORM_ref2", "DW_FORM_ref4", "DW_FORM_ref8", "DW_FORM_ref_udata"):
                return None
            return int(attr.value)
    return None


def parameter_entry(ctx: FrameContext, function: int | None, offset: int, callee: ModuleSymbols) -> Entry:
    """DW_OP_GNU_parameter_ref `offset` in frame `ctx` of the function at link-time
    `function`: the caller's call value for that parameter (gdb's
    push_dwarf_reg_entry_value with CALL_SITE_PARAMETER_PARAM_OFFSET)."""
    if function is None:
        raise NoEntryValue("DW_OP_GNU_parameter_ref outside a function")
    caller = caller_of(ctx)
    known = call_value(ctx, caller, function + ctx.load_bias, EntrySlot(param_offset=offset), callee)
    assert caller is not None  # call_value found one
    return register_entry(evaluate_call_value(caller, known), caller.ctx)


def call_site(symbols: ModuleSymbols, returns_to: int) -> DIE | None:
    """The call site returning to link-time `returns_to` (looked up at returns_to - 1: a tail
    call's return pc may lie past its function)."""
    if returns_to in symbols.call_site_at:
        return symbols.call_site_at[returns_to]
    found = symbols.call_site_at[returns_to] = _find_call_site(symbols, returns_to)
    return found


def _find_call_site(symbols: ModuleSymbols, returns_to: int) -> DIE | None:
    cu = symbols.units.cu_for_address(returns_to - 1)
    if cu is None:
        return None
    at = symbols.units.function_die_at(cu, returns_to - 1)
    if at is None:
        return None
    # The function's call sites read from raw bytes (callsitewalk.py), pyelftools parsing
    # only the one asked for; else its DIEs are walked.
    offsets = symbols.units.call_site_offsets(cu, at.subprogram)
    if offsets is not None:
        offset = offsets.get(returns_to)
        return None if offset is None else cu.get_DIE_from_refaddr(offset)
    # Every frame blocked in the same call asks again (1,000 threads in one futex wait):
    # each function's call sites are indexed by return pc once.
    sites = symbols.call_sites.get(at.subprogram.offset)
    if sites is None:
        sites = {}
        for site in sites_under(at.subprogram):
            site_return = return_pc(site)
            if site_return is not None:
                sites.setdefault(site_return, site)
        symbols.call_sites[at.subprogram.offset] = sites
    return sites.get(returns_to)


def sites_under(die: DIE) -> Iterator[DIE]:
    for child in children(die):
        if child.tag in _CALL_SITES:
            yield child
        elif child.tag in ("DW_TAG_lexical_block", "DW_TAG_inlined_subroutine"):
            yield from sites_under(child)


def return_pc(site: DIE) -> int | None:
    value = attr_value(site, "DW_AT_call_return_pc")
    if value is None:
        value = attr_value(site, "DW_AT_low_pc")  # DW_TAG_GNU_call_site
    return value if isinstance(value, int) else None


def _attr_block(die: DIE, *names: str) -> bytes | None:
    for name in names:
        attr = die.attributes.get(name)
        if attr is not None and isinstance(attr.value, (list, bytes)):
            return bytes(attr.value)
    return None


_STATIC_TARGETS = ("DW_AT_call_origin", "DW_AT_abstract_origin")  # a call site's callee by its DIE


def call_target(symbols: ModuleSymbols, site: DIE, ctx: FrameContext | None,
                functions: Callable[[str], int | None] | None = None, place: FrameContext | None = None) -> int:  # fmt: skip
    """The runtime address the call site calls; `ctx` None: a direct call's only (gdb
    reads an indirect target only in an unwound caller frame). `functions`: CallerFrame's;
    `place`: a frame of the site's module, to name a site without a target as gdb."""
    for name in _STATIC_TARGETS:
        if name in site.attributes:
            origin = site.get_DIE_from_attribute(name)
            bias = ctx.load_bias if ctx is not None else 0
            elsewhere = _elsewhere(symbols, origin, functions)
            return elsewhere if elsewhere is not None else _origin_address(symbols, site, origin, ctx or place) + bias
    expr = _attr_block(site, "DW_AT_call_target", "DW_AT_GNU_call_site_target")
    if expr is None or ctx is None:
        raise _unspecified_target(symbols, site, ctx)
    loc = evaluate(expr, ctx, symbols.call_site_env(ctx, site))
    if isinstance(loc, MemoryLoc):
        return loc.address
    if isinstance(loc, RegisterLoc):
        value = ctx.register(loc.regno)
        if value is not None:
            return value
    if isinstance(loc, ImplicitLoc):
        return int.from_bytes(loc.data[:8], "little")
    raise NoEntryValue("DW_AT_call_target is unavailable")


def _elsewhere(symbols: ModuleSymbols, origin: DIE, functions: Callable[[str], int | None] | None) -> int | None:
    """A declared callee's runtime address in another module, where its own has no such
    function (gdb looks the name up in every module, as lookup_minimal_symbol)."""
    if functions is None or not _declaration(origin) or symbols.function_address(origin) is not None:
        return None
    name = attr_value(origin, "DW_AT_linkage_name") or attr_value(origin, "DW_AT_name")
    return functions(name.decode(errors="replace")) if isinstance(name, bytes) else None


def _declaration(origin: DIE) -> bool:
    return bool(attr_value(origin, "DW_AT_declaration")) and "DW_AT_specification" not in origin.attributes


def _origin_address(symbols: ModuleSymbols, site: DIE, origin: DIE, ctx: FrameContext | None) -> int:
    """The link-time entry of a call site's callee DIE, as gdb's read_call_site_scope: a
    declaration through the ELF symbol of its name; a definition by its code, and none when
    it has no code (a function gcc folded into another: its calls name no target)."""
    if _declaration(origin):
        address = symbols.function_address(origin)
        if address is None:
            name = attr_value(origin, "DW_AT_linkage_name") or attr_value(origin, "DW_AT_name")
            shown = name.decode(errors="replace") if isinstance(name, bytes) else "?"
            raise NoEntryValue(f'Cannot find function "{shown}" for a call site target')
        return address
    ranges = symbols.units.die_ranges(origin)
    if not ranges:
        raise _unspecified_target(symbols, site, ctx)
    return ranges[0][0]


def _unspecified_target(symbols: ModuleSymbols, site: DIE, ctx: FrameContext | None) -> NoEntryValue:
    if ctx is None:
        return NoEntryValue("DW_AT_call_target is not specified at DW_TAG_call_site")
    pc = (return_pc(site) or 0) + ctx.load_bias
    return NoEntryValue(f"DW_AT_call_target is not specified at {pc:#x} in {symbol_name(symbols, ctx, pc)}")


def _verify_no_self_tail_call(symbols: ModuleSymbols, function: int, ctx: FrameContext) -> None:
    """gdb trusts no entry value of a function that may reach itself by tail calls: its
    DW_AT_call_tail_call sites, followed from function to function (link-time pcs). The
    answer depends on the DWARF alone: kept, as each argument of each frame asks again."""
    key = (function, ctx.load_bias)
    if key not in symbols.tail_call_checks:
        try:
            _search_self_tail_call(symbols, function, ctx)
            symbols.tail_call_checks[key] = None
        except NoEntryValue as exc:
            symbols.tail_call_checks[key] = str(exc)
    problem = symbols.tail_call_checks[key]
    if problem is not None:
        raise NoEntryValue(problem)


def _search_self_tail_call(symbols: ModuleSymbols, function: int, ctx: FrameContext) -> None:
    todo, seen = [function], {function}
    while todo and len(seen) < _TAIL_CALLS:
        address = todo.pop()
        cu = symbols.units.cu_for_address(address)
        at = None if cu is None else symbols.units.function_die_at(cu, address)
        if cu is None or at is None:
            continue
        # The tail call sites read from raw bytes (callsitewalk.py), else by a DIE walk.
        offsets = symbols.units.tail_call_site_offsets(cu, at.subprogram)
        sites = sites_under(at.subprogram) if offsets is None else map(cu.get_DIE_from_refaddr, offsets)
        for site in sites:
            if not (attr_value(site, "DW_AT_call_tail_call") or attr_value(site, "DW_AT_GNU_tail_call")):
                continue
            target = call_target(symbols, site, None, place=ctx)
            if target == function:
                pc = function + ctx.load_bias
                raise NoEntryValue(f'DW_OP_entry_value resolving has found function "{symbol_name(symbols, ctx, pc)}" '
                                   f"at {pc:#x} can call itself via tail calls")
            if target not in seen:
                seen.add(target)
                todo.append(target)
