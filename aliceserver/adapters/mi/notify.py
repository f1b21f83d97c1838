"""Engine events as gdb shows them: `=` notifications, `*running`/`*stopped`, console text."""

from __future__ import annotations

import time
from contextlib import suppress
from typing import TYPE_CHECKING

import aliceserver.debuggers.events as ev
from aliceserver.adapters.mi import hit_numbers, libraries
from aliceserver.adapters.mi.frames import ARCH, hex16
from aliceserver.adapters.mi.output import Results, Value, record
from aliceserver.adapters.mi.sigframes import FINISH_FROM_TRAMPOLINE
from aliceserver.adapters.mi.thread_names import named
from aliceserver.adapters.mi.user_commands import run_stop_hook
from aliceserver.debuggers.gdb_signals import gdb_signal_description, gdb_signal_name
from aliceserver.debuggers.target import CONNECTION_CLOSED
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoints import MiBreakpoint
    from aliceserver.adapters.mi.session import MiSession
    from aliceserver.debuggers.model import Module, ThreadInfo


def signal_name(number: int | None, name: str | None) -> str:
    """gdb's name of a signal: from its number when known (SIG34, not SIGRTMIN)."""
    if number is not None and number > 0:
        return gdb_signal_name(number)
    return name or "0"


def signal_meaning(name: str) -> str:
    """gdb's description of a signal (gdb_signal_to_string)."""
    return gdb_signal_description(name)


def exit_code_text(code: int) -> str:
    return "0" if code == 0 else f"0{code:o}"


def handle_event(session: MiSession, event: ev.Event) -> None:
    inferior = session.inferior
    if isinstance(event, ev.Progress):  # the symbol probe's loads too: the user waits on them
        _progress(session, event)
        return
    if inferior.process is None and inferior.probe_pid is not None:
        # The symbol probe: nobody started it, nobody hears of it; but of the symbols it
        # reads (an unusable debug file), as gdb tells when it reads them.
        if isinstance(event, ev.Exited) and event.pid == inferior.probe_pid:
            inferior.probe_pid = None
        if not (isinstance(event, ev.Output) and event.of_symbols):
            return
    if inferior.process is None and not isinstance(event, (ev.ProcessStarted, ev.Output)) and not (
        isinstance(event, ev.Exited) and event.signal_name == CONNECTION_CLOSED and inferior.threads
    ):  # the stub's loss is told though it came before its process was taken in
        return  # the end of a process already given up (detached, killed and reported)
    if isinstance(event, ev.ProcessStarted):
        inferior.process = session.debugger.process
        inferior.exit_code = None
        session.notify("thread-group-started", [("id", f"i{session.inferior.number}"), ("pid", str(event.pid))])
        if inferior.core_threads:  # gdb's core target adds them all, in the core's order
            for tid in inferior.core_threads:
                _thread_started(session, tid, core=True)
        else:
            _thread_started(session, event.main_thread or event.pid)  # the engine announces only the later threads
        inferior.reported_tid = event.main_thread or event.pid
    elif isinstance(event, ev.ThreadStarted):
        _thread_started(session, event.thread_id, event.pointer)
    elif isinstance(event, ev.ThreadExited):
        leader = inferior.process is not None and event.thread_id == inferior.process.pid
        if leader and event.thread_id in inferior.threads and not inferior.killing:
            inferior.leader_exited = True  # it exited alone, the process lives on
            if event.pointer is not None:  # (its registers cannot be read now)
                inferior.thread_pointers.setdefault(event.thread_id, event.pointer)
        if inferior.process is not None and (not leader or inferior.leader_exited):
            if event.thread_id in inferior.threads and not inferior.killing:  # (gdb's kill: no line)
                _thread_event_line(session, "[{} exited]\n", event.thread_id)
            number = inferior.remove_thread(event.thread_id)
            if number is not None:
                session.notify("thread-exited", [("id", str(number)), ("group-id", f"i{session.inferior.number}")])
                _drop_thread_breakpoints(session, number)
    elif isinstance(event, ev.ModuleLoaded):
        if not event.module.is_main and inferior.process is not None:
            inferior.libraries.append(event.module)
            session.notify("library-loaded", [
                *libraries.library_names(event.module), ("symbols-loaded", "0"),
                ("thread-group", f"i{session.inferior.number}"), *libraries.range_field(event.module),
            ])
            _breakpoints_modified(session)
    elif isinstance(event, ev.ModuleUnloaded):  # gone from `info sharedlibrary` too, as in gdb
        inferior.libraries[:] = [module for module in inferior.libraries if module.path != event.module.path]
        warned = _has_places_in(session, event.module)
        session.notify("library-unloaded", [*libraries.library_names(event.module),
                                            ("thread-group", f"i{session.inferior.number}")])
        if warned:
            _unloaded_with_breakpoints(session, event.module)
    elif isinstance(event, ev.LocationBreakpointChanged):
        _breakpoints_modified(session)
    elif isinstance(event, ev.Continued):
        inferior.reported_tid = inferior.selected_tid  # gdb's proceed: a stop elsewhere says so
        locking = session.settings.get("scheduler-locking") in ("on", "step")  # else gdb: all
        session.on_continued(inferior.threads.get(event.thread_id) if locking and not event.all_threads
                             and event.thread_id is not None else None)
        session.varobjs.invalidate_references()
    elif isinstance(event, ev.Output):
        if event.category in ("stdout", "stderr"):
            session.program_output(event.text)
        elif event.category == "warning":  # the debugger's, on gdb's stderr
            _warn(session, event.text)
        else:
            session.console_all(event.text)
    elif isinstance(event, ev.Stopped):
        _stopped(session, event)
    elif isinstance(event, ev.Exited):
        _exited(session, event)


