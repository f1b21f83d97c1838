"""One DAP session: read requests, dispatch them through the registry, answer, and turn the
debugger's events into DAP events.

Two threads per session: the reader (the caller of `run`) handles requests one at a time;
the pump turns engine events into DAP events. Both hold `lock` while they work, so an event
is never sent between a request's handling and its response (a `breakpoint` event never
precedes the `setBreakpoints` reply that names its id).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from aliceserver import affinity
from aliceserver.adapters.dap.breakpoints import BreakpointBook
from aliceserver.adapters.dap.events import EventTranslator
from aliceserver.adapters.dap.handles import Handles
from aliceserver.adapters.dap.messages import (
    BadMessage,
    ErrorId,
    JsonObject,
    Request,
    as_request,
    decode,
    encode,
    error_body,
    error_id_of,
)
from aliceserver.adapters.dap.registry import Registry
from aliceserver.adapters.dap.state import SessionState
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.events import Event
from aliceserver.errors import AliceError
from aliceserver.transports.base import Transport, TransportClosed

if TYPE_CHECKING:  # made by the first repl command (repl.py), with MI's command language
    from aliceserver.adapters.console.hosted import HostedConsole

log = logging.getLogger(__name__)

DebuggerFactory = Callable[[], IDebugger]
ResponseCallback = Callable[[JsonObject], None]


class DapSession:
    def __init__(self, transport: Transport, debugger: IDebugger, registry: Registry) -> None:
        self.transport = transport
        self.debugger = debugger
        self.registry = registry
        self.state = SessionState()
        self.handles = Handles()
        self.breakpoints = BreakpointBook()
        self.translator = EventTranslator(self)
        self.console: HostedConsole | None = None  # gdb's console, made by the first repl command
        self.lock = threading.RLock()
        self.ending = False  # set by disconnect: stop reading after this response
        self.on_end: list[Callable[[], None]] = []  # cleanups (terminal relays...)
        self._seq = 0
        self._send_lock = threading.Lock()
        self._after: list[Callable[[], None]] = []
        self._reverse: dict[int, ResponseCallback] = {}
        # Before any launch or attach: every event of the program is ours.
        self._events = debugger.subscribe()
        self._pump = threading.Thread(target=self._pump_events, name="dap-events", daemon=True)

    # --- the reader -----------------------------------------------------------------
    def run(self) -> None:
        """Serve until the client disconnects or its stream ends; then end the debuggee."""
        # This session's threads (this reader, the event pump, the engine's tracer, all
        # started from here) share one CPU: see aliceserver.affinity.
        affinity.pin_current_thread(affinity.session_cpu())
        self._pump.start()
        try:
            while not self.ending:
                try:
                    data = self.transport.read_message()
                except AliceError as error:  # a framing error: answered, then go on
                    self._reply_error(0, "", ErrorId.BAD_REQUEST, str(error), show_user=False)
                    continue
                if data is None:
                    log.info("the client closed the connection")
                    break
                try:
                    self.handle_message(data)
                except Exception as error:  # a bug outside any handler: answer, go on
                    log.exception("handling a message")
                    text = f"internal error: {error!r} (the server log has the details)"
                    self._reply_error(0, "", ErrorId.INTERNAL, text, show_user=False)
        finally:
            self.shutdown()

    def handle_message(self, data: bytes) -> None:
        try:
            message = decode(data)
            kind = message.get("type")
            if kind == "response":
                self._on_reverse_response(message)
                return
            if kind == "event":
                return  # clients send none; nothing to do with one
            if kind not in ("request", None):
                raise BadMessage(f"unknown message type {kind!r}", 0, "")
            request = as_request(message)
        except BadMessage as error:
            self._reply_error(error.seq, error.command, error.error_id, str(error), show_user=False)
            return
        self.dispatch(request)

    def dispatch(self, request: Request) -> None:
        route = self.registry.get(request.command)
        if route is None:
            text = f"unrecognised request '{request.command}'"
            self._reply_error(
                request.seq, request.command, ErrorId.UNKNOWN_COMMAND, text, show_user=False
            )
            return
        with self.lock:
            self._after = []
            try:
                body = route.handler(self, request.arguments)
            except AliceError as error:
                log.info("%s failed: %s", request.command, error)
                self._reply_error(
                    request.seq,
                    request.command,
                    error_id_of(error),
                    str(error),
                    show_user=route.show_user,
                )
            except Exception as error:
                log.exception("internal error in %s", request.command)
                text = f"internal error in {request.command}: {error!r} (the server log has the details)"
                self._reply_error(
                    request.seq, request.command, ErrorId.INTERNAL, text, show_user=True
                )
            else:
                response: JsonObject = {
                    "type": "response", "request_seq": request.seq, "success": True,
                    "command": request.command,
                }  # fmt: skip
                if body is not None:
                    response["body"] = body
                self.send(response)
            after, self._after = self._after, []
            for action in after:
                try:
                    action()
                except Exception:
                    log.exception("after %s", request.command)

    def after_response(self, action: Callable[[], None]) -> None:
        """Run `action` once the current request's response is sent (still under the lock)."""
        self._after.append(action)

    # --- sending --------------------------------------------------------------------
    def send(self, message: JsonObject) -> None:
        with self._send_lock:
            self._seq += 1
            message["seq"] = self._seq
            data = encode(message)
            try:
                self.transport.write_message(data)
            except TransportClosed:
                log.info("client gone; dropped %s", message.get("command") or message.get("event"))
                self.ending = True

    def send_event(self, event: str, body: JsonObject | None = None) -> None:
        if self.state.quiet:
            return
        message: JsonObject = {"type": "event", "event": event}
        if body is not None:
            message["body"] = body
        self.send(message)

    def send_request(
        self, command: str, arguments: JsonObject, on_response: ResponseCallback
    ) -> None:
        """A reverse request (runInTerminal); `on_response` runs on the reader thread."""
        message: JsonObject = {"type": "request", "command": command, "arguments": arguments}
        with self._send_lock:
            seq = self._seq + 1
            self._reverse[seq] = on_response
        self.send(message)

    def _on_reverse_response(self, message: JsonObject) -> None:
        seq = message.get("request_seq")
        callback = self._reverse.pop(seq, None) if isinstance(seq, int) else None
        if callback is None:
            log.warning("a response to no request of ours: %s", message.get("command"))
            return
        with self.lock:
            try:
                callback(message)
            except Exception:
                log.exception("handling the response to %s", message.get("command"))

    def _reply_error(
        self, seq: int, command: str, error_id: int, text: str, *, show_user: bool
    ) -> None:
        self.send({
            "type": "response", "request_seq": seq, "success": False, "command": command,
            "message": text, "body": error_body(error_id, text, show_user=show_user),
        })  # fmt: skip

    # --- execution bookkeeping --------------------------------------------------------
    @contextlib.contextmanager
    def resuming(self) -> Iterator[None]:
        """Around an engine call that resumes: its Continued event is implied by our
        response (the spec: no `continued` event for that), and every handle goes stale."""
        self.state.expected_continues += 1
        try:
            yield
        except BaseException:
            self.state.expected_continues -= 1
            raise
        self.handles.clear()
        self.state.forget_stop()

    # --- events ---------------------------------------------------------------------
    def _pump_events(self) -> None:
        for event in self._events:  # until shutdown closes the subscription
            with self.lock:
                shown = self._console_sees(event)
                try:
                    if self.console is not None and self.console.passed_through:
                        self.console.passed_through = False
                        self.state.expected_continues += 1  # nor its resumption
                    else:
                        self.translator.handle(event)
                except Exception:
                    log.exception("translating %r", event)
                if shown:  # a stop the console asked for, or at its breakpoint: as gdb shows it
                    self.send_event("output", {"category": "console", "output": shown})

    def _console_sees(self, event: Event) -> str:
        """The console's view of the program follows every event (before the DAP event,
        whose description may name the console's breakpoint)."""
        if self.console is None:
            return ""
        try:
            return self.console.observe(event)
        except Exception:
            log.exception("the console on %r", event)
            return ""

    def shutdown(self) -> None:
        """The session is over: end (kill or detach) the debuggee, stop the pump."""
        self.ending = True
        self.state.quiet = True
        try:
            self.debugger.close()
        except Exception:
            log.exception("closing the debugger")
        for cleanup in self.on_end:
            try:
                cleanup()
            except Exception:
                log.exception("session cleanup")
        self._events.close()  # the pump reads what the engine said before, then ends
        if self._pump.is_alive() and self._pump is not threading.current_thread():
            self._pump.join(timeout=10)
        self.transport.close()
