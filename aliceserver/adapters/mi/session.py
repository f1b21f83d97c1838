"""An MI session: its UIs, its state, one dispatcher for commands and engine events.

Everything that touches state runs on the dispatcher thread (the caller of `serve`):
reader threads queue input lines, a pump thread queues engine events, and the dispatcher
takes them in order. A command that sets the program running makes the dispatcher wait for
the engine's `Continued` (taking events, holding commands back) so that `^running` comes
after what the start produced (=thread-group-started, =library-loaded) exactly as in gdb.
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import aliceserver.debuggers.events as ev
from aliceserver.adapters.gdbcommands.selection import CommandMemory, Selection
from aliceserver.adapters.mi.breakpoints import BreakpointTable
from aliceserver.adapters.mi.displays import DisplayTable
from aliceserver.adapters.mi.frames import Frames, display_value
from aliceserver.adapters.mi.output import Value, c_string, record
from aliceserver.adapters.mi.parser import MiCommand, MiParseError, parse_line
from aliceserver.adapters.mi.pretty import pretty_text
from aliceserver.adapters.mi.registry import (
    EXIT,
    CliRegistry,
    Connected,
    Context,
    Exit,
    MiError,
    MiRegistry,
    Reply,
    Running,
)
from aliceserver.adapters.mi.run_redirects import split_command_line
from aliceserver.adapters.mi.settings import Settings
from aliceserver.adapters.mi.state import Inferior
from aliceserver.adapters.mi.ui import Ui
from aliceserver.adapters.mi.user_commands import UserCommands
from aliceserver.adapters.mi.varobj import VarobjStore
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.eventsource import Subscription
from aliceserver.debuggers.model import (
    DynamicTypes,
    ForkFollow,
    LaunchConfig,
    Redirection,
    StackFrame,
    StdioMode,
    StepKind,
    VariableInfo,
    VariableScope,
)
from aliceserver.errors import AliceError

logger = logging.getLogger(__name__)

_CONTINUE_PATIENCE = 10.0  # seconds to wait for the engine's Continued before giving up


@dataclass
class SessionConfig:
    program: str | None = None
    args: list[str] = field(default_factory=list)
    pid: int | None = None
    tty: str | None = None
    quiet: bool = False
    mi: bool = True
    mi_version: int = 4  # gdb 13's `-i=mi`
    # -fix-multi-location-breakpoint-output: MI 2 writes a breakpoint's locations as MI 3 does
    multi_location_fixed: bool = False
    # -fix-breakpoint-script-output: MI 2 and 3 write a breakpoint's script as MI 4 does
    script_fixed: bool = False
    before: list[str] = field(default_factory=list)  # -iex
    after: list[str] = field(default_factory=list)  # -ex
    cwd: str | None = None
    shell_enabled: bool = False
    batch: bool = False
    # The main UI is this process's own stdin/stdout (not a socket or a test's pipe): a
    # program with no tty of its own then writes to our stdout and stderr itself, as under gdb.
    own_stdio: bool = False


@dataclass
class StepRepeat:
    """`next 3`: the steps still to take before the stop is shown."""

    kind: StepKind
    remaining: int


@dataclass
class _Input:
    ui: Ui
    line: str | None  # None: the UI's input ended


@dataclass
class _Origin:
    """Who set the program running, to answer it and choose what the stop prints."""

    ui: Ui
    token: str
    cli: bool
    kind: str = "continue"  # continue, step, finish, until, run, jump
    announced: bool = False  # ^running was written
    answer: bool = True  # a start from the command line (-ex run) gets no ^running


class MiSession:
    def __init__(self, debugger: IDebugger, config: SessionConfig, main_ui: Ui) -> None:
        from aliceserver.adapters.mi import commands, console  # registries fill themselves

        self.debugger = debugger
        self.config = config
        self.main_ui = main_ui
        self.uis: list[Ui] = [main_ui]
        self.settings = Settings(mi_async=False)
        main_ui.cli_prompt = self._cli_prompt
        self.inferior = Inferior(program=config.program, args=list(config.args), tty=config.tty)
        self.inferior.cwd = config.cwd or os.getcwd()
        self.inferiors = [self.inferior]  # gdb's inferior list (see inferior_list)
        self.breakpoints = BreakpointTable(self)
        self.varobjs = VarobjStore(self)
        self.mi_commands = MiRegistry()
        self.cli_commands = CliRegistry()
        commands.register_all(self.mi_commands)
        console.register_all(self.cli_commands)
        self.exit_requested = False
        self.exit_code = 0
        self.origin: _Origin | None = None
        self.frames = Frames(self)
        self.step_repeat: StepRepeat | None = None
        # symbol loads under way (see notify): when each began, None once it is shown
        self.progress_shown: dict[str, float | None] = {}
        self._last_stop: tuple[str | None, int | None] | None = None
        self._line_starts: dict[tuple[str, int], set[int]] = {}
        self.displays = DisplayTable()
        self.list_state: tuple[str, int] | None = None
        self.command_memory = CommandMemory()  # what `x` and the other gdb commands remember
        self.user_commands = UserCommands()  # define, document, hooks
        self.registers_before: dict[str, int | bytes] | None = None  # at the previous stop
        self.registers_seen: dict[str, int | bytes] | None = None  # read at this stop
        # One queue of ours in arrival order: the engine's events, delivered into it by the
        # engine's own thread (a relay thread's handoff would delay every event), and the
        # UIs' lines put beside them.
        self._inbox: queue.Queue[_Input | ev.Event | str] = queue.Queue()
        self._events = self.subscribe_events()  # before the first run or attach
        self._held: deque[_Input] = deque()  # commands waiting for the program to stop
        self._awaiting: _Origin | None = None  # a start waiting for Continued
        self._prefetch: int | None = None  # a stopped thread whose locals to make when idle
        self._scripted = 0  # depth of command files and command-line commands being run
        self._readers: list[Ui] = []  # the UIs whose lines a reader thread queues

    # --- UIs ---------------------------------------------------------------------------
    def mi_uis(self) -> list[Ui]:
        return [ui for ui in self.uis if ui.is_mi and not ui.closed]

    def broadcast(self, line: str, except_ui: Ui | None = None) -> None:
        """An MI record for every MI channel."""
        for ui in self.mi_uis():
            if ui is not except_ui:
                ui.line(line)

    def notify(self, cls: str, pairs: Sequence[tuple[str, Value]] = ()) -> None:
        self.broadcast(record("=", cls, pairs))

    def notify_except(self, ctx: Context, cls: str, pairs: Sequence[tuple[str, Value]]) -> None:
        """A notification for the other channels, and for this one after a console command."""
        line = record("=", cls, pairs)
        self.broadcast(line, except_ui=None if ctx.cli else ctx.ui)

    def console_all(self, text: str, mi: bool = True, cli: bool = True) -> None:
        for ui in self.uis:
            if not ui.closed and ((ui.is_mi and mi) or (not ui.is_mi and cli)):
                ui.console(text)

    def program_output(self, text: str) -> None:
        # The inferior shares gdb's terminal when it has none of its own: its bytes go to
        # the main UI, between records.
        self.main_ui.raw(text)

    def _cli_prompt(self) -> str:
        return self.settings.get("prompt")

    def add_ui(self, ui: Ui) -> None:
        ui.cli_prompt = self._cli_prompt
        self.uis.append(ui)
        self.add_reader(ui)

    def add_reader(self, ui: Ui) -> None:
        self._readers.append(ui)
        threading.Thread(target=self.read_ui, args=(ui,), name=f"mi-ui-{ui.name}", daemon=True).start()

    def read_ui(self, ui: Ui) -> None:
        """Reader thread body: queue each line of `ui`, then its end."""
        while True:
            try:
                data = ui.transport.read_message()
            except AliceError as error:  # an over-long line: answer and go on
                self._inbox.put(_Input(ui, "\x00" + str(error)))
                continue
            if data is None:
                self._inbox.put(_Input(ui, None))
                return
            self._inbox.put(_Input(ui, data.decode("utf-8", "surrogateescape")))

    def request_interrupt(self) -> None:
        """From a signal handler (SIGINT): interrupt the program from the dispatcher."""
        threading.Thread(target=self._inbox.put, args=("interrupt",), daemon=True).start()

    # --- the dispatcher ----------------------------------------------------------------
    def serve(self) -> int:
        while not self.exit_requested:
            try:
                item = self._inbox.get(timeout=_CONTINUE_PATIENCE if self._awaiting else None)
            except queue.Empty:
                logger.warning("no Continued event from the engine; answering ^running anyway")
                self._announce_running()
                self._release_held()
                continue
            self._take(item)
        return self.exit_code

    def _take(self, item: _Input | ev.Event | str) -> None:
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

    def _take_held(self, item: _Input | ev.Event | str) -> None:
        if isinstance(item, str):
            if item == "interrupt" and self.inferior.running:
                self._guard(lambda: self.debugger.interrupt())
            return
        if isinstance(item, _Input):
            if self._must_hold(item):
                self._held.append(item)
            else:
                self._input(item)
            return
        self._guard(lambda: self.handle_event(item))
        self._release_held()

    def _must_hold(self, item: _Input) -> bool:
        if self._awaiting is not None or any(held.ui is item.ui for held in self._held):
            return True
        return self._ui_waits(item)

    def _ui_waits(self, item: _Input) -> bool:
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
                self._input(item)
                break
            else:
                return

    def wait_event(self, done: Callable[[ev.Event], bool]) -> bool:
        """Take events (holding input back) until one satisfies `done`; False on timeout."""
        while True:
            for ui in self.uis:
                ui.flush()  # what was said so far is seen while the program runs
            try:
                item = self._inbox.get(timeout=_CONTINUE_PATIENCE)
            except queue.Empty:
                return False
            if isinstance(item, _Input):
                self._held.append(item)
                continue
            if isinstance(item, str):
                if item == "interrupt" and self.inferior.running:  # Ctrl-C during `-ex run`
                    self._guard(self.debugger.interrupt)
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
        if not any(reader is ui for reader in self._readers):  # -ex, before the reader runs
            data = ui.transport.read_message()
            return None if data is None else data.decode("utf-8", "surrogateescape")
        for held in self._held:
            if held.ui is ui:
                self._held.remove(held)
                if held.line is None:
                    self._held.appendleft(held)  # the end is the session's to handle too
                return held.line
        while True:
            item = self._inbox.get()
            if isinstance(item, _Input):
                if item.ui is not ui or item.line is None:
                    self._held.append(item)
                if item.ui is ui:
                    return item.line
            elif isinstance(item, str):
                if item == "interrupt" and self.inferior.running:
                    self._guard(self.debugger.interrupt)
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
            threading.Thread(target=self.read_ui, args=(ui,), name=f"mi-ui-{ui.name}", daemon=True).start()

    def _guard(self, action: Callable[[], object]) -> None:
        try:
            action()
        except Exception:  # the session outlives any one failure
            logger.exception("internal error while handling an event")

    # --- input -------------------------------------------------------------------------
    def _input(self, item: _Input) -> None:
        ui = item.ui
        if item.line is None:
            self._ui_ended(ui)
            return
        if item.line.startswith("\x00"):
            ui.result("", "error", [("msg", item.line[1:])])
            self._prompt(ui)
            return
        self.execute_line(ui, item.line)

    def _ui_ended(self, ui: Ui) -> None:
        if ui is self.main_ui:
            if not ui.is_mi:
                ui.console("quit\n")
            self.exit_requested = True
            return
        ui.closed = True
        if ui in self.uis:
            self.uis.remove(ui)

    def execute_line(self, ui: Ui, line: str, *, echo: bool = True) -> None:
        line = line.rstrip("\r\n")
        if not ui.is_mi:
            self._execute_cli_ui(ui, line)
            return
        try:
            parsed = parse_line(line)
        except MiParseError as error:
            ui.result(error.token, "error", [("msg", str(error))])
            ui.prompt()
            return
        if isinstance(parsed, MiCommand):
            self._execute_mi(ui, parsed)
        else:
            if echo:
                ui.log(parsed.text + "\n")
            ctx = Context(self, ui, parsed.token, None, cli=True)
            self._finish(ctx, lambda: self.run_cli(ctx, parsed.text))

    def _execute_cli_ui(self, ui: Ui, line: str) -> None:
        ctx = Context(self, ui, "", None, cli=True)
        try:
            reply = self.run_cli(ctx, line)
        except AliceError as error:
            ui.log(_sentence(str(error)) + "\n")
            reply = None
        except Exception as error:  # noqa: BLE001 - never die on input
            logger.exception("internal error in %r", line)
            ui.log(f"Internal error: {error}\n")
            reply = None
        if isinstance(reply, Exit):
            self.exit_requested = True
            return
        if isinstance(reply, Running):
            self._start_awaiting(ctx)
            ui.pending_prompt = True
            return
        if not self.exit_requested:
            ui.prompt()

    def _execute_mi(self, ui: Ui, command: MiCommand) -> None:
        ctx = Context(self, ui, command.token, command, thread=command.thread, frame=command.frame)
        handler = self.mi_commands.get(command.name)
        if handler is None:
            ui.result(
                command.token,
                "error",
                [("msg", f"Undefined MI command: {command.name}"), ("code", "undefined-command")],
            )
            ui.prompt()
            return
        self._finish(ctx, lambda: handler(ctx, list(command.args)))

    def _finish(self, ctx: Context, run: Callable[[], Reply]) -> None:
        ui = ctx.ui
        try:
            reply = run()
        except MiError as error:
            self._error(ctx, str(error), error.code)
            return
        except AliceError as error:
            self._error(ctx, _sentence(str(error)))
            return
        except Exception as error:  # noqa: BLE001 - never die on input
            logger.exception("internal error")
            self._error(ctx, f"Internal error: {error}")
            return
        if isinstance(reply, Exit):
            ui.result(ctx.token, "exit")
            self.exit_requested = True
            return
        if isinstance(reply, Running):
            self._start_awaiting(ctx)
            return
        if isinstance(reply, Connected):
            ui.result(ctx.token, "connected", reply.pairs)
            self._prompt(ui)
            return
        ui.result(ctx.token, "done", reply or [])
        self._prompt(ui)

    def _error(self, ctx: Context, message: str, code: str | None = None) -> None:
        if ctx.cli:
            ctx.ui.log(message + "\n")
        pairs: list[tuple[str, Value]] = [("msg", message)]
        if code:
            pairs.append(("code", code))
        ctx.ui.result(ctx.token, "error", pairs)
        self._prompt(ctx.ui)

    def _prompt(self, ui: Ui) -> None:
        if not self.exit_requested:
            ui.prompt()

    def run_cli(self, ctx: Context, text: str) -> Reply:
        from aliceserver.adapters.mi.console import run_console_command

        return run_console_command(ctx, text)

    # --- running -----------------------------------------------------------------------
    def _start_awaiting(self, ctx: Context) -> None:
        kind = ctx.extra.get("kind", "continue")
        self.origin = _Origin(ctx.ui, ctx.token, ctx.cli, kind)
        self._awaiting = self.origin
        # The engine may have queued its Continued already: take events up to it now.

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

    def locked_thread(self) -> int | None:
        """The thread a continue resumes alone (gdb's scheduler-locking on), else None."""
        return self.inferior.selected_tid if self.settings.get("scheduler-locking") == "on" else None

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

    def after_stop(self, prompt_cli: bool = True) -> None:
        """Prompts after *stopped: every MI channel in sync mode, the console that waited.
        The stop's breakpoint commands run before them."""
        self._run_breakpoint_commands()
        if not self.settings.mi_async and not self._scripted:
            for ui in self.mi_uis():
                ui.prompt()
        for ui in self.uis:
            if not ui.is_mi and ui.pending_prompt and not ui.closed:
                ui.pending_prompt = False
                if prompt_cli:
                    ui.prompt()
        self.origin = None

    def _run_breakpoint_commands(self) -> None:
        """gdb's bpstat_do_actions after a stop the user waited for; a command file or the
        command line runs them itself once its command returns (scripts.py)."""
        if self._scripted or not self.command_memory.actions:
            return
        from aliceserver.adapters.mi.breakpoint_commands import run_actions

        ui = self.origin.ui if self.origin is not None else next((ui for ui in self.uis if not ui.closed), None)
        if ui is None:
            return
        try:
            run_actions(Context(self, ui, "", None, cli=True, from_tty=False))
        except AliceError as error:  # gdb's error ends the lists
            self.command_memory.actions = []
            ui.log(_sentence(str(error)) + "\n")

    def handle_event(self, event: ev.Event) -> None:
        from aliceserver.adapters.mi.dprintf import printed_and_resumed
        from aliceserver.adapters.mi.inferior_list import as_current, engine_inferior
        from aliceserver.adapters.mi.notify import handle_event

        owner = engine_inferior(self)  # the engine's events are about its inferior
        if owner is not self.inferior and not isinstance(event, (ev.Stopped, ev.Exited)):
            with as_current(self, owner):  # the user's selection stays
                handle_event(self, event)
            return
        self.inferior = owner  # a stop makes its inferior the current one, as in gdb
        if isinstance(event, (ev.Stopped, ev.Exited)):  # stopped or gone: no gate runs now
            self.breakpoints.take_unseen_hits()
        if isinstance(event, ev.Stopped) and printed_and_resumed(self, event):
            return  # only dprintfs were hit: they printed, and the program goes on
        handle_event(self, event)
        if isinstance(event, ev.Stopped) and not self.inferior.running:
            self._prefetch = event.thread_id

    def _prefetch_locals(self) -> None:
        """After a stop is written, while the client reads it: make the stopped frame's
        locals (what Emacs and most MI clients ask for next), unless input already waits.
        The engine keeps them for the stop, so the request is answered at once."""
        tid, self._prefetch = self._prefetch, None
        if tid is None or not self._inbox.empty() or self.inferior.running:
            return
        try:
            self.debugger.frame_variables(tid, 0, VariableScope.LOCALS, aggregate_values=False)
        except AliceError as error:
            logger.debug("prefetching the locals: %s", error)

    # --- state helpers for the commands ----------------------------------------------------
    def ensure_symbols(self) -> None:
        """Before the program runs, hold a copy of it at its first instruction so that
        locations, expressions on globals and disassembly work as in gdb after `file`."""
        inferior = self.inferior
        if inferior.process is not None or inferior.probe_pid is not None or not inferior.program:
            return
        if self.debugger.process is not None:
            return
        try:
            info = self.debugger.launch(LaunchConfig(inferior.program, cwd=inferior.cwd, symbols_only=True))
        except AliceError as error:
            logger.info("cannot load %s for its symbols: %s", inferior.program, error)
            return
        inferior.probe_pid = info.pid

    def has_symbols(self) -> bool:
        return self.inferior.process is not None or self.inferior.probe_pid is not None

    def drop_probe(self) -> None:
        """End the symbol probe before a real start (its events are swallowed)."""
        inferior = self.inferior
        if inferior.probe_pid is None or inferior.process is not None:
            return
        try:
            self.debugger.kill()
        except AliceError:
            inferior.probe_pid = None
            return
        self.wait_event(lambda event: inferior.probe_pid is None)
        inferior.probe_pid = None

    def launch_config(self) -> LaunchConfig:
        inferior = self.inferior
        assert inferior.program is not None
        env: dict[str, str] | None = None
        if inferior.env:
            env = dict(os.environ)
            for key, value in inferior.env.items():
                if value is None:
                    env.pop(key, None)
                else:
                    env[key] = value
        tty = inferior.tty
        args, redirections = tuple(inferior.args), tuple[Redirection, ...]()
        if inferior.args_text is not None:  # typed: what gdb's startup shell would see
            line = split_command_line(inferior.args_text, shell=self.settings.get("startup-with-shell") == "on")
            args, redirections = tuple(line.args), tuple(line.redirections)
        disable_aslr = self.settings.get("disable-randomization") == "on"
        follow = ForkFollow.CHILD if self.settings.get("follow-fork-mode") == "child" else ForkFollow.PARENT
        if tty:
            return LaunchConfig(inferior.program, args, inferior.cwd, env, StdioMode.TTY, tty,
                                disable_aslr=disable_aslr, follow_fork=follow, redirections=redirections)
        mode = StdioMode.PIPES
        if self.config.own_stdio:  # gdb -batch reads no command from stdin: the program may
            mode = StdioMode.INHERIT if self.config.batch else StdioMode.INHERIT_OUTPUT
        return LaunchConfig(inferior.program, args, inferior.cwd, env, mode, disable_aslr=disable_aslr,
                            follow_fork=follow, redirections=redirections)

    def before_resume(self) -> None:
        """Write out what the UIs hold: the running program writes to the same stdout, after."""
        for ui in self.uis:
            ui.flush()

    def require_process(self) -> None:
        if self.inferior.process is None:
            raise MiError("The program is not being run.")

    def require_stopped(self, no_process: str = "No registers.") -> int:
        """The selected thread's tid, with the program stopped (gdb's errors otherwise:
        `no_process` is the command's own when there is no program, `No stack.` for bt)."""
        if self.inferior.process is None or self.inferior.selected_tid is None:
            raise MiError(no_process)
        if self.inferior.running:
            raise MiError("Cannot execute this command while the selected thread is running.")
        return self.inferior.selected_tid

    def thread_arg(self, number: int | None) -> int:
        """The tid of `--thread N` (or the selected thread)."""
        if number is None:
            return self.require_stopped()
        tid = self.inferior.tid_of(number)
        if tid is None:
            raise MiError(f"Invalid thread id: {number}")
        if self.inferior.running:
            raise MiError("Cannot execute this command while the selected thread is running.")
        return tid

    def selected_frame(self, no_process: str = "No registers.") -> tuple[int, int]:
        return self.require_stopped(no_process), self.inferior.selected_level

    def console_selection(self) -> Selection:
        """Where gdb's console commands work: the selected frame of a stopped program, else
        no frame (they answer from the symbols alone, or with gdb's error)."""
        inferior = self.inferior
        if inferior.process is None or inferior.running or inferior.selected_tid is None:
            return Selection(None)
        return Selection(*self.selected_frame())

    def context_frame(self, thread: int | None, frame: int | None) -> tuple[int, int]:
        tid = self.thread_arg(thread)
        level = frame if frame is not None else (
            self.inferior.selected_level if tid == self.inferior.selected_tid else 0)
        return tid, level

    def display(self, info: VariableInfo) -> str:
        """A value as MI shows it (-data-evaluate-expression, a returned value), laid out
        as `print pretty` says."""
        if self.settings.get("print pretty") == "on" and not info.error:
            return pretty_text(display_value(info), info.type)
        return display_value(info)

    def dynamic_types(self, shown: DynamicTypes = DynamicTypes.NONE) -> DynamicTypes:
        """With `print object on`, `shown` and gdb's `->` through the dynamic type; with
        it off, static types everywhere."""
        if self.settings.get("print object") != "on":
            return DynamicTypes.NONE
        return shown | DynamicTypes.MEMBERS

    def evaluate(self, expression: str, fmt: str | None = None, tid: int | None = None,
                 level: int | None = None, shown: DynamicTypes = DynamicTypes.NONE,
                 type_only: bool = False, record: bool = False) -> VariableInfo:
        """`shown`: what shows its dynamic type with print object on (`->` always does);
        `type_only`: whatis and ptype, `record`: print's value history (see IDebugger.evaluate)."""
        inferior = self.inferior
        if tid is None and inferior.process is not None and not inferior.running:
            tid = inferior.selected_tid
            level = inferior.selected_level if level is None else level
        if tid is None:
            self.ensure_symbols()
            if not self.has_symbols() and inferior.program:  # no file: the engine's literals and $ values
                raise MiError(f'No symbol "{expression.strip()}" in current context.'
                              if expression.strip().isidentifier() else "No symbol table is loaded.  Use the \"file\" command.")
        try:
            return self.debugger.evaluate(expression, tid, level or 0, fmt, dynamic=self.dynamic_types(shown),
                                          type_only=type_only, calls=tid is not None, record=record)  # fmt: skip
        except AliceError as error:
            if str(error).endswith(ev.CALL_LEFT_STOPPED):
                # A call stopped in the program (a breakpoint, a signal): gdb shows that stop
                # before the error. The engine queued it before raising.
                self.wait_event(lambda event: isinstance(event, ev.Stopped))
            raise

    def evaluate_display(self, expression: str, fmt: str | None = None) -> str:
        return display_value(self.evaluate(expression, fmt))

    def current_source(self) -> str | None:
        inferior = self.inferior
        if inferior.process is not None and not inferior.running and inferior.selected_tid is not None:
            try:
                frame = self.frames.frame(inferior.selected_tid, inferior.selected_level)
                if frame.source is not None:
                    return frame.source.path
            except AliceError:
                pass
        self.ensure_symbols()
        if self.has_symbols():
            for place in self.debugger.resolve_location("main"):
                if place.source is not None:
                    return place.source.path
        return None

    def remember_stop(self, frame: StackFrame | None) -> None:
        self._last_stop = None if frame is None else (frame.function, frame.cfa)
        self.registers_before, self.registers_seen = self.registers_seen, None

    def same_function(self, frame: StackFrame | None) -> bool:
        return frame is not None and self._last_stop == (frame.function, frame.cfa)

    def at_line_start(self, frame: StackFrame) -> bool:
        if frame.source is None or not frame.source.line:
            return False
        key = (frame.source.path, frame.source.line)
        if key not in self._line_starts:
            try:
                places = self.debugger.resolve_location(f"{key[0]}:{key[1]}")
            except AliceError:
                places = []
            self._line_starts[key] = {p.address for p in places if p.requested_line in (None, key[1])}
        if frame.pc in self._line_starts[key]:
            return True
        # gdb's sal.pc is the start of the line table row: a line may have several (a crash
        # at `*p = 1` stops where the store's row starts, which gdb shows without its pc).
        try:
            before = self.debugger.source_position(frame.pc - 1)
        except AliceError:
            return False
        return before != frame.source

    def subscribe_events(self) -> Subscription | None:
        """The engine's events into our inbox (None: they come some other way)."""
        return self.debugger.subscribe(into=self._inbox)

    # --- the end -----------------------------------------------------------------------
    def close(self) -> None:
        try:
            self.debugger.close()
        except AliceError as error:
            logger.info("closing the debugger: %s", error)
        if self._events is not None:
            self._events.close()
        for ui in self.uis:
            if ui is not self.main_ui:
                ui.close()

    def exit(self) -> Exit:
        return EXIT

    def quote(self, text: str) -> str:
        return c_string(text)


def _sentence(message: str) -> str:
    return message.rstrip("\n")