_PROGRESS_QUIET = 1.0  # seconds a symbol load runs before the console tells of it


def _progress(session: MiSession, event: ev.Progress) -> None:
    """A long symbol load (a cached load sends nothing) as console text, as gdb's
    "Reading symbols from ...": once it has taken a second, then when it is done (and, like
    that line, not at all in -batch). gdb prints nothing like it, so a load that ends
    sooner says nothing: the lines arrive after the command's prompt and would only get
    between the user (or a script matching gdb's output) and the next command. Only a
    console shows it: on an MI channel it would arrive after the command's result."""
    if session.config.batch:
        return
    now = time.monotonic()
    began = session.progress_shown.setdefault(event.ident, now)
    if event.done:
        del session.progress_shown[event.ident]
        if began is None:
            session.console_all(f"{event.title}...done.\n", mi=False)
    elif began is not None and now - began >= _PROGRESS_QUIET:
        session.progress_shown[event.ident] = None
        session.console_all(f"{event.title}...\n", mi=False)


def _thread_event_line(session: MiSession, form: str, tid: int) -> None:
    """gdb's [New Thread ...] / [Thread ... exited] console line (print thread-events)."""
    if session.settings.get("print thread-events") == "on":
        session.console_all(form.format(_target_id(session, tid)))


def _target_id(session: MiSession, tid: int) -> str:
    """gdb's `Thread 0x... (LWP n)` (imported here: commands_stack's imports lead back)."""
    from aliceserver.adapters.mi.commands_stack import target_id

    return target_id(session, tid)


def _thread_started(session: MiSession, tid: int, pointer: int | None = None, *, core: bool = False) -> None:
    inferior = session.inferior
    if pointer is not None:
        inferior.thread_pointers[tid] = pointer
    if tid in inferior.threads:
        return
    first = not inferior.threads
    number = inferior.add_thread(tid)
    session.notify("thread-created", [("id", str(number)), ("group-id", f"i{session.inferior.number}")])
    if core and session.settings.get("print thread-events") == "on":
        session.console_all(f"[New LWP {tid}]\n")  # before libthread_db: each one, the first too
    elif not first:  # as gdb: the new thread's line, and it runs with the others
        _thread_event_line(session, "[New {}]\n", tid)
        if inferior.running:
            session.broadcast(record("*", "running", [("thread-id", str(number))]))
    if first:  # gdb shows every breakpoint with its address in the new process
        session.breakpoints.refresh()
        for bp in session.breakpoints.sorted():
            if not bp.is_watch and not bp.pending and bp.catch is None:
                session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(bp))])


