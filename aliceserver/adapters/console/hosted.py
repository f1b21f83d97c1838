"""One gdb console over a debugger that another front end drives (DAP, the agent).

The console is the MI session's own (its command registry, breakpoint table, settings,
displays, value history), run on a session that subscribes to no events: the host's loop
reads its own subscription and hands each event on (`observe`, or `post` then `drain`), so
the console sees each event in the host's order, before the host reports it. The host
runs the program: the console never starts, probes or resumes it itself (`command_name`
lets the host route those commands through its own execution path).
"""

from __future__ import annotations

import queue
import re
from collections.abc import Callable
from dataclasses import dataclass

import aliceserver.debuggers.events as ev
from aliceserver.adapters.console.host_breakpoints import BreakpointHost, HostedTable, HostEntry
from aliceserver.adapters.mi.control_commands import run_commands
from aliceserver.adapters.mi.registry import RUNNING, Context, MiError
from aliceserver.adapters.mi.session import MiSession, SessionConfig
from aliceserver.adapters.mi.ui import Ui
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.errors import AliceError, ProtocolError
from aliceserver.session.breakpoints import BreakpointNumbers

# The commands that set the program going: the host runs them its own way.
RUN_CONTROL = frozenset({
    "run", "start", "continue", "next", "step", "finish", "until", "advance", "jump",
    "stepi", "nexti", "kill", "detach", "attach", "interrupt", "signal", "queue-signal", "starti",
    "reverse-continue", "reverse-next", "reverse-step", "reverse-finish",
})  # fmt: skip
# Run commands the console runs itself inside its host's resuming path: they act on the
# console's selected frame and print gdb's lines (Run till exit from #1 ..., Continuing at).
CONSOLE_RUNS = frozenset({"finish", "until", "advance", "jump"})
# The session's own life: its host owns it (the client's restart, disconnect, launch).
HOST_OWNED = frozenset({"quit", "file", "exec-file", "tty", "new-ui", "target", "core-file"})
_WORD = re.compile(r"([A-Za-z_][\w-]*|[!|])(.*)", re.S)


class ConsoleError(ProtocolError):
    """A command failed: what it printed before the error, then gdb's message."""

    def __init__(self, shown: str, message: str) -> None:
        super().__init__(shown + message)
        self.shown = shown
        self.message = message


class _Capture:
    """The console UI's transport: what the commands print, kept until taken."""

    def __init__(self) -> None:
        self._parts: list[str] = []

    def read_message(self) -> bytes | None:
        return None

    def write_message(self, data: bytes) -> None:
        self._parts.append(data.decode("utf-8", "surrogateescape"))

    def close(self) -> None:
        return None

    def take(self) -> str:
        text, self._parts = "".join(self._parts), []
        return text


class _HostedSession(MiSession):
    """An MI session with no channel of its own and an inbox only its host fills."""

    def __init__(
        self, debugger: IDebugger, program: str | None, capture: _Capture, numbers: BreakpointNumbers
    ) -> None:
        super().__init__(
            debugger,
            SessionConfig(program=program, quiet=True, mi=False),
            Ui(capture, mi=False, name="console"),
        )
        self.resumed_itself = False
        # with its host's breakpoints, numbered in the host's count
        self.breakpoints: HostedTable = HostedTable(self, numbers=numbers)

    def subscribe_events(self) -> Subscription | None:
        """None: the host reads the engine's events and hands them on (`observe`)."""
        return None

    def ensure_symbols(self) -> None:
        """The host starts the program; a probe of our own would be its process too."""

    def before_resume(self) -> None:
        self.resumed_itself = True  # a dprintf's stop: it printed, and the program goes on
        super().before_resume()

    def wait_event(self, done: Callable[[ev.Event], bool]) -> bool:
        """Events reach this session through its host, after the command: nothing to wait for."""
        return False


@dataclass(frozen=True, slots=True)
class Hit:
    """The console's breakpoints a stop hit, in gdb's words (`Breakpoint 2`)."""

    numbers: tuple[int, ...]
    words: str


