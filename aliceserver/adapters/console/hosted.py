"""One gdb console over a debugger that another front end drives (DAP, the agent).

The console is the MI session's own (its command registry, breakpoint table, settings,
displays, value history), run on a session whose inbox is private: the host's loop reads
the engine's events and hands each one on (`observe`, or `post` then `drain`), so the
console never takes an event its host waits for. The host runs the program: the console
never starts, probes or resumes it itself (`command_name` lets the host route those
commands through its own execution path).
"""

from __future__ import annotations

import queue
import re
from collections.abc import Callable
from dataclasses import dataclass

import aliceserver.debuggers.events as ev
from aliceserver.adapters.mi.registry import RUNNING, Context, MiError
from aliceserver.adapters.mi.session import MiSession, SessionConfig
from aliceserver.adapters.mi.ui import Ui
from aliceserver.debuggers.base import IDebugger
from aliceserver.errors import AliceError, ProtocolError

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

    def __init__(self, debugger: IDebugger, program: str | None, capture: _Capture) -> None:
        super().__init__(
            debugger,
            SessionConfig(program=program, quiet=True, mi=False),
            Ui(capture, mi=False, name="console"),
        )
        # Never the engine's queue (MiSession shares it): the host's loop reads that one.
        self._inbox = queue.Queue()

    def ensure_symbols(self) -> None:
        """The host starts the program; a probe of our own would be its process too."""

    def wait_event(self, done: Callable[[ev.Event], bool]) -> bool:
        """Events reach this session through its host, after the command: nothing to wait for."""
        return False


@dataclass(frozen=True, slots=True)
class Hit:
    """The console's breakpoints a stop hit, in gdb's words (`Breakpoint 2`)."""

    numbers: tuple[int, ...]
    words: str


class HostedConsole:
    def __init__(self, debugger: IDebugger, program: str | None = None) -> None:
        self._capture = _Capture()
        process = debugger.process
        self.session = _HostedSession(
            debugger, program or (process.program if process else None), self._capture
        )
        self._events: queue.Queue[ev.Event] = queue.Queue()
        self.resumed = False  # a run command typed here: the next stop is shown here too
        self.last_hit: Hit | None = None  # the console's breakpoints the latest stop hit
        self.stop_text = ""  # what the console showed for the latest stop it was asked to
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
            inferior.running = debugger.is_running()
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
        if isinstance(event, ev.Stopped | ev.Exited):
            self._given = None  # the host's next frame is the stop's
        # before the stop is applied: it deletes the temporary breakpoints it hit
        self.last_hit = self.hit(event) if isinstance(event, ev.Stopped) else None
        try:
            self.session.handle_event(event)
        except AliceError:
            pass  # the host reports the stop; the console's view of it may be partial
        shown = self._capture.take()
        if isinstance(event, ev.Exited):
            self.resumed = False
            return ""
        if isinstance(event, ev.Stopped):
            resumed, self.resumed = self.resumed, False
            self.stop_text = shown.lstrip("\n") if resumed or self.last_hit is not None else ""
            return self.stop_text
        return ""

    def hit(self, stop: ev.Stopped) -> Hit | None:
        """The console's breakpoints (not the host's) that `stop` hit."""
        if stop.reason is not ev.StopReason.BREAKPOINT or not stop.breakpoint_ids:
            return None
        found = self.session.breakpoints.for_address_ids(stop.breakpoint_ids)
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

    def run(self, line: str, resumes: bool = False) -> str:
        """Run one console line; what it printed. A failure is a ConsoleError. A run
        command runs only when the host says so (`resumes`: it is inside the host's own
        resuming path, which tells its client the program runs)."""
        self.drain()
        name = self.command_name(line)
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
        self._capture.take()
        ctx = Context(self.session, self.session.main_ui, cli=True)
        try:
            reply = self.session.run_cli(ctx, line)
        except AliceError as error:
            raise ConsoleError(self._capture.take(), str(error).rstrip("\n")) from None
        if reply is RUNNING:  # its stop is this command's (until's location, finish's value)
            self.session.start_silently(ctx)
            self.resumed = True
        return self._capture.take()