def _has_places_in(session: MiSession, module: Module) -> bool:
    """gdb's disable_breakpoints_in_unloaded_shlib warns for a breakpoint (enabled or not)
    or tracepoint with a place in the library; not for a dprintf or a catchpoint."""
    # (imported here: breakpoint_record's imports come back to this module)
    from aliceserver.adapters.mi.breakpoint_record import BREAKPOINT, TRACEPOINT

    return any(bp.gdb_type in (BREAKPOINT, TRACEPOINT) and bp.catch is None
               and any(module.low <= place.address < module.high for place in bp.places)
               for bp in session.breakpoints.entries.values())  # fmt: skip


_DISABLING = "Temporarily disabling breakpoints"


def _unloaded_with_breakpoints(session: MiSession, module: Module) -> None:
    """The places gone (the engine unbound them in the same turn as it sent the unload, so
    the table read now has them pending), told as gdb: =breakpoint-modified for the first,
    its warning on stderr (MI: &), then the others."""
    changed = session.breakpoints.refresh()
    text = f'warning: {_DISABLING} for unloaded shared library "{module.path}"\n'
    for index, bp in enumerate(changed):
        session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(bp))])
        if index == 0:
            _warn(session, text)
    if not changed:
        _warn(session, text)


def _warn(session: MiSession, text: str) -> None:
    for ui in session.uis:
        if not ui.closed:
            ui.log(text)


def _breakpoints_modified(session: MiSession) -> None:
    for bp in session.breakpoints.refresh():
        session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(bp))])


