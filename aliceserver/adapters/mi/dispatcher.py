"""The MI session's dispatcher: one thread takes the UIs' lines and the engine's events.

Everything that touches state runs on the dispatcher thread (the caller of `serve`):
reader threads queue input lines (the main MI channel's pipe is read by the dispatcher
itself, select()ing on it and on the inbox's wake-up pipe), the engine queues its events,
and the dispatcher takes them in order. A command that sets the program running makes the dispatcher wait for
the engine's `Continued` (taking events, holding commands back) so that `^running` comes
after what the start produced (=thread-group-started, =library-loaded) exactly as in gdb.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import select
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import aliceserver.debuggers.events as ev
from aliceserver.adapters.mi.output import record
from aliceserver.adapters.mi.settings import Settings
from aliceserver.adapters.mi.state import Inferior
from aliceserver.adapters.mi.ui import Ui
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import VariableScope
from aliceserver.debuggers.target_queries import TerminalInterrupts
from aliceserver.errors import AliceError
from aliceserver.transports.stdio import LineTransport

if TYPE_CHECKING:
    from aliceserver.adapters.mi.registry import Context

logger = logging.getLogger(__name__)

_CONTINUE_PATIENCE = 10.0  # seconds to wait for the engine's Continued before giving up


@dataclass
class UiInput:
    """A line a UI sent, in the inbox."""

    ui: Ui
    line: str | None  # None: the UI's input ended


class _Inbox:
    """The dispatcher's queue; a put from another thread also wakes the dispatcher when it
    sleeps in select() on its main UI's input (which it reads itself, see _Direct)."""

    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[UiInput | ev.Event | str] = queue.SimpleQueue()
        self.get = self._queue.get
        self.get_nowait = self._queue.get_nowait
        self.empty = self._queue.empty
        self.qsize = self._queue.qsize
        self.sleeping = False  # set before the queue is looked at for the last time
        self.wake_fd = self._wake_write = -1

    def open_wake(self) -> None:
        """The pipe that wakes select(): one for the process's own stdin, kept to its end."""
        self.wake_fd, self._wake_write = os.pipe()
        os.set_blocking(self.wake_fd, False)
        os.set_blocking(self._wake_write, False)

    def put(self, item: UiInput | ev.Event | str) -> None:
        self._queue.put(item)
        if self.sleeping:
            try:
                os.write(self._wake_write, b"!")
            except BlockingIOError:  # full: a wake-up is pending already
                pass

    def drain(self) -> None:
        """One read: what is left over wakes the next select() at once, to be read then."""
        try:
            os.read(self.wake_fd, 512)
        except BlockingIOError:
            pass


@dataclass
class _Direct:
    """The main MI channel's input, a pipe or file read on the dispatcher's own thread: a
    command line reaches it without a reader thread's handoff (one thread woken, not two)."""

    ui: Ui
    transport: LineTransport
    fd: int


@dataclass
class _Origin:
    """Who set the program running, to answer it and choose what the stop prints."""

    ui: Ui
    token: str
    cli: bool
    kind: str = "continue"  # continue, step, finish, until, run, jump
    announced: bool = False  # ^running was written
    answer: bool = True  # a start from the command line (-ex run) gets no ^running


