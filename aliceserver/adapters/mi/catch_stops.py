"""Catchpoints at work: the engine told what to catch, each catch stop judged (conditions,
ignore counts) on the tracer thread, and the stop told as gdb 13 tells it; the `catch` /
`tcatch` console commands and the MI -catch-* commands."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import aliceserver.debuggers.events as ev
from aliceserver.adapters.mi import catchpoints as cp
from aliceserver.adapters.mi.notify import signal_name
from aliceserver.adapters.mi.output import Results, Value
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, MiRegistry, Reply
from aliceserver.debuggers.catch_events import CatchEvents
from aliceserver.debuggers.model import CatchKind
from aliceserver.errors import AliceError
from aliceserver.session.breakpoints import BreakpointKind

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoints import BreakpointTable, MiBreakpoint
    from aliceserver.adapters.mi.session import MiSession

STOP_REASONS = frozenset({
    ev.StopReason.LIBRARY, ev.StopReason.SYSCALL_ENTRY, ev.StopReason.SYSCALL_RETURN, ev.StopReason.FORK,
    ev.StopReason.VFORK, ev.StopReason.EXEC, ev.StopReason.SIGNAL_CAUGHT, ev.StopReason.EXCEPTION,
})  # fmt: skip
_EXCEPTION_NOTES = {"C++ exception thrown": "throw", "C++ exception caught": "catch",
                    "C++ exception rethrown": "rethrow"}  # fmt: skip
_EXCEPTION_WORDS = {"throw": "thrown", "catch": "caught", "rethrow": "rethrown"}
_RUNTIME_FUNCTIONS = {"throw": "__cxa_throw", "catch": "__cxa_begin_catch", "rethrow": "__cxa_rethrow"}
_KINDS = {CatchKind.FORK: ("fork", "vfork"), CatchKind.EXEC: ("exec",), CatchKind.THROW: ("throw",),
          CatchKind.CATCH: ("catch",), CatchKind.RETHROW: ("rethrow",)}  # fmt: skip


@dataclass
class CatchStop:
    """How one catch stop is told: console text before the location, *stopped fields."""

    text: str
    pairs: list[tuple[str, Value]] = field(default_factory=list)
    mi_prefix: str = ""  # a line MI's console gets first (gdb prints signal catches twice)
    bp: MiBreakpoint | None = None


# --- the engine ------------------------------------------------------------------------------
def sync(session: MiSession) -> None:
    """Tell the engine the union of what the enabled catchpoints catch."""
    table = session.breakpoints
    live = [bp.catch for bp in table.sorted() if bp.catch is not None and bp.enabled]
    events = {spec.event for spec in live}
    debugger = session.debugger
    for kind, names in _KINDS.items():
        debugger.set_catchpoint(kind, bool(events & set(names)))
    if not isinstance(debugger, CatchEvents):
        return
    syscall_specs = [spec for spec in live if spec.event == "syscall"]
    syscalls: frozenset[int] | None = None
    if syscall_specs:
        every = any(not spec.syscalls for spec in syscall_specs)
        syscalls = frozenset() if every else frozenset(n for s in syscall_specs for _, n in s.syscalls)
    signals = frozenset(n for spec in live if spec.event == "signal" for n in cp.signal_numbers(spec))
    every_event = stops_on_solib_events(session)
    libraries = bool(events & set(cp.LIBRARY_EVENTS)) or every_event
    debugger.set_catch_events(syscalls=syscalls, signals=signals, libraries=libraries,
                              gate=lambda stop: _judge(table, stop, every_event))  # fmt: skip


def stops_on_solib_events(session: MiSession) -> bool:
    """gdb's `set stop-on-solib-events N`: a nonzero N stops at every event of the loader."""
    return session.settings.get("stop-on-solib-events") not in ("0", "")


def _judge(table: BreakpointTable, stop: ev.Stopped, every_library_event: bool = False) -> bool:
    """On the tracer thread: count the hit of every catchpoint the stop matches (gdb's order:
    condition, hit count, ignore count); stop when one of them says so, or at any library
    event under stop-on-solib-events."""
    chosen: MiBreakpoint | None = None
    for bp in sorted(list(table.entries.values()), key=lambda b: b.number):
        spec = bp.catch
        if spec is None or not bp.enabled or bp.dead or not _matches(spec, stop):
            continue
        if stop.reason in (ev.StopReason.FORK, ev.StopReason.VFORK):
            spec.last = str(stop.new_pid)
        elif stop.reason is ev.StopReason.EXEC:
            spec.last = stop.description
        if bp.condition_fn is not None and not bp.condition_fn(stop.thread_id):
            continue
        bp.hits += 1
        if bp.ignore > 0:
            bp.ignore -= 1
            continue
        chosen = chosen or bp
    if chosen is not None:
        table.caught = [*table.caught[-15:], (stop, chosen)]
    return chosen is not None or (every_library_event and stop.reason is ev.StopReason.LIBRARY)