def _stopped(session: MiSession, stop: ev.Stopped) -> None:
    inferior = session.inferior
    repeat = session.step_repeat
    if repeat is not None and stop.reason is ev.StopReason.STEP and repeat.remaining > 0:
        repeat.remaining -= 1
        try:
            session.debugger.step(stop.thread_id, repeat.kind)
            return
        except AliceError:
            pass
    session.step_repeat = None
    # (imported here: it imports inferiors, which import this module)
    from aliceserver.adapters.mi import watch_gate

    # gdb goes on past a write of the same value, a read watchpoint's write (x86 traps every
    # access), a condition that fails, another thread's, an ignored hit (judged at the trap
    # where the engine asks, a step under way going on; else here, the program continued)
    verdict = watch_gate.verdict(session, stop)
    if verdict is not None:
        verdict.tell(session)
    watchers = verdict.watchers if verdict is not None else None
    if watchers == []:
        with suppress(AliceError):
            session.debugger.resume(session.locked_thread())
            return
    session.on_stopped_or_exited()
    inferior.run.stopped_at(stop)
    inferior.selected_tid = stop.thread_id
    inferior.selected_level = 0
    if stop.description == ev.CALL_RETURNED:  # gdb stops silently: a bare *stopped
        session.broadcast(record("*", "stopped"))
        session.after_stop()
        return
    origin = session.origin
    frames = session.frames
    try:
        frame = frames.frame(stop.thread_id, 0, arguments=True)  # *stopped shows them
    except AliceError:
        frame = None
    pairs: list[tuple[str, Value]] = []
    text = ""
    location_style = "source-and-location"
    deleted: list[int] = []
    reason = stop.reason
    from aliceserver.adapters.mi.catch_stops import STOP_REASONS, describe  # they need this module

    caught = describe(session, stop) if reason in STOP_REASONS else None
    if caught is not None and caught.bp is not None:
        session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(caught.bp))])
        pairs, text, location_style = caught.pairs, caught.text, "with-pc"
        deleted = [caught.bp.number] if caught.bp.temporary else []
    elif caught is not None:  # stop-on-solib-events: gdb shows no location, *stopped no frame
        pairs, text, location_style = caught.pairs, caught.text, "none"
    elif reason is ev.StopReason.BREAKPOINT or reason is ev.StopReason.EXCEPTION:
        hit = session.breakpoints.for_address_ids(stop.breakpoint_ids)
        for bp in hit:
            session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(bp))])
        if hit:
            bp = hit[0]
            pairs += [("reason", "breakpoint-hit"), ("disp", bp.disposition),
                      ("bkptno", str(bp.number))]
            hit_ids = [i for i, ident in enumerate(bp.address_ids, 1) if ident in stop.breakpoint_ids]
            locno = f".{hit_ids[0]}" if len(bp.places) > 1 and hit_ids else ""  # gdb's print_num_locno
            if locno:
                pairs.append(("locno", locno[1:]))
            word = "Temporary breakpoint" if bp.temporary else "Breakpoint"
            text = f"\n{word} {bp.number}{locno}, "
            location_style = "with-pc"  # gdb's frame_show_address: a row that is no statement
            deleted = [b.number for b in hit if b.temporary]
        else:
            pairs += [("reason", "breakpoint-hit"), ("disp", "keep"), ("bkptno", "0")]
            text = "\n"
    elif reason is ev.StopReason.WATCHPOINT:
        text = _watch_stop(session, stop, pairs, watchers)
        location_style = "with-pc"  # the pc after the access: shown mid-row (frame_show_address)
    elif reason is ev.StopReason.WATCHPOINT_SCOPE:
        location_style = "with-pc"  # the return address: mid-line, shown with its pc
    elif reason in (ev.StopReason.SIGNAL, ev.StopReason.CRASH):
        name = signal_name(stop.signal, stop.signal_name)
        meaning = signal_meaning(name)
        pairs += [("reason", "signal-received"), ("signal-name", name), ("signal-meaning", meaning)]
        text = f"\nProgram received signal {name}, {meaning}.\n"
        location_style = "with-pc"
    elif reason is ev.StopReason.PAUSE and stop.description == ev.ATTACHED:
        location_style = "with-pc"  # gdb's attach: the frame alone (its pc mid-line), no reason
    elif reason is ev.StopReason.PAUSE and stop.description != "timeout":
        # our interrupt: gdb's all-stop interrupt sends the program SIGINT (inf_ptrace's
        # interrupt), told as such and not passed on (SIGINT's nopass)
        pairs += [("reason", "signal-received"), ("signal-name", "SIGINT"), ("signal-meaning", "Interrupt")]
        text = "\nProgram received signal SIGINT, Interrupt.\n"
        location_style = "with-pc"
    elif reason is ev.StopReason.PAUSE or reason is ev.StopReason.ENTRY:
        pairs += [("reason", "signal-received"), ("signal-name", "0"), ("signal-meaning", "Signal 0")]
        text = "\nProgram stopped.\n"
        location_style = "with-pc"
    elif reason is ev.StopReason.FUNCTION_FINISHED and origin is not None and origin.kind == FINISH_FROM_TRAMPOLINE:
        reason = ev.StopReason.BREAKPOINT  # gdb's finish never finished (no function): its location, no reason
        location_style = "with-pc"  # the interrupted pc, mid-line as often as not
    elif reason is ev.StopReason.FUNCTION_FINISHED:
        pairs.append(("reason", "function-finished"))
        location_style = "with-pc"
    elif reason is ev.StopReason.EXEC:
        pairs += [("reason", "exec"), ("new-exec", stop.description or "")]
        text = f"process {stop.thread_id} is executing new program: {stop.description}\n"
    elif reason is ev.StopReason.FORK:
        pairs += [("reason", "fork"), ("newpid", stop.description or "")]
    else:  # STEP
        kind = origin.kind if origin is not None else "step"
        pairs.append(("reason", "location-reached" if kind == "until-location" else "end-stepping-range"))
        # gdb's normal_stop: the line alone (SRC_LINE) in the frame the step began in, else
        # the frame's whole location (SRC_AND_LOC), with its pc when mid-line (a stepi back
        # into the caller: `0x... in main () at prog.c:12`).
        # until/advance LOCATION end at a momentary breakpoint, not a stepping range: gdb
        # shows the whole location there even in the same function.
        same = session.same_function(frame) and kind != "until-location"
        location_style = "source-line" if same else "with-pc"
        if same and kind == "stepi" and frame is not None and not session.at_line_start(frame):
            location_style = "pc-and-line"
    thread = _thread_info(session, stop.thread_id)
    text = _thread_prefixed(session, text, thread)
    # The stop's console text: always for a console's own command or an event the user
    # did not ask for (a breakpoint, a signal); an MI -exec-next prints nothing.
    # gdb's print_stop_event: the location, the displays, then what `finish` returned
    shown = frame if location_style != "none" else None
    location, missing = _location_text(session, shown, stop.thread_id, location_style)
    console = text + location + _displays(session)
    if shown is not None:
        pairs.append(("frame", frames.tuple(shown, stop.thread_id, level=False, args=True)))
    if reason is ev.StopReason.FUNCTION_FINISHED and stop.return_value is not None:
        number = stop.return_value.history  # the engine put it in the value history
        # `set print finish off`: recorded all the same, its value not shown
        finish = session.settings.get("print finish") != "off"
        returned = session.printed(stop.return_value) if finish else "<not displayed>"  # value_print's
        pairs += [("gdb-result-var", f"${number}"), ("return-value", returned)]
        console += f"Value returned is ${number} = {returned}\n"
    number = inferior.threads.get(stop.thread_id) or inferior.add_thread(stop.thread_id)
    pairs += [("thread-id", str(number)), ("stopped-threads", "all")]
    if thread is not None and thread.core is not None:
        pairs.append(("core", str(thread.core)))
    left = _watches_left(session, stop, pairs)
    asked = reason in (ev.StopReason.STEP, ev.StopReason.FUNCTION_FINISHED) and not left
    to_mi = not asked or (origin is not None and origin.cli)
    if caught is not None and caught.mi_prefix:
        session.console_all(caught.mi_prefix, mi=True, cli=False)
    from aliceserver.adapters.mi.breakpoint_commands import on_stop  # it needs this module

    if inferior.reported_tid not in (None, stop.thread_id):  # gdb's normal_stop, to every UI
        session.console_all(f"[Switching to {_target_id(session, stop.thread_id)}]\n")
    inferior.reported_tid = stop.thread_id
    hit_numbers.hit(session, pairs, caught.bp if caught is not None else None)  # before its commands
    run_stop_hook(session)
    if on_stop(session, stop):  # `silent` first in a breakpoint's commands: not shown
        console = missing = ""
        pairs = []  # gdb's MI still says the program stopped: a bare *stopped
    if missing:  # gdb's error for the missing source file, on its error stream, after the location
        head = text + location
        session.console_all(head, mi=to_mi, cli=True)
        for ui in session.uis:
            if not ui.closed and (to_mi or not ui.is_mi):
                ui.log(missing)
        console = console[len(head) :]
    session.console_all(console, mi=to_mi, cli=True)
    session.broadcast(record("*", "stopped", pairs))
    for bp in left:
        session.breakpoints.delete(bp)
        session.notify("breakpoint-deleted", [("id", str(bp.number))])
    for number in deleted:
        gone = session.breakpoints.entries.get(number)
        if gone is not None:
            session.breakpoints.delete(gone)
            session.notify("breakpoint-deleted", [("id", str(number))])
    session.remember_stop(frame)
    session.after_stop()


