"""gdb's hardware breakpoints (`hbreak`, `thbreak`, `-break-insert -h`) as the front end
keeps them. The engine traps them as it does every breakpoint (a hit, a step over it and
memory reads are the same to the user); what is gdb's is their bookkeeping: they need a
live process (gdb's exec target has no debug registers), and x86's four debug registers,
which watchpoints share, bound how many can be in at once: a resume with more enabled is
refused in gdb's words, as gdb's insert_breakpoints refuses it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import MiError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoints import BreakpointTable

NO_HARDWARE = "No hardware breakpoint support in the target."
REGISTERS = 4  # x86-64's DR0-DR3


def check_room(table: BreakpointTable) -> None:
    """Before a resume: MiError when the enabled hardware breakpoints' locations and the
    watchpoints need more debug registers than there are. The watches' registers are taken
    first (the engine holds them already); gdb fills the rest in address order, locations
    at one address sharing a register."""
    entries = table.sorted()
    free = REGISTERS - sum(1 for bp in entries if bp.is_watch and bp.enabled and not bp.dead)
    wanted = sorted((place.address, bp.number) for bp in entries if bp.hardware and bp.enabled
                    for place in bp.places
                    if place.address not in bp.loc_disabled | bp.cond_disabled)  # fmt: skip
    taken: set[int] = set()  # one register serves each address, as gdb's reference counts
    refused = []
    for address, number in wanted:
        if address not in taken and len(taken) < free:
            taken.add(address)
        elif address not in taken:
            refused.append((address, number))
    if refused:
        lines = "".join(f"Cannot insert hardware breakpoint {number}.\n" for _address, number in refused)
        raise MiError(f"Warning:\n{lines}Could not insert hardware breakpoints:\n"
                      "You may have requested too many hardware breakpoints/watchpoints.\n\nCommand aborted.")