class Dispatcher:
    """The inbox, the commands held while the program runs, and the start that waits for
    its Continued. The session above it sets the shared state declared here, runs the
    commands (`_input`) and handles the events (`handle_event`)."""

    uis: list[Ui]
    main_ui: Ui
    inferior: Inferior
    settings: Settings
    debugger: IDebugger

    def __init__(self) -> None:
        self.exit_requested = False
        self.exit_code = 0
        self.origin: _Origin | None = None
        # One queue of ours in arrival order: the engine's events, delivered into it by the
        # engine's own thread (a relay thread's handoff would delay every event), and the
        # UIs' lines put beside them. A SimpleQueue: its get and put are one C call each,
        # where a Queue's take a Condition's several locks in Python (3 items a step).
        self._inbox = _Inbox()
        self._direct: _Direct | None = None  # the main UI's input, read on this thread
        self._held: deque[UiInput] = deque()  # commands waiting for the program to stop
        self._awaiting: _Origin | None = None  # a start waiting for Continued
        self._prefetch: int | None = None  # a stopped thread whose locals to make when idle
        self.locals_listed = True  # the client listed a frame's locals since the last prefetch
        self._scripted = 0  # depth of command files and command-line commands being run
        self._readers: list[Ui] = []  # the UIs whose lines a reader thread queues
        self._busy = True  # a command runs (the command line's, until serve)

    def _input(self, item: UiInput) -> None:
        raise NotImplementedError

    def handle_event(self, event: ev.Event) -> None:
        raise NotImplementedError

    def subscribe_events(self) -> Subscription | None:
        """The engine's events into our inbox (None: they come some other way)."""
        subscription = self.debugger.subscribe(into=self._inbox)
        subscription.confirms_output = True  # the program may write on our UIs' terminal
        return subscription

    # --- UIs ---------------------------------------------------------------------------
    def mi_uis(self) -> list[Ui]:
        return [ui for ui in self.uis if ui.is_mi and not ui.closed]

    def broadcast(self, line: str, except_ui: Ui | None = None) -> None:
        """An MI record for every MI channel."""
        for ui in self.mi_uis():
            if ui is not except_ui:
                ui.line(line)

    def add_reader(self, ui: Ui) -> None:
        transport = ui.transport
        if self._direct is None and ui.is_mi and isinstance(transport, LineTransport) and not transport.is_terminal():
            fd = transport.fileno()
            if fd is not None:
                self._direct = _Direct(ui, transport, fd)
                self._inbox.open_wake()
                return
        self._readers.append(ui)
        self._start_reader(ui)

    def _start_reader(self, ui: Ui) -> None:
        threading.Thread(target=self.read_ui, args=(ui,), name=f"mi-ui-{ui.name}", daemon=True).start()

    def read_ui(self, ui: Ui) -> None:
        """Reader thread body: queue each line of `ui`, then its end."""
        while True:
            try:
                data = ui.transport.read_message()
            except AliceError as error:  # an over-long line: answer and go on
                self._inbox.put(UiInput(ui, "\x00" + str(error)))
                continue
            if data is None:
                self._inbox.put(UiInput(ui, None))
                return
            self._inbox.put(UiInput(ui, data.decode("utf-8", "surrogateescape")))

    def request_interrupt(self) -> None:
        """From a signal handler (SIGINT, on the dispatcher's thread): interrupt the
        program from the dispatcher; "at-prompt": no command was running then."""
        item = "interrupt" if self._busy else "at-prompt"
        threading.Thread(target=self._inbox.put, args=(item,), daemon=True).start()

    def _signalled(self, item: str) -> None:
        """What request_interrupt queued: interrupt the program if it still runs."""
        if self.inferior.running:
            self._guard(self.debugger.interrupt)
            return
        # The terminal's ^C reached the stopped program too where it is in our process
        # group (our stdin is no terminal; on one it has its own: foreground.py)
        debugger = self.debugger
        if isinstance(debugger, TerminalInterrupts):
            self._guard(debugger.drop_terminal_interrupt)
        if item == "at-prompt" and not self.exit_requested:
            self.main_ui.log("Quit\n")  # gdb's, for a ^C at its prompt
            self.main_ui.prompt()

    # --- the dispatcher ----------------------------------------------------------------
    def serve(self) -> int:
        self._busy = False
        while not self.exit_requested:
            try:
                awaiting = self._awaiting is not None  # input would be held: left unread
                item = self._next(_CONTINUE_PATIENCE if awaiting else None, read_input=not awaiting)
            except queue.Empty:
                logger.warning("no Continued event from the engine; answering ^running anyway")
                self._announce_running()
                self._release_held()
                continue
            self._take(item)
        return self.exit_code

    def _next(self, timeout: float | None = None, read_input: bool = True) -> UiInput | ev.Event | str:
        """The next item: queued, or a line of the main UI read here (`read_input`); with
        `timeout`, queue.Empty after it (then nothing is read here)."""
        direct = self._direct
        if direct is None or not read_input:
            return self._inbox.get(timeout=timeout)
        inbox = self._inbox
        readable = False
        while True:
            if not inbox.empty():  # (only this thread takes from it)
                return inbox.get_nowait()
            if direct.transport.ready(readable):
                return self._read_direct(direct)
            inbox.sleeping = True
            try:
                if not inbox.empty():
                    continue
                ready, _, _ = select.select([direct.fd, inbox.wake_fd], [], [])
            finally:
                inbox.sleeping = False
            if inbox.wake_fd in ready:
                inbox.drain()
            readable = direct.fd in ready

    def _read_direct(self, direct: _Direct) -> UiInput:
        """The main UI's next line, which is there (as read_ui would queue it)."""
        try:
            data = direct.transport.read_message()
        except AliceError as error:  # an over-long line: answer and go on
            return UiInput(direct.ui, "\x00" + str(error))
        if data is None:
            self._direct = None  # its end: read no more
            return UiInput(direct.ui, None)
        return UiInput(direct.ui, data.decode("utf-8", "surrogateescape"))

    def _take(self, item: UiInput | ev.Event | str) -> None:
        held = [ui for ui in self.uis if not ui.closed]
        for ui in held:
            ui.hold()
        try:
            self._take_held(item)
            self._release_held()  # lines held while a command waited for its own events
        finally:
            for ui in held:
                ui.release()
        if self._prefetch is not None:
            self._prefetch_locals()

    def _take_held(self, item: UiInput | ev.Event | str) -> None:
        if isinstance(item, str):
            self._signalled(item)
            return
        if isinstance(item, UiInput):
            if self._must_hold(item):
                self._held.append(item)
            else:
                self._command(item)
            return
        self._guard(lambda: self.handle_event(item))
        self._release_held()

    def _command(self, item: UiInput) -> None:
        busy, self._busy = self._busy, True
        try:
            self._input(item)
        finally:
            self._busy = busy

    def _must_hold(self, item: UiInput) -> bool:
        if self._awaiting is not None or any(held.ui is item.ui for held in self._held):
            return True
        return self._ui_waits(item)

    def _ui_waits(self, item: UiInput) -> bool:
        """Whether `item`'s UI reads nothing yet: only the UI of a synchronous run waits
        for its end, as in gdb, where another UI's commands (`interrupt`) still run."""
        if not item.ui.is_mi and item.ui.pending_prompt and self.inferior.running:
            return True  # a console waits for the end of its own `run`/`continue`
        # Without mi-async, gdb reads no MI command while the program runs (sync mode).
        return (
            item.ui.is_mi
            and not self.settings.mi_async
            and self.inferior.running
            and self.origin is not None
            and self.origin.ui is item.ui
            and item.line is not None
            and not item.line.lstrip("0123456789").startswith("-exec-interrupt")
        )

    def _release_held(self) -> None:
        """Run the held commands whose UI reads again, each UI's in their order."""
        while not self.exit_requested and self._awaiting is None:
            waiting: list[Ui] = []
            for item in self._held:
                if any(ui is item.ui for ui in waiting):
                    continue
                if self._ui_waits(item):
                    waiting.append(item.ui)
                    continue
                self._held.remove(item)
                self._command(item)
                break
            else:
                return

    def take_queued_events(self) -> None:
        """The engine's events queued by now, handled before the next command-line command
        runs (a stub's loss that a `bt` ran into, told as gdb tells it at once)."""
        while True:
            try:
                item = self._inbox.get_nowait()
            except queue.Empty:
                return
            if isinstance(item, UiInput):
                self._held.append(item)
            elif not isinstance(item, str):
                self._guard(functools.partial(self.handle_event, item))

    def wait_event(self, done: Callable[[ev.Event], bool]) -> bool:
        """Take events (holding input back) until one satisfies `done`; False on timeout."""
        while True:
            for ui in self.uis:
                ui.flush()  # what was said so far is seen while the program runs
            try:
                item = self._inbox.get(timeout=_CONTINUE_PATIENCE)
            except queue.Empty:
                return False
            if isinstance(item, UiInput):
                self._held.append(item)
                continue
            if isinstance(item, str):
                self._signalled(item)  # Ctrl-C during `-ex run`
                continue
            self._guard(functools.partial(self.handle_event, item))
            if done(item):
                return True

    def read_more(self, ui: Ui) -> str | None:
        """The next line of `ui` for a command that reads its own (`commands`, `if`,
        `while`), as gdb reads them from its input: what other UIs send meanwhile is held,
        the engine's events handled. None: the input ended."""
        for each in self.uis:
            each.flush()  # its prompt is seen before the line is waited for
        direct = self._direct is not None and self._direct.ui is ui
        if not direct and not any(reader is ui for reader in self._readers):  # -ex, before the reader runs
            data = ui.transport.read_message()
            return None if data is None else data.decode("utf-8", "surrogateescape")
        for held in self._held:
            if held.ui is ui:
                self._held.remove(held)
                if held.line is None:
                    self._held.appendleft(held)  # the end is the session's to handle too
                return held.line
        while True:
            item = self._next() if direct else self._inbox.get()
            if isinstance(item, UiInput):
                if item.ui is not ui or item.line is None:
                    self._held.append(item)
                if item.ui is ui:
                    return item.line
            elif isinstance(item, str):
                self._signalled(item)
            else:
                self._guard(functools.partial(self.handle_event, item))

    def read_on_after_end(self, ui: Ui) -> None:
        """The end of a terminal's input (Ctrl-D) was the answer to a question: as in gdb,
        it ends nothing, and the UI is read on."""
        for held in self._held:
            if held.ui is ui and held.line is None:
                self._held.remove(held)
                break
        if any(reader is ui for reader in self._readers):  # its reader thread has ended
            self._start_reader(ui)

    def _guard(self, action: Callable[[], object]) -> None:
        try:
            action()
        except Exception:  # the session outlives any one failure
            logger.exception("internal error while handling an event")

    def _prompt(self, ui: Ui) -> None:
        if not self.exit_requested:
            ui.prompt()

    # --- running -----------------------------------------------------------------------
    def _start_awaiting(self, ctx: Context) -> None:
        kind = ctx.extra.get("kind", "continue")
        self.origin = _Origin(ctx.ui, ctx.token, ctx.cli, kind)
        self._awaiting = self.origin
        # The engine may have queued its Continued already: take events up to it now.

    def report_held_stop(self, thread_id: int, address: int) -> None:
        """A start that runs nothing (`starti`): its Continued and its stop at the first
        instruction, queued behind the command's reply as the engine's own would be."""
        self._inbox.put(ev.Continued(None, all_threads=True))
        self._inbox.put(ev.Stopped(ev.StopReason.ENTRY, thread_id, address=address))

    def start_silently(self, ctx: Context) -> None:
        """A start by a command-line command (-ex run): *running, but no ^running."""
        self._start_awaiting(ctx)
        if self.origin is not None:
            self.origin.answer = False

    def run_to_stop(self, ctx: Context) -> None:
        """A start by a command file or the command line (`-ex run`, `source`): no ^running
        and no prompts for it, and its stop (or the program's end) is taken before the next
        command runs, as gdb does."""
        self.start_silently(ctx)
        self._scripted += 1
        try:
            while self._awaiting is not None or self.inferior.running:
                if self.exit_requested:
                    return
                if not self.wait_event(lambda event: self._awaiting is None and not self.inferior.running):
                    if self._awaiting is not None:  # no Continued came: as serve() does
                        logger.warning("no Continued event from the engine; going on")
                        self._announce_running()
        finally:
            self._scripted -= 1

    def _announce_running(self, alone: int | None = None) -> None:
        threads = "all" if alone is None else str(alone)
        origin, self._awaiting = self._awaiting, None
        if origin is not None and not origin.announced:
            origin.announced = True
            answer = origin.ui.is_mi and origin.answer
            if answer:
                origin.ui.result(origin.token, "running")
            self.broadcast(record("*", "running", [("thread-id", threads)]))
            if answer:
                self._prompt(origin.ui)
        elif not self.inferior.running:
            self.broadcast(record("*", "running", [("thread-id", threads)]))

    def on_continued(self, alone: int | None = None) -> None:
        """The engine resumed the program (an event); `alone`: the one thread it resumed
        under scheduler-locking, gdb's *running thread-id."""
        if self._awaiting is not None or not self.inferior.running:
            self._announce_running(alone)
        self.inferior.run.begin_run()

    def on_stopped_or_exited(self) -> None:
        """Before a stop is written: answer a start that never saw its Continued."""
        if self._awaiting is not None:
            self._announce_running()

    def resume_failed(self) -> tuple[Ui, str | None, bool] | None:
        """The start in flight, whose resume failed (the stub's link broke first): its ui,
        the token to answer its error with (None: a start from the command line, never
        answered) and whether it was a console command; announced as running first, as
        gdb writes ^running before its resume fails."""
        origin = self.origin
        if origin is None:
            return None
        self.on_stopped_or_exited()
        return origin.ui, origin.token if origin.answer else None, origin.cli

    # --- idle ------------------------------------------------------------------------
    def _input_waits(self) -> bool:
        """Whether the main UI's input, read on this thread, has a line or more waiting."""
        direct = self._direct
        if direct is None:
            return False
        return direct.transport.ready(False) or bool(select.select([direct.fd], [], [], 0)[0])

    def _prefetch_locals(self) -> None:
        """After a stop is written, while the client reads it: make the stopped frame's
        locals (what Emacs and most MI clients ask for next, if it did at the stop before),
        unless input already waits.
        The engine keeps them for the stop, so the request is answered at once."""
        tid, self._prefetch = self._prefetch, None
        if tid is None:
            return
        # only for a client that lists them at each stop: one stepping with no locals shown
        # waits for them on its next step (CPU the client and the stub share)
        listed, self.locals_listed = self.locals_listed, False
        if not listed or not self._inbox.empty() or self._input_waits() or self.inferior.running:
            return
        try:
            self.debugger.frame_variables(tid, 0, VariableScope.LOCALS, aggregate_values=False)
        except AliceError as error:
            logger.debug("prefetching the locals: %s", error)