def _thread_info(session: MiSession, tid: int) -> ThreadInfo | None:
    try:
        return next((named(session, t) for t in session.debugger.threads() if t.tid == tid), None)
    except AliceError:
        return None


# What a stop's first line starts with when a breakpoint, watchpoint or catchpoint made it.
_HIT_WORDS = ("Breakpoint ", "Temporary breakpoint ", "Hardware ", "Catchpoint ", "Temporary catchpoint ")


def _thread_prefixed(session: MiSession, text: str, thread: ThreadInfo | None) -> str:
    """gdb's `Thread N "name" hit Breakpoint 1, ...` and `Thread N "name" received signal`
    once the program has had a second thread (show_thread_that_caused_stop: the highest
    thread number above 1), in place of `Breakpoint 1, ...` and `Program received`."""
    inferior = session.inferior
    if inferior.next_thread <= 2 or thread is None or not text.startswith("\n"):
        return text
    number = inferior.threads.get(thread.tid)
    if number is None:
        return text
    who = f'Thread {number} "{thread.name}"' if thread.name else f"Thread {number}"
    body = text[1:]
    if body.startswith("Program received signal"):
        return f"\n{who}{body[len('Program'):]}"
    if body.startswith(_HIT_WORDS):
        return f"\n{who} hit {body}"
    return text


