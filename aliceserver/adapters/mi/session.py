"""An MI session: its UIs, its state, and the commands it runs on its dispatcher.

The layers under it: dispatcher.py (the one thread that takes lines and events in
order, and a start's wait for its Continued), program_queries.py (what commands ask of the
program: symbols, launch, the selected frame, evaluation).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import aliceserver.debuggers.events as ev
from aliceserver.adapters.gdbcommands.selection import CommandMemory
from aliceserver.adapters.mi.breakpoints import BreakpointTable
from aliceserver.adapters.mi.command_history import CommandHistory
from aliceserver.adapters.mi.dispatcher import UiInput
from aliceserver.adapters.mi.displays import DisplayTable
from aliceserver.adapters.mi.frames import Frames
from aliceserver.adapters.mi.output import Value, c_string, record
from aliceserver.adapters.mi.parser import MiCommand, MiParseError, parse_line
from aliceserver.adapters.mi.program_queries import ProgramQueries
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
from aliceserver.adapters.mi.repeat import CommandRepeat
from aliceserver.adapters.mi.screen_env import host_environment
from aliceserver.adapters.mi.settings import Settings
from aliceserver.adapters.mi.skips import SkipList
from aliceserver.adapters.mi.state import Inferior
from aliceserver.adapters.mi.ui import Ui
from aliceserver.adapters.mi.user_commands import UserCommands
from aliceserver.adapters.mi.varobj import VarobjStore
from aliceserver.debuggers.base import IDebugger
from aliceserver.debuggers.model import SignalPolicy, StepKind
from aliceserver.errors import AliceError

logger = logging.getLogger(__name__)


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


class MiSession(ProgramQueries):
    def __init__(self, debugger: IDebugger, config: SessionConfig, main_ui: Ui) -> None:
        from aliceserver.adapters.mi import commands, console  # registries fill themselves

        super().__init__()
        self.debugger = debugger
        self.config = config
        self.main_ui = main_ui
        self.uis: list[Ui] = [main_ui]
        self.settings = Settings(mi_async=False, batch=config.batch)
        main_ui.cli_prompt = self._cli_prompt
        self.inferior = Inferior(program=config.program, args=list(config.args), tty=config.tty)
        self.inferior.cwd = config.cwd or os.getcwd()
        self.host_env = host_environment(os.environ)  # gdb's own, LINES and COLUMNS set (screen_env)
        self.inferiors = [self.inferior]  # gdb's inferior list (see inferior_list)
        self.highest_inferior = 1  # gdb's highest_inferior_num: a removed one's number is not reused
        self.breakpoints = BreakpointTable(self)
        self.varobjs = VarobjStore(self)
        self.mi_commands = MiRegistry()
        self.cli_commands = CliRegistry()
        commands.register_all(self.mi_commands)
        console.register_all(self.cli_commands)
        self.frames = Frames(self)
        self.step_repeat: StepRepeat | None = None
        # symbol loads under way (see notify): when each began, None once it is shown
        self.progress_shown: dict[str, float | None] = {}
        self.displays = DisplayTable()
        self.command_memory = CommandMemory()  # what `x` and the other gdb commands remember
        self.repeat = CommandRepeat()  # what a console's empty line runs again
        debugger.set_default_source(self._listed_source)
        self.history = CommandHistory()  # the lines typed at a terminal (show commands, history save)
        self.user_commands = UserCommands()  # define, document, hooks
        self.skips = SkipList()  # gdb's skip list (skips.py)
        self.foreign_signals: dict[str, SignalPolicy] = {}  # `handle` of SIGEMT and others Linux has not
        self.exit_context: Context | None = None  # the command that ended the session (close)
        self._events = self.subscribe_events()  # before the first run or attach

    def _listed_source(self) -> str | None:
        """gdb's current source file: the one a stop or `list` last showed."""
        listed = self.command_memory.listed
        return listed[0] if listed is not None else None

    # --- UIs ---------------------------------------------------------------------------
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

    # --- input -------------------------------------------------------------------------
    def _input(self, item: UiInput) -> None:
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
            if not ui.is_mi:  # gdb: readline prints `quit` at a terminal's end of input, and
                if ui.reads_terminal():  # the command runs (its query for a live program)
                    ui.console("quit\n")
                self._execute_cli_ui(ui, "quit")
            self.exit_requested = True
            return
        ui.closed = True
        if ui in self.uis:
            self.uis.remove(ui)

    def execute_line(self, ui: Ui, line: str, *, echo: bool = True) -> None:
        line = line.rstrip("\r\n")
        if not ui.is_mi:
            if ui is self.main_ui:
                line = self.history.typed(line, self.settings, ui.console)
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
        line = self.repeat.line_to_run(line)
        succeeded = False
        try:
            reply = self.run_cli(ctx, line)
            succeeded = True
        except AliceError as error:
            ui.log(_sentence(str(error)) + "\n")
            reply = None
        except Exception as error:  # noqa: BLE001 - never die on input
            logger.exception("internal error in %r", line)
            ui.log(f"Internal error: {error}\n")
            reply = None
        finally:
            self.repeat.after(self.cli_commands, line, succeeded)
        if isinstance(reply, Exit):
            self.exit_requested, self.exit_context = True, ctx
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
        self._finish(ctx, lambda: _with_options_checked(ctx, lambda: handler(ctx, list(command.args))))

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
            if not ctx.cli:  # gdb's `quit` ends the process with no result record
                ui.result(ctx.token, "exit")
            self.exit_requested, self.exit_context = True, ctx
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

    def run_cli(self, ctx: Context, text: str) -> Reply:
        from aliceserver.adapters.mi.console import run_console_command

        return run_console_command(ctx, text)

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
        try:
            self._handle_event(event)
        finally:
            if isinstance(event, ev.Output) and event.written is not None:
                for ui in self.uis:
                    ui.flush()  # out before the engine lets the program write more
                event.written.done()

    def _handle_event(self, event: ev.Event) -> None:
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

    # --- the end -----------------------------------------------------------------------
    def close(self) -> None:
        from aliceserver.adapters.mi.console_exec import end_program

        if self.exit_requested:  # (not at SIGTERM: from another thread, events unread)
            ending = self.exit_context or Context(self, self.main_ui, cli=True, from_tty=False)
            end_program(replace(ending, from_tty=ending.cli and ending.from_tty))  # -gdb-exit: not a person's
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


def _with_options_checked(ctx: Context, run: Callable[[], Reply]) -> Reply:
    """gdb's mi_cmd_execute refuses a frame given without its thread, and a thread group
    that is none, before the command runs."""
    if ctx.frame is not None and ctx.thread is None:
        raise MiError("Cannot specify --frame without --thread")
    group = ctx.command.thread_group if ctx.command is not None else None
    if group is not None and all(f"i{inferior.number}" != group for inferior in ctx.session.inferiors):
        raise MiError("Invalid thread group for the --thread-group option")
    return run()