class HostedConsole:
    def __init__(
        self, debugger: IDebugger, program: str | None = None, numbers: BreakpointNumbers | None = None
    ) -> None:
        """`numbers`: the host's breakpoint numbering, which the console's breakpoints share."""
        self._capture = _Capture()
        process = debugger.process
        self.session = _HostedSession(
            debugger, program or (process.program if process else None), self._capture,
            numbers if numbers is not None else BreakpointNumbers(),
        )
        self._events: queue.Queue[ev.Event] = queue.Queue()
        self.resumed = False  # a run command typed here: the next stop is shown here too
        self.last_hit: Hit | None = None  # the console's breakpoints the latest stop hit
        self.stop_text = ""  # what the console showed for the latest stop it was asked to
        # The latest stop was only at dprintfs: they printed and the program went on, so
        # the host tells its client of neither the stop nor the resumption.
        self.passed_through = False
        self._restarted_pid: int | None = None  # a new process already set up (`restarted`)
        self._given: tuple[int, int] | None = None  # the host's frame last applied
        self._sync()

    def _sync(self) -> None:
        """Take over what the engine knows now (the console may start mid-session)."""
        debugger, inferior = self.session.debugger, self.session.inferior
        process = debugger.process
        if process is None:
            return
        inferior.process = process
        try:
            tids = sorted(t.tid for t in debugger.threads())
            inferior.libraries = [m for m in debugger.modules() if not m.is_main]
            if debugger.is_running():
                inferior.run.begin_run()
        except AliceError:
            tids = []
        for tid in [process.pid, *tids]:  # the process's own thread is gdb's thread 1
            inferior.add_thread(tid)
        inferior.reported_tid = inferior.selected_tid
        self.session.breakpoints.refresh()

    # --- events -------------------------------------------------------------------------
    def post(self, event: ev.Event) -> None:
        """From any thread: an event the host read, applied by the next `drain`."""
        self._events.put(event)

    def drain(self) -> str:
        """Apply the events posted so far (the caller holds the host's lock)."""
        shown: list[str] = []
        while True:
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                return "".join(shown)
            shown.append(self.observe(event))

    def observe(self, event: ev.Event) -> str:
        """Apply one event as the MI session does; what the console would print for a stop
        (gdb's `Breakpoint 2, main () at prog.c:12` and its line)."""
        if isinstance(event, (ev.Output, ev.Progress)):
            return ""  # the host shows the program's output and its loads itself
        self._capture.take()
        if isinstance(event, ev.Stopped):
            self.session.breakpoints.sync()  # a stop at the host's breakpoint runs its commands
        if isinstance(event, ev.Stopped | ev.Exited):
            self._given = None  # the host's next frame is the stop's
        # before the stop is applied: it deletes the temporary breakpoints it hit
        self.last_hit = self.hit(event) if isinstance(event, ev.Stopped) else None
        printing = isinstance(event, ev.Stopped) and self._only_dprintfs(event)
        scripted = isinstance(event, ev.Stopped) and self._has_commands(event)  # the client's too
        self.session.resumed_itself = False
        try:
            self.session.handle_event(event)
        except AliceError:
            pass  # the host reports the stop; the console's view of it may be partial
        self.passed_through = printing and self.session.resumed_itself
        if isinstance(event, ev.ProcessStarted) and not event.attached and event.pid != self._restarted_pid:
            self._restarted()
        shown = self._capture.take()
        if isinstance(event, ev.Exited):
            self.resumed = False
            return ""
        if isinstance(event, ev.Stopped):
            resumed, self.resumed = self.resumed, False
            shows = resumed or self.last_hit is not None or scripted
            self.stop_text = shown.lstrip("\n") if shows else ""
            return self.stop_text
        return ""

    def _has_commands(self, stop: ev.Stopped) -> bool:
        if stop.reason is not ev.StopReason.BREAKPOINT or not stop.breakpoint_ids:
            return False
        lists = self.session.command_memory.breakpoint_commands
        return any(lists.get(bp.number) for bp in self.session.breakpoints.for_address_ids(stop.breakpoint_ids))

    def _only_dprintfs(self, stop: ev.Stopped) -> bool:
        if stop.reason is not ev.StopReason.BREAKPOINT or not stop.breakpoint_ids:
            return False
        hit = self.session.breakpoints.for_address_ids(stop.breakpoint_ids)
        return bool(hit) and all(bp.dprintf is not None for bp in hit)

    def restarted(self, pid: int) -> None:
        """The host started process `pid` (its restart) and holds it stopped: set the
        breakpoints now, before it runs (its ProcessStarted, read later, is then known)."""
        self._restarted_pid = pid
        self._restarted()

    def _restarted(self) -> None:
        """The host started the program again (its restart): as gdb's `run`, the console's
        breakpoints are set afresh in the new process, their hit counts cleared."""
        self.session.breakpoints.rearm_missing()

    def rebind(self, debugger: IDebugger) -> None:
        """Carry the console (its breakpoints, settings, displays) over to the debugger of
        a restarted session (the agent's restart makes a new one), as gdb's `run` keeps them."""
        self._events = queue.Queue()  # the old process's events: over
        self.session.debugger = debugger
        self.session.breakpoints.forget_engine()
        self.session.inferior.forget_process()
        self._given = None
        self._sync()
        self._restarted()

    def attach_host(self, host: BreakpointHost) -> None:
        """The host's breakpoints join the console's table and numbering."""
        self.session.breakpoints.host = host
        self.session.breakpoints.sync()

    def hit(self, stop: ev.Stopped) -> Hit | None:
        """The console's breakpoints (not the host's) that `stop` hit."""
        if stop.reason is not ev.StopReason.BREAKPOINT or not stop.breakpoint_ids:
            return None
        found = [
            bp for bp in self.session.breakpoints.for_address_ids(stop.breakpoint_ids)
            if not isinstance(bp, HostEntry)
        ]  # fmt: skip
        if not found:
            return None
        first = found[0]
        return Hit(
            tuple(bp.number for bp in found),
            f"{'Temporary breakpoint' if first.temporary else 'Breakpoint'} {first.number}",
        )

    # --- the selected frame -------------------------------------------------------------
    def select(self, tid: int | None, level: int, always: bool = False) -> None:
        """The host's frame for the next command: applied when it differs from the one it
        gave before (or `always`), so that `up` then `p x` keep the frame `up` chose."""
        inferior = self.session.inferior
        if tid is None or tid not in inferior.threads or ((tid, level) == self._given and not always):
            return
        self._given = (tid, level)
        inferior.selected_tid, inferior.selected_level = tid, level

    def selection(self) -> tuple[int | None, int]:
        inferior = self.session.inferior
        return inferior.selected_tid, inferior.selected_level

    # --- commands -----------------------------------------------------------------------
    def command_name(self, text: str) -> str | None:
        """The full name of the gdb command `text` starts with (gdb's lookup: names,
        aliases, unique prefixes), None when its first word names none."""
        match = _WORD.match(text.strip())
        if match is None:
            return None
        try:
            found = self.session.cli_commands.lookup(match.group(1))
        except MiError:  # ambiguous
            return None
        return found[0] if found is not None else None

    def _top_level(self, lines: list[str]) -> list[str | None]:
        """The commands of `lines` that run now (not those of a `commands` block)."""
        found: list[str | None] = []
        listing = False
        for text in lines:
            name = self.command_name(text)
            if listing:
                listing = text.strip() != "end"
                continue
            listing = name == "commands"
            found.append(name)
        return found

    def _allowed(self, name: str | None, resumes: bool) -> None:
        if name in HOST_OWNED:
            raise ConsoleError(
                "",
                f'"{name}" is not available in this debug console: the client starts and ends the session.',
            )
        if name in RUN_CONTROL and not (resumes and name in CONSOLE_RUNS):
            raise ConsoleError(
                "",
                f'"{name}" is not available in this debug console: use the debugger\'s own controls.',
            )

    def run(self, line: str, resumes: bool = False) -> str:
        """Run one console line; what it printed. A failure is a ConsoleError. A run
        command runs only when the host says so (`resumes`: it is inside the host's own
        resuming path, which tells its client the program runs)."""
        self.drain()
        lines = line.strip("\n").splitlines() or [""]
        name = self.command_name(lines[0])
        for command in self._top_level(lines):
            self._allowed(command, resumes and len(lines) == 1)
        self._capture.take()
        ctx = Context(self.session, self.session.main_ui, cli=True)
        table = self.session.breakpoints
        table.sync()
        try:
            if name == "ignore":  # it sets the count on the entry: refused first for the host's
                number = line.split()[1] if len(line.split()) > 1 else ""
                if number.isdigit() and int(number) in table.entries:
                    table.refuse_host(table.entries[int(number)], "set its ignore count")
            if len(lines) > 1:  # typed as one input (a `commands` block, say): as gdb reads a list
                reply = run_commands(ctx, lines, breakpoint_list=False)
            else:
                reply = self.session.run_cli(ctx, line)
        except AliceError as error:
            raise ConsoleError(self._capture.take(), str(error).rstrip("\n")) from None
        if reply is RUNNING:  # its stop is this command's (until's location, finish's value)
            self.session.start_silently(ctx)
            self.resumed = True
        return self._capture.take()