def _displays(session: MiSession) -> str:
    """`display` expressions in scope, shown at every stop."""
    from aliceserver.adapters.mi.displays import stop_text

    return stop_text(session)


def _watch_stop(session: MiSession, stop: ev.Stopped, pairs: list[tuple[str, Value]],
                watchers: list[MiBreakpoint] | None) -> str:
    found = watchers or session.breakpoints.for_watch_ids(stop.breakpoint_ids)
    if not found:
        pairs.append(("reason", "watchpoint-trigger"))
        return "\n"
    return "".join(_watch_told(session, stop, bp, pairs) for bp in found)  # gdb: each that stops


def _watch_told(session: MiSession, stop: ev.Stopped, bp: MiBreakpoint, pairs: list[tuple[str, Value]]) -> str:
    from aliceserver.adapters.mi.watch_gate import value_now  # (see _stopped)

    new = value_now(session, stop.thread_id, bp) or "<unreadable>"  # in the watchpoint's frame
    old, bp.old_value = bp.old_value, new
    bp.hits += 1
    session.notify("breakpoint-modified", [("bkpt", session.breakpoints.tuple(bp))])  # gdb's, with its count
    key = {"hw watchpoint": "wpt", "read watchpoint": "hw-rwpt", "acc watchpoint": "hw-awpt"}[bp.gdb_type]
    reason = {"wpt": "watchpoint-trigger", "hw-rwpt": "read-watchpoint-trigger",
              "hw-awpt": "access-watchpoint-trigger"}[key]
    pairs += [("reason", reason), (key, {"number": str(bp.number), "exp": bp.location})]
    label = bp.watch_label
    if key == "hw-rwpt" or (key == "hw-awpt" and old == new):
        pairs.append(("value", {"value": new}))
        return f"\n{label} {bp.number}: {bp.location}\n\nValue = {new}\n"
    pairs.append(("value", {"old": old or "", "new": new}))
    return f"\n{label} {bp.number}: {bp.location}\n\nOld value = {old}\nNew value = {new}\n"


def _watches_left(session: MiSession, stop: ev.Stopped, pairs: list[tuple[str, Value]]) -> list[MiBreakpoint]:
    """The watchpoints the engine deleted at this stop, their frame left: as gdb's
    watchpoint_check, each is counted and shown as dying (disp "dstp"), the console says
    why, and the stop record starts with reason="watchpoint-scope",wpnum=N (before the
    reason of a finish or a breakpoint that stopped there too)."""
    left = session.breakpoints.for_watch_ids(stop.watches_left) if stop.watches_left else []
    scope_pairs: list[tuple[str, Value]] = []
    for bp in left:
        bp.engine_id = None  # the engine deleted it already
        bp.hits += 1
        shown = session.breakpoints.tuple(bp)
        dying = Results([(key, "dstp" if key == "disp" else item) for key, item in shown.items])
        session.notify("breakpoint-modified", [("bkpt", dying)])
        scope_pairs += [("reason", "watchpoint-scope"), ("wpnum", str(bp.number))]
        # gdb's MI interpreter leaves this out of its console stream; its CLI prints it.
        session.console_all(
            f"\nWatchpoint {bp.number} deleted because the program has left the block in\n"
            "which its expression is valid.\n", mi=False, cli=True,
        )  # fmt: skip
    pairs[:0] = scope_pairs
    return left


def _location_text(session: MiSession, frame: object, tid: int, style: str) -> tuple[str, str]:
    """The stop's location for the console, and gdb's error when its source file is missing."""
    from aliceserver.debuggers.model import StackFrame

    if not isinstance(frame, StackFrame):
        return "", ""
    frames = session.frames
    what = session.settings.get("print frame-info")  # the user's choice over the stop's own
    mid = not session.at_line_start(frame) and session.settings.get("print address") == "on"
    if what == "source-line":
        style = "pc-and-line" if mid else "source-line"
    elif what != "auto" and what != "source-and-location":
        return frames.describe(frame, tid, with_pc=mid, what=what) + "\n", ""
    line_alone = style in ("source-line", "pc-and-line")
    report = frames.source_report(frame, mid=line_alone and not session.at_line_start(frame))
    source = report.text
    if (style == "source-line" or report.annotated and line_alone) and (source or report.error):
        return source, report.error
    if style == "pc-and-line" and source:
        return f"{hex16(frame.pc)}\t{source}", report.error
    with_pc = style == "with-pc" and not session.at_line_start(frame)
    return frames.describe(frame, tid, with_pc=with_pc) + "\n" + source, report.error


