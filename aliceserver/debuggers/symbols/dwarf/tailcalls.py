"""Tail calls between a frame and its caller, as gdb's call_site_find_chain (dwarf2/loc.c)
finds them: the caller's call site calls a function that jumps on (DW_AT_call_tail_call)
through others to the frame's function, leaving no frame of its own. gdb shows each such
function as a virtual frame (dwarf2/frame-tailcall.c) and reads entry values through their
call sites: raise -> __pthread_kill -(jmp)-> __pthread_kill_implementation gives no_tid@entry
from __pthread_kill's call site.

Every path of tail calls from the caller's call site to the callee is followed; where they
differ, only the call sites all of them share at the caller's end and at the callee's end
are kept (gdb's chain_candidate), and any doubt (an unknown target, a target that is not
a function's entry) means no chain at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from elftools.dwarf.die import DIE

from aliceserver.debuggers.symbols.dwarf.callsites import (
    NoEntryValue,
    call_site,
    call_target,
    return_pc,
    sites_under,
)
from aliceserver.debuggers.symbols.dwarf.dies import attr_value

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols

_STEPS = 4096  # call sites visited before giving up (a chain gdb would find is short)
_ORIGINS = ("DW_AT_call_origin", "DW_AT_abstract_origin")  # as callsites.call_target reads them


@dataclass(frozen=True, slots=True)
class TailChain:
    """The tail call sites between a caller's call site and its callee, the caller's end
    first (link-time return pcs), and how many of them every path shares at each end."""

    sites: tuple[int, ...]
    callers: int
    callees: int

    def frames(self) -> tuple[int, ...]:
        """The virtual frames' pcs, the callee's caller first (gdb's pretend_pc order)."""
        length = len(self.sites)
        if self.callers == length and self.callees == length:
            return tuple(reversed(self.sites))
        bottom = [self.sites[length - 1 - level] for level in range(self.callees)]
        top = [self.sites[self.callers - 1 - level] for level in range(self.callers)]
        return (*bottom, *top)


def tail_call_frames(symbols: ModuleSymbols, caller_return: int, callee: int) -> tuple[int, ...]:
    """The link-time pcs of the virtual frames between the call returning to link-time
    `caller_return` and the function entered at link-time `callee`, innermost first; none
    for a direct call or when gdb would find no unambiguous chain. Kept by both pcs."""
    key = (caller_return, callee)
    if key not in symbols.tail_chains:
        try:
            chain = find_chain(symbols, caller_return, callee)
        except NoEntryValue:
            chain = None
        symbols.tail_chains[key] = () if chain is None else chain.frames()
    return symbols.tail_chains[key]


def names_its_callee(symbols: ModuleSymbols, caller_return: int) -> bool:
    """Whether the call site returning to link-time `caller_return` names the function it
    calls: else its target (DW_AT_call_target) needs an unwound frame, and find_chain,
    as gdb's, follows no chain from it whatever the callee."""
    site = call_site(symbols, caller_return)
    return site is not None and any(name in site.attributes for name in _ORIGINS)


def find_chain(symbols: ModuleSymbols, caller_return: int, callee: int) -> TailChain | None:
    """gdb's call_site_find_chain_1, depth first: None where no path, or no call site
    shared by all paths; NoEntryValue where a target cannot be known."""
    site = call_site(symbols, caller_return)
    if site is None:
        return None
    result: TailChain | None = None
    path: list[tuple[DIE, list[DIE]]] = []  # each tail call site taken, with its later siblings
    on_path: set[int] = set()  # gdb's addr_hash: the path's return pcs
    tail_lists: dict[int, list[DIE]] = {}  # a function is visited by every path through it
    current, steps = site, 0
    while True:
        steps += 1
        if steps > _STEPS:
            return None
        target = call_target(symbols, current, None)
        candidate: DIE | None = None
        rest: list[DIE] = []
        if target == callee:  # a path found; the callee is not entered again
            result = _intersect(result, [return_pc(s) or 0 for s, _ in path])
            if result is None:
                return None
        else:
            if target not in tail_lists:
                tail_lists[target] = _tail_calls_of(symbols, target)
            options = tail_lists[target]
            if options:
                candidate, rest = options[0], options[1:]
        while True:  # enter the candidate, else the next sibling of a site backed out of
            if candidate is not None and (return_pc(candidate) or 0) not in on_path:
                on_path.add(return_pc(candidate) or 0)
                path.append((candidate, rest))
                break
            candidate = None
            while path and candidate is None:
                left, siblings = path.pop()
                on_path.discard(return_pc(left) or 0)
                if siblings:
                    candidate, rest = siblings[0], siblings[1:]
            if candidate is None:
                break
        if not path:
            return result
        current = path[-1][0]


def _tail_calls_of(symbols: ModuleSymbols, function: int) -> list[DIE]:
    """The tail call sites of the function entered at link-time `function` (gdb's
    TAIL_CALL_LIST, in its order: the last in the DIE tree first); NoEntryValue where
    `function` is no function's entry (gdb's func_addr_to_tail_call_list)."""
    cu = symbols.units.cu_for_address(function)
    at = None if cu is None else symbols.units.function_die_at(cu, function)
    if at is None or symbols.function_address(at.subprogram) != function:
        raise NoEntryValue(
            f"DW_TAG_call_site resolving failed to find function name for address {function:#x}"
        )
    sites = [
        site for site in sites_under(at.subprogram)
        if attr_value(site, "DW_AT_call_tail_call") or attr_value(site, "DW_AT_GNU_tail_call")
    ]  # fmt: skip
    return sites[::-1]


def _intersect(result: TailChain | None, chain: list[int]) -> TailChain | None:
    """gdb's chain_candidate: the first chain whole, then only what every chain shares at
    the caller's end and at the callee's end; None when nothing is shared."""
    length = len(chain)
    if result is None:
        return TailChain(tuple(chain), length, length)
    # As gdb: a count drops to where the chains first differ, else stays as it was.
    callers = next((i for i in range(min(result.callers, length)) if result.sites[i] != chain[i]),
                   result.callers)  # fmt: skip
    end = len(result.sites) - 1
    callees = next((i for i in range(min(result.callees, length)) if result.sites[end - i] != chain[length - 1 - i]),
                   result.callees)  # fmt: skip
    if callers == 0 and callees == 0:
        return None
    return TailChain(result.sites, callers, callees)
