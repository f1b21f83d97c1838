"""gdb's tracepoints as its native target has them: `trace LOCATION` and `-break-insert -a`
make one, listed, conditioned, counted (`passcount`, -break-passcount) and deleted as a
breakpoint is, and never inserted (installed="n"): collecting needs a target that runs
trace experiments (gdbserver's agent), which this is not, as gdb's tstart & co say.
"""

from __future__ import annotations

import re

from aliceserver.adapters.mi import commands_break as breaks
from aliceserver.adapters.mi.break_keywords import keywords
from aliceserver.adapters.mi.breakpoints import TRACEPOINT, MiBreakpoint
from aliceserver.adapters.mi.console_targets import target_name
from aliceserver.adapters.mi.locations import console_location
from aliceserver.adapters.mi.pending_query import create_or_ask
from aliceserver.adapters.mi.queries import query
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, MiRegistry, Reply
from aliceserver.errors import AliceError


def created(ctx: Context, bp: MiBreakpoint) -> None:
    """gdb's $tpnum: the number of the last tracepoint made."""
    ctx.session.breakpoints.trace_count = bp.number
    try:
        ctx.session.debugger.evaluate(f"$tpnum = {bp.number}", calls=False)
    except AliceError:
        pass  # the variable waits for the next tracepoint (the program is running)


def _trace(ctx: Context, text: str) -> Reply:
    """`trace LOCATION [if COND]`."""
    session = ctx.session
    location, rest = console_location(text)
    given = keywords(session, rest)
    if not location.strip():
        raise MiError("No default breakpoint location now selected.")
    bp = create_or_ask(ctx, lambda pending: session.breakpoints.create(
        location, condition=given.condition, pending_ok=pending, thread=given.thread,
        force_condition=given.force_condition, warn=ctx.log, kind=TRACEPOINT), kind="tracepoint")
    if bp is None:  # a pending one declined
        return None
    created(ctx, bp)
    ctx.console(session.breakpoints.announce(bp))
    breaks.created(ctx, bp, to_self=True)
    return None


def _find(ctx: Context, number: int) -> MiBreakpoint | None:
    found = ctx.session.breakpoints.entries.get(number)
    return found if found is not None and found.gdb_type == TRACEPOINT else None


def _set_pass(ctx: Context, bp: MiBreakpoint, count: int) -> None:
    bp.passcount = count
    table = ctx.session.breakpoints
    ctx.session.notify_except(ctx, "breakpoint-modified", [("bkpt", table.tuple(bp))])
    if ctx.cli and ctx.from_tty:
        ctx.console(f"Setting tracepoint {bp.number}'s passcount to {count}\n")


def _passcount(ctx: Context, text: str) -> Reply:
    """`passcount COUNT [TPNUMS|all]`: the last tracepoint made without TPNUMS."""
    if not text.strip():
        raise MiError("passcount command requires an argument (count + optional TP num)")
    match = re.match(r"\s*(\d*)\s*(.*)", text)
    assert match is not None
    count, rest = int(match.group(1) or "0"), match.group(2).strip()
    table = ctx.session.breakpoints
    if rest.lower().startswith("all"):
        if rest[3:]:
            raise MiError("Junk at end of arguments.")
        for bp in [bp for bp in table.sorted() if bp.gdb_type == TRACEPOINT]:
            _set_pass(ctx, bp, count)
        return None
    words = rest.split() or [str(ctx.session.breakpoints.trace_count)]
    for word in words:
        numbers = re.fullmatch(r"(\d+)(?:-(\d+))?", word)
        if numbers is None:  # gdb's range parser takes it for the end of the numbers
            break
        if int(numbers.group(1)) <= 0:
            ctx.console(f"bad tracepoint number at or near '{word}'\n" if rest else "No previous tracepoint\n")
            continue
        for number in range(int(numbers.group(1)), int(numbers.group(2) or numbers.group(1)) + 1):
            found = _find(ctx, number)
            if found is None:
                ctx.console(f"No tracepoint number {number}.\n")
            else:
                _set_pass(ctx, found, count)
    return None


def _break_passcount(ctx: Context, args: list[str]) -> Reply:
    """-break-passcount TPNUM COUNT (gdb tells the other channels only)."""
    if len(args) != 2:
        raise MiError("Usage: tracepoint-number passcount")
    match = re.match(r"\s*([-+]?\d+)", args[0])
    number = int(match.group(1)) if match else 0  # gdb's atoi
    bp = _find(ctx, number)
    if bp is None:
        raise MiError(f"Could not find tracepoint {number}")
    _set_pass(ctx, bp, int(re.match(r"\s*([-+]?\d*)", args[1]).group(1) or "0"))  # type: ignore[union-attr]
    return None


def tstart(ctx: Context, text: str) -> Reply:
    """A trace experiment needs a target that runs one: gdb names this one's kind."""
    traces = [bp for bp in ctx.session.breakpoints.entries.values() if bp.gdb_type == TRACEPOINT]
    if not traces:
        raise MiError("No tracepoints defined, not starting trace")
    if not any(bp.enabled for bp in traces):  # a target that cannot enable them later: gdb's start_tracing
        raise MiError("No tracepoints enabled, not starting trace")
    target = target_name(ctx)
    raise MiError(f"You can't do that when your target is `{target}'")


def delete_subcommand(ctx: Context, word: str, text: str) -> Reply:
    """`delete tvariable ...` and `delete tracepoints [NUMBERS]` (gdb's delete_trace_command:
    with numbers, any breakpoint as `delete` takes it; without, every tracepoint, after a
    yes from a person)."""
    from aliceserver.adapters.mi import trace_variables  # it imports this module

    if "tvariable".startswith(word):
        return trace_variables.delete_tvariables(ctx, text)
    if text.strip():
        found = ctx.session.cli_commands.lookup("delete")
        assert found is not None
        return found[1](ctx, text)
    traces = [bp for bp in ctx.session.breakpoints.sorted() if bp.gdb_type == TRACEPOINT]
    if traces and (not ctx.from_tty or query(ctx, "Delete all tracepoints? ")):
        breaks.delete(ctx, [str(bp.number) for bp in traces])  # (no numbers would be all of them)
    return None


def register(registry: MiRegistry) -> None:
    from aliceserver.adapters.mi import trace_frames, trace_variables  # they import this module

    registry.add("break-passcount", _break_passcount)
    trace_variables.register(registry)
    trace_frames.register(registry)


def register_console(registry: CliRegistry) -> None:
    registry.add("trace", _trace, "tp", "tr", "tra", "trac")
    registry.add("passcount", _passcount)
    registry.add("tstart", tstart)
    registry.add("tstatus", lambda ctx, text: ctx.console("Trace can not be run on this target.\n"))
    registry.add("tstop", lambda ctx, text: _not_running())
    # ws and stepping as names of their own: gdb lists them among a prefix's matches (`ste`)
    for action in ("collect", "teval", "while-stepping", "ws", "stepping"):
        registry.add(action, lambda ctx, text: _action_only())
    from aliceserver.adapters.mi import trace_frames, trace_variables  # they import this module

    trace_variables.register_console(registry)
    trace_frames.register_console(registry)


def _action_only() -> Reply:
    """collect, teval and while-stepping typed alone: they belong in a tracepoint's list."""
    raise MiError("This command can only be used in a tracepoint actions list.")


def _not_running() -> Reply:
    raise MiError("Trace is not running.")