def _exited(session: MiSession, exited: ev.Exited) -> None:
    if exited.signal is None and exited.signal_name == CONNECTION_CLOSED:  # the stub went away
        from aliceserver.adapters.mi.remote_commands import connection_closed

        connection_closed(session, aborting=exited.before_resume)
        return
    inferior = session.inferior
    session.step_repeat = None
    session.on_stopped_or_exited()
    pid = inferior.process.pid if inferior.process is not None else exited.pid
    killed = inferior.killing
    detached = inferior.detaching
    if detached:
        text = f"[Inferior {inferior.number} (process {pid}) detached]\n"
    elif killed:
        text = f"[Inferior {inferior.number} (process {pid}) killed]\n"
    elif exited.code is not None:
        inferior.exit_code = exited.code
        text = (f"[Inferior {inferior.number} (process {pid}) exited normally]\n" if exited.code == 0
                else f"[Inferior {inferior.number} (process {pid}) exited with code {exit_code_text(exited.code)}]\n")
    else:
        name = signal_name(exited.signal, exited.signal_name)
        text = f"\nProgram terminated with signal {name}, {signal_meaning(name)}.\nThe program no longer exists.\n"
    if inferior.leader_exited and not killed and not detached:  # gdb's linux-nat adds it back
        number = inferior.add_thread(pid)  # for its exit status: "process N", its one thread
        group_id = f"i{session.inferior.number}"
        session.notify("thread-created", [("id", str(number)), ("group-id", group_id)])
        if session.settings.get("print thread-events") == "on":
            session.console_all(f"[New process {pid}]\n")
    if not killed and not detached:
        session.console_all(text)
    for number in sorted(inferior.threads.values()):
        session.notify("thread-exited", [("id", str(number)), ("group-id", f"i{session.inferior.number}")])
        _drop_thread_breakpoints(session, number)
    group: list[tuple[str, Value]] = [("id", f"i{session.inferior.number}")]
    if exited.code is not None and not killed and not detached:
        group.append(("exit-code", exit_code_text(exited.code)))
    session.notify("thread-group-exited", group)
    if detached or (killed and not inferior.killing_quietly):  # gdb's: after the group's end
        session.console_all(text)
    inferior.run.apply(exited)
    inferior.forget_process()
    session.breakpoints.program_gone()
    session.varobjs.program_gone()
    if killed or detached:
        inferior.killing = inferior.detaching = inferior.killing_quietly = False
        session.origin = None
        return
    if exited.code is None:
        name = signal_name(exited.signal, exited.signal_name)
        pairs: list[tuple[str, Value]] = [("reason", "exited-signalled"), ("signal-name", name),
                                          ("signal-meaning", signal_meaning(name))]
    elif exited.code == 0:
        pairs = [("reason", "exited-normally")]
    else:
        pairs = [("reason", "exited"), ("exit-code", exit_code_text(exited.code))]
    run_stop_hook(session)
    session.broadcast(record("*", "stopped", pairs))
    session.after_stop()


def _drop_thread_breakpoints(session: MiSession, number: int) -> None:
    """gdb's remove_threaded_breakpoints: a breakpoint for a thread that is gone goes too
    (after its =thread-exited; gdb sends no =breakpoint-deleted for it)."""
    qualified = len(session.inferiors) > 1 or session.inferior.number != 1
    for bp in session.breakpoints.sorted():
        if bp.thread == number and bp.inferior == session.inferior.number:
            thread = f"{bp.inferior}.{bp.thread}" if qualified else str(bp.thread)
            session.console_all(f"Thread-specific breakpoint {bp.number} deleted - thread {thread} "
                                "no longer in the thread list.\n")  # fmt: skip
            session.breakpoints.delete(bp)


__all__ = ["handle_event", "ARCH"]
