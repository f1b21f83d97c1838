"""gdb's question before a pending breakpoint (breakpoint.c create_breakpoint).

A console `break` whose location names no code (gdb's NOT_FOUND_ERROR) depends on `set
breakpoint pending`: off is the error; on prints the error (to stderr, MI's log stream) and
makes the breakpoint pending; auto prints the error, then asks nquery's "Make breakpoint
pending on future shared library load? (y or [n]) " (default no: in -batch, from a pipe or
with `set confirm off` it answers N, a person at a terminal may say y). -break-insert never
asks (its -f says pending). After a no the command ends without an error of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.queries import query
from aliceserver.adapters.mi.registry import MiError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoints import MiBreakpoint
    from aliceserver.adapters.mi.registry import Context

QUESTION = "Make {} pending on future shared library load? "  # the kind's name: bptype_string


class LocationNotFound(MiError):
    """gdb's NOT_FOUND_ERROR for a location spec: it names no code (yet)."""


Create = Callable[[bool], "tuple[MiBreakpoint, str | None]"]


def create_or_ask(ctx: Context, create: Create, kind: str = "breakpoint") -> MiBreakpoint | None:
    """`create(pending_ok)`'s breakpoint as gdb's console `break` (`dprintf`, `trace`:
    `kind`) makes it; None when the user (or the default answer) declined a pending one."""
    setting = ctx.session.settings.get("breakpoint pending")
    try:
        bp, problem = create(setting == "on")
    except LocationNotFound as error:
        if setting != "auto":
            raise
        ctx.log(f"{error}\n")  # gdb's exception_print, then the question
        if not query(ctx, QUESTION.format(kind), default=False):
            return None
        bp, _problem = create(True)
        return bp
    if problem:  # pending: gdb says why, on its error stream
        ctx.log(f"{problem}\n")
    return bp