def _matches(spec: cp.CatchSpec, stop: ev.Stopped) -> bool:
    reason = stop.reason
    if reason in (ev.StopReason.SYSCALL_ENTRY, ev.StopReason.SYSCALL_RETURN):
        return spec.event == "syscall" and (not spec.syscalls or any(n == stop.syscall for _, n in spec.syscalls))
    if reason is ev.StopReason.SIGNAL_CAUGHT:
        return spec.event == "signal" and cp.catches_signal(spec, signal_name(stop.signal, stop.signal_name))
    if reason is ev.StopReason.EXCEPTION:
        if spec.event != _EXCEPTION_NOTES.get(stop.description):
            return False
        return spec.regex is None or bool(stop.exception_type and re.search(spec.regex, stop.exception_type))
    if reason is ev.StopReason.LIBRARY:
        paths = stop.libraries_loaded if spec.event == "load" else stop.libraries_unloaded
        return spec.event in cp.LIBRARY_EVENTS and any(
            spec.regex is None or re.search(spec.regex, path) for path in paths
        )
    return spec.event == str(reason.value)  # fork, vfork, exec


# --- stops ---------------------------------------------------------------------------------
def describe(session: MiSession, stop: ev.Stopped) -> CatchStop | None:
    """The catch stop's story, or None when no catchpoint of ours made it."""
    table = session.breakpoints
    bp = next((bp for judged, bp in table.caught if judged is stop), None)
    table.caught = [(judged, other) for judged, other in table.caught if judged is not stop]
    if (bp is None or bp.catch is None) and stop.reason is ev.StopReason.LIBRARY:
        return _solib_event(stop)
    if bp is None or bp.catch is None:
        return None
    spec = bp.catch
    number = str(bp.number)
    disp = "del" if bp.temporary else "keep"
    word = "Temporary catchpoint" if bp.temporary else "Catchpoint"
    reason = stop.reason
    if reason in (ev.StopReason.SYSCALL_ENTRY, ev.StopReason.SYSCALL_RETURN):
        entry = reason is ev.StopReason.SYSCALL_ENTRY
        number_of_call = stop.syscall or 0
        name = session.breakpoints.syscall_names.get().name(number_of_call)
        pairs: list[tuple[str, Value]] = [("reason", reason.value), ("disp", disp), ("bkptno", number),
                                          ("syscall-number", str(number_of_call))]
        if name is not None:
            pairs.append(("syscall-name", name))
        what = "call to" if entry else "returned from"
        return CatchStop(f"\n{word} {number} ({what} syscall {cp.syscall_word(name, number_of_call)}), ", pairs, bp=bp)
    if reason in (ev.StopReason.FORK, ev.StopReason.VFORK):
        pairs = [("reason", reason.value), ("disp", disp), ("bkptno", number), ("newpid", str(stop.new_pid))]
        return CatchStop(f"\n{word} {number} ({reason.value}ed process {stop.new_pid}), ", pairs, bp=bp)
    if reason is ev.StopReason.EXEC:
        pairs = [("reason", "exec"), ("disp", disp), ("bkptno", number), ("new-exec", stop.description)]
        return CatchStop(f"\n{word} {number} (exec'd {stop.description}), ", pairs, bp=bp)
    if reason is ev.StopReason.LIBRARY:
        pairs = [("bkptno", number), ("disp", disp), ("reason", "solib-event")]
        text = f"\n{word} {number}\n"
        for key, heading, paths in (("added", "loaded", stop.libraries_loaded),
                                    ("removed", "unloaded", stop.libraries_unloaded)):  # fmt: skip
            if paths:
                text += f"  Inferior {heading} " + "    ".join(f"{path}\n" for path in paths)
                pairs.append((key, Results([("library", path) for path in paths], as_list=True)))
        return CatchStop(text, pairs, bp=bp)
    if reason is ev.StopReason.SIGNAL_CAUGHT:
        line = f"Catchpoint {number} (signal {signal_name(stop.signal, stop.signal_name)}), "
        return CatchStop("\n" + line, [], mi_prefix=line, bp=bp)
    spec.located = True  # the runtime's function is known now: shown with an address
    pairs = [("bkptno", number), ("reason", "breakpoint-hit"), ("disp", disp)]
    return CatchStop(f"\n{word} {number} (exception {_EXCEPTION_WORDS[spec.event]}), ", pairs, bp=bp)


