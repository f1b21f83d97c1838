"""Engine events -> DAP events, in one table (`EventTranslator.handle`)."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import aliceserver.debuggers.events as ev
from aliceserver.adapters.dap.messages import JsonObject
from aliceserver.adapters.dap.shapes import module_json

if TYPE_CHECKING:
    from aliceserver.adapters.dap.session import DapSession

log = logging.getLogger(__name__)

# The DAP `reason` of each engine stop (breakpoint kinds are refined by the hit's owner).
STOP_REASONS: dict[ev.StopReason, str] = {
    ev.StopReason.BREAKPOINT: "breakpoint",
    ev.StopReason.STEP: "step",
    ev.StopReason.FUNCTION_FINISHED: "step",
    ev.StopReason.WATCHPOINT: "data breakpoint",
    ev.StopReason.WATCHPOINT_SCOPE: "data breakpoint",  # one was removed: its frame returned
    ev.StopReason.SIGNAL: "exception",
    ev.StopReason.CRASH: "exception",
    ev.StopReason.EXCEPTION: "exception",
    ev.StopReason.EXEC: "exception",
    ev.StopReason.FORK: "exception",
    ev.StopReason.VFORK: "exception",  # the fork filter catches both
    ev.StopReason.PAUSE: "pause",
    ev.StopReason.ENTRY: "entry",
}

_EXCEPTION_REASONS = frozenset(r for r, name in STOP_REASONS.items() if name == "exception")


def exception_id(stop: ev.Stopped) -> str:
    if stop.signal_name:
        return stop.signal_name
    return {
        ev.StopReason.EXEC: "exec",
        ev.StopReason.FORK: "fork",
        ev.StopReason.VFORK: "vfork",
        ev.StopReason.EXCEPTION: "exception",
    }.get(stop.reason, stop.reason.value)


def stop_description(stop: ev.Stopped) -> str:
    if stop.description:
        return stop.description
    if stop.signal_name:
        return f"Signal {stop.signal_name}"
    return {
        ev.StopReason.BREAKPOINT: "Breakpoint",
        ev.StopReason.WATCHPOINT: "Data breakpoint",
        ev.StopReason.STEP: "Step",
        ev.StopReason.FUNCTION_FINISHED: "Returned",
        ev.StopReason.PAUSE: "Paused",
        ev.StopReason.ENTRY: "Entry point",
    }.get(stop.reason, stop.reason.value)


class EventTranslator:
    def __init__(self, session: DapSession) -> None:
        self.session = session
        self._table: dict[type, Callable[[Any], None]] = {
            ev.Stopped: self._stopped,
            ev.Continued: self._continued,
            ev.Exited: self._exited,
            ev.ProcessStarted: self._process,
            ev.Output: lambda e: self._output(e.category, e.text),
            ev.ThreadStarted: lambda e: self._thread("started", e.thread_id),
            ev.ThreadExited: lambda e: self._thread("exited", e.thread_id),
            ev.ModuleLoaded: lambda e: self._module("new", e),
            ev.ModuleUnloaded: lambda e: self._module("removed", e),
            ev.BreakpointChanged: self._breakpoint_changed,
            ev.LocationBreakpointChanged: self._location_changed,
            ev.Progress: self._progress,
        }

    def handle(self, event: ev.Event) -> None:
        action = self._table.get(type(event))
        if action is None:
            log.debug("no DAP event for %r", event)
            return
        action(event)

    def _send(self, name: str, body: JsonObject | None = None) -> None:
        self.session.send_event(name, body)

    # --- execution --------------------------------------------------------------------
    def _stopped(self, stop: ev.Stopped) -> None:
        state = self.session.state
        if state.swallow_attach_stop and stop.reason is ev.StopReason.PAUSE:
            state.swallow_attach_stop = False  # the stop that ends attach: reported at start
            return
        if state.pausing and stop.signal_name == "SIGINT":  # a stub's answer to our ^C
            stop = dataclasses.replace(stop, reason=ev.StopReason.PAUSE, signal=None, signal_name=None, description="")
        state.pausing = False
        state.last_stop[stop.thread_id] = stop
        if stop.return_value is not None:
            state.return_value[stop.thread_id] = stop.return_value
        reason = STOP_REASONS.get(stop.reason, "pause")
        body: JsonObject = {
            "reason": reason,
            "threadId": stop.thread_id,
            "allThreadsStopped": stop.all_threads,
            "description": stop_description(stop),
        }
        if stop.watches_left:
            self._watches_left(stop, body)
        if stop.breakpoint_ids and stop.reason is not ev.StopReason.WATCHPOINT_SCOPE:
            ids, kind = self.session.breakpoints.hit(stop.breakpoint_ids, stop.reason)
            if ids:
                body["hitBreakpointIds"] = ids
                if kind is not None and stop.reason is ev.StopReason.BREAKPOINT:
                    body["reason"] = kind
            console = self.session.console
            if not ids and console is not None and console.last_hit is not None:
                body["description"] = console.last_hit.words  # set in the debug console
        if stop.reason in _EXCEPTION_REASONS:
            body["text"] = exception_id(stop)
        self._send("stopped", body)

    def _continued(self, event: ev.Continued) -> None:
        session = self.session
        session.handles.clear()
        session.state.forget_stop()
        if session.state.expected_continues > 0:
            session.state.expected_continues -= 1
            return  # implied by the response of the request that resumed
        thread = event.thread_id
        if thread is None:
            process = session.debugger.process
            thread = process.pid if process is not None else 0
        self._send("continued", {"threadId": thread, "allThreadsContinued": event.all_threads})

    def _exited(self, event: ev.Exited) -> None:
        state = self.session.state
        if state.suppress_exit_of == event.pid:
            state.suppress_exit_of = None  # restart killed it: the session goes on
            return
        if event.code is None and event.signal is None:  # a stub went away: no exit to tell
            self._output("important", f"{event.signal_name or 'The program is gone'}.\n")
            self.session.handles.clear()
            state.forget_stop()
            if not state.ended:
                state.ended = True
                self._send("terminated")
            return
        code = event.code if event.code is not None else 128 + (event.signal or 0)
        if event.signal is not None:
            self._output(
                "console", f"Program terminated with signal {event.signal_name or event.signal}.\n"
            )
        else:
            self._output("console", f"Program exited with code {event.code}.\n")
        self._send("exited", {"exitCode": code})
        self.session.handles.clear()
        state.forget_stop()
        if not state.ended:
            state.ended = True
            self._send("terminated")

    def _process(self, event: ev.ProcessStarted) -> None:
        remote = self.session.state.behind_stub  # a stub holds it: we attach to the stub
        self._send("process", {
            "name": event.program, "systemProcessId": event.pid, "isLocalProcess": not remote,
            "startMethod": "attach" if event.attached or remote else "launch", "pointerSize": 64,
        })  # fmt: skip

    def _output(self, category: str, text: str) -> None:
        if text:  # the engine's warnings (gdb's, "warning: " and all) are console text
            self._send("output", {"category": "console" if category == "warning" else category, "output": text})

    def _thread(self, reason: str, thread_id: int) -> None:
        self._send("thread", {"reason": reason, "threadId": thread_id})

    def _module(self, reason: str, event: ev.ModuleLoaded | ev.ModuleUnloaded) -> None:
        self._send("module", {"reason": reason, "module": module_json(event.module)})

    # --- breakpoints --------------------------------------------------------------------
    def _watches_left(self, stop: ev.Stopped, body: JsonObject) -> None:
        """Data breakpoints whose frame returned: removed (VS Code takes them out of its
        list), said on the console in gdb's words, and the stop tells why it happened."""
        gone = self.session.breakpoints.drop_watches(stop.watches_left)
        for bp in gone:
            self._send("breakpoint", {"reason": "removed", "breakpoint": {"id": bp.dap_id, "verified": False}})
            self._output(
                "console", f"Data breakpoint {bp.dap_id} deleted because the program has left the block "
                "in which its expression is valid.\n",
            )  # fmt: skip
        if gone and stop.reason is ev.StopReason.WATCHPOINT_SCOPE:
            numbers = ", ".join(str(bp.dap_id) for bp in gone)
            body["description"] = f"Data breakpoint {numbers} removed: the program left the block in which its expression is valid"

    def _breakpoint_changed(self, event: ev.BreakpointChanged) -> None:
        body = self.session.breakpoints.address_changed(
            self.session, event.breakpoint, event.removed
        )
        if body is not None:
            self._send("breakpoint", {"reason": "changed", "breakpoint": body})

    def _location_changed(self, event: ev.LocationBreakpointChanged) -> None:
        body = self.session.breakpoints.location_changed(self.session, event.breakpoint)
        if body is not None:
            self._send("breakpoint", {"reason": "changed", "breakpoint": body})

    # --- progress -------------------------------------------------------------------------
    def _progress(self, event: ev.Progress) -> None:
        state = self.session.state
        if not state.client.progress:
            return
        started = event.ident in state.progress_started
        if event.done:
            if started:
                state.progress_started.discard(event.ident)
                self._send("progressEnd", {"progressId": event.ident, "message": event.message})
            return
        body: JsonObject = {"progressId": event.ident}
        if event.message:
            body["message"] = event.message
        if event.percent is not None:
            body["percentage"] = event.percent
        if not started:
            state.progress_started.add(event.ident)
            self._send("progressStart", {"title": event.title, **body})
        else:
            self._send("progressUpdate", body)