def _solib_event(stop: ev.Stopped) -> CatchStop:
    """gdb's print_solib_event under stop-on-solib-events: the libraries that came and
    went, no location (its *stopped has no frame)."""
    pairs: list[tuple[str, Value]] = [("reason", "solib-event")]
    if not stop.libraries_loaded and not stop.libraries_unloaded:
        return CatchStop("Stopped due to shared library event (no libraries added or removed)\n", pairs)
    text = "Stopped due to shared library event:\n"
    for key, heading, paths in (("added", "loaded", stop.libraries_loaded),
                                ("removed", "unloaded", stop.libraries_unloaded)):  # fmt: skip
        if paths:
            text += f"  Inferior {heading} " + "    ".join(f"{path}\n" for path in paths)
            pairs.append((key, Results([("library", path) for path in paths], as_list=True)))
    return CatchStop(text, pairs)


# --- commands --------------------------------------------------------------------------------
def create(session: MiSession, spec: cp.CatchSpec, *, temporary: bool = False, enabled: bool = True) -> MiBreakpoint:
    from aliceserver.adapters.mi.breakpoints import MiBreakpoint

    table = session.breakpoints
    if spec.event in cp.EXCEPTIONS:
        spec.located = _runtime_known(session, spec.event)
    bp = MiBreakpoint(table.next_number, BreakpointKind.CATCH, spec.event, gdb_type=cp.CATCHPOINT,
                      temporary=temporary, enabled=enabled, catch=spec)
    table.next_number += 1
    table.entries[bp.number] = bp
    try:
        sync(session)
    except AliceError:  # the engine cannot catch this (over a stub): no catchpoint, no number
        del table.entries[bp.number]
        table.next_number -= 1
        sync(session)
        raise
    return bp


def _runtime_known(session: MiSession, event: str) -> bool:
    try:
        session.ensure_symbols()
        return bool(session.has_symbols() and session.debugger.resolve_location(_RUNTIME_FUNCTIONS[event]))
    except Exception:  # noqa: BLE001 - unknown: shown without an address, as gdb then
        return False


def _catch(ctx: Context, text: str, temporary: bool = False) -> Reply:
    from aliceserver.adapters.mi.commands_break import created

    event, _, rest = text.strip().partition(" ")
    if not event:
        ctx.console(cp.HELP)
        return None
    session = ctx.session
    bp = create(session, cp.parse(event, rest, session.breakpoints.syscall_names), temporary=temporary)
    assert bp.catch is not None
    ctx.console(cp.mention(bp, bp.catch))
    created(ctx, bp, to_self=True)
    return None


def _mi_catch(event: str, library: bool):  # type: ignore[no-untyped-def]
    def handler(ctx: Context, args: list[str]) -> Reply:
        from aliceserver.adapters.mi.commands_break import created

        options = getopt(f"catch-{event}", args, flags="td" if library else "t", valued="" if library else "r")
        if library and not options.rest:
            raise MiError("-catch-load/unload: Missing <library name>")
        if library and len(options.rest) > 1:
            raise MiError("-catch-load/unload: Garbage following the <library name>")
        regex = options.rest[0] if library else options.get("r")
        session = ctx.session
        spec = cp.parse(event, regex or "", session.breakpoints.syscall_names)
        bp = create(session, spec, temporary=options.has("t"), enabled=not options.has("d"))
        created(ctx, bp, to_self=False)
        return [("bkpt", session.breakpoints.tuple(bp))]

    return handler


def _ada(ctx: Context, args: list[str]) -> Reply:
    raise MiError("Unable to insert catchpoint.  Is this an Ada main program?")


def register_console(registry: CliRegistry) -> None:
    registry.add("catch", _catch)
    registry.add("tcatch", lambda ctx, text: _catch(ctx, text, temporary=True))


def register(registry: MiRegistry) -> None:
    """gdb 13's -catch-* commands (mi-cmds.c): load/unload and C++ exceptions; Ada's are
    refused as gdb refuses them in a program without Ada."""
    for event in ("load", "unload"):
        registry.add(f"catch-{event}", _mi_catch(event, library=True))
    for event in cp.EXCEPTIONS:
        registry.add(f"catch-{event}", _mi_catch(event, library=False))
    for name in ("catch-assert", "catch-exception", "catch-handlers"):
        registry.add(name, _ada)


__all__ = ["register", "register_console", "describe", "sync", "create"]
