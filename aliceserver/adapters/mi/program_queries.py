"""What the commands ask of the program a session debugs: its symbols before a run, its
launch, the selected thread and frame, evaluation, the current source, where a stop is."""

from __future__ import annotations

import dataclasses
import logging
from typing import TYPE_CHECKING

import aliceserver.debuggers.events as ev
from aliceserver import foreground
from aliceserver.adapters.gdbcommands.selection import Selection
from aliceserver.adapters.mi.dispatcher import Dispatcher
from aliceserver.adapters.mi.frames import Frames, display_value, printed_value
from aliceserver.adapters.mi.pretty import pretty_text
from aliceserver.adapters.mi.registry import MiError
from aliceserver.adapters.mi.remote_commands import remote_held
from aliceserver.adapters.mi.run_redirects import split_command_line
from aliceserver.adapters.mi.screen_env import inferior_environment
from aliceserver.adapters.mi.setting_functions import expand_setting_calls
from aliceserver.debuggers.model import (
    DynamicTypes,
    ForkFollow,
    LaunchConfig,
    Redirection,
    StackFrame,
    StdioMode,
    VariableInfo,
)
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoints import BreakpointTable
    from aliceserver.adapters.mi.session import SessionConfig

logger = logging.getLogger(__name__)


class ProgramQueries(Dispatcher):
    """The session's answers about its current inferior, over the dispatcher (an
    evaluation that stops the program waits for that stop)."""

    config: SessionConfig
    frames: Frames
    breakpoints: BreakpointTable
    host_env: dict[str, str]  # gdb's own environment: what each inferior's starts from

    def __init__(self) -> None:
        super().__init__()
        self._last_stop: tuple[str | None, int | None] | None = None
        # gdb's -data-list-changed-registers compares with what its previous call read
        self.register_contents: tuple[tuple[str, ...], list[bytes | None]] | None = None
        self.machine_registers: tuple[object, tuple[str, ...]] | None = None  # (process, names)

    def ensure_symbols(self) -> None:
        """Before the program runs, hold a copy of it at its first instruction so that
        locations, expressions on globals and disassembly work as in gdb after `file`."""
        inferior = self.inferior
        if inferior.process is not None or inferior.probe_pid is not None or not inferior.program:
            return
        if self.debugger.process is not None:
            return
        config = self._probe_config()
        try:
            info = self.debugger.launch(config)
        except AliceError as error:
            logger.info("cannot load %s for its symbols: %s", inferior.program, error)
            return
        inferior.probe_pid, inferior.probe_config = info.pid, config

    def _probe_config(self) -> LaunchConfig:
        """The probe's start: the one `run` would make, so that `run` can take the probe as
        its process where nothing changed meanwhile (drop_probe); the program alone where
        `run` must start it itself: a terminal to take then, a redirection's file opened
        only at `run`, a stub's run."""
        inferior = self.inferior
        assert inferior.program is not None
        kept = inferior.kept_libraries if inferior.ran else ()  # (`file` reads the program anew)
        alone = LaunchConfig(inferior.program, cwd=inferior.cwd, symbols_only=True, relocated=inferior.ran,
                             kept_libraries=kept)  # fmt: skip
        if remote_held(self) is not None:  # type: ignore[arg-type]
            return alone
        try:
            config = self.launch_config()
        except AliceError:  # arguments sh would refuse: said at `run`
            return alone
        if config.stdio is StdioMode.TTY or config.redirections:
            return alone
        return dataclasses.replace(config, symbols_only=True, relocated=inferior.ran, kept_libraries=kept)

    def has_symbols(self) -> bool:
        return self.inferior.process is not None or self.inferior.probe_pid is not None

    def drop_probe(self, start: LaunchConfig | None = None) -> None:
        """End the symbol probe before a real start (its events are swallowed); or, where
        it was started as `start` starts, hand it to the engine's launch, which takes it
        as that start's process."""
        inferior = self.inferior
        config, inferior.probe_config = inferior.probe_config, None
        if inferior.probe_pid is None or inferior.process is not None:
            return
        if start is not None and config is not None and config == dataclasses.replace(
                start, symbols_only=True, relocated=config.relocated, kept_libraries=config.kept_libraries):
            # (a probe after a run: relocated, with the ended run's libraries)
            self.take_queued_events()  # the probe's, swallowed as such
            inferior.probe_pid = None
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
        env = inferior_environment(self.host_env, inferior.env)
        tty = inferior.tty
        args, redirections = tuple(inferior.args), tuple[Redirection, ...]()
        if inferior.args_text is not None:  # typed: what gdb's startup shell would see
            line = split_command_line(inferior.args_text, shell=self.settings.get("startup-with-shell") == "on")
            args, redirections = tuple(line.args), tuple(line.redirections)
        disable_aslr = self.settings.get("disable-randomization") == "on"
        follow = ForkFollow.CHILD if self.settings.get("follow-fork-mode") == "child" else ForkFollow.PARENT
        remote_program = self.settings.get("remote exec-file")  # as gdb: never the local path
        if tty:
            return LaunchConfig(inferior.program, args, inferior.cwd, env, StdioMode.TTY, tty,
                                disable_aslr=disable_aslr, follow_fork=follow, redirections=redirections,
                                remote_program=remote_program)
        mode, shared = StdioMode.PIPES, False
        if self.config.own_stdio:  # gdb -batch reads no command from stdin: the program may
            mode = StdioMode.INHERIT if self.config.batch else StdioMode.INHERIT_OUTPUT
            # On a terminal, the program reads it while it runs (the server's reads wait),
            # as gdb's: it holds the terminal then (foreground.py)
            shared = foreground.installed() is not None
            mode = StdioMode.INHERIT if shared else mode
        return LaunchConfig(inferior.program, args, inferior.cwd, env, mode, disable_aslr=disable_aslr,
                            follow_fork=follow, redirections=redirections, remote_program=remote_program,
                            shares_terminal=shared)

    def before_resume(self) -> None:
        """Refuse a resume with more hardware breakpoints than debug registers, as gdb
        does; write out what the UIs hold: the running program writes to the same stdout."""
        from aliceserver.adapters.mi.debug_registers import check_room

        check_room(self.breakpoints)
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

    def current_language(self) -> str:
        """The language `set language auto` stands for (gdb's current_language): the selected
        frame's, else that of main's unit, else c."""
        where = self.console_selection()
        try:
            if where.thread_id is not None:
                language = self.debugger.frame_details(where.thread_id, where.level).language
                if language:
                    return language
            self.ensure_symbols()
            places = [p for p in self.debugger.resolve_location("main") if p.source is not None]
            unit = self.debugger.compile_unit(places[0].source.path) if places and places[0].source else None
        except AliceError:
            return "c"
        return unit.language if unit is not None and unit.language != "minimal" else "c"

    def context_frame(self, thread: int | None, frame: int | None) -> tuple[int, int]:
        tid = self.thread_arg(thread)
        level = frame if frame is not None else (
            self.inferior.selected_level if tid == self.inferior.selected_tid else 0)
        return tid, level

    def display(self, info: VariableInfo) -> str:
        """A value as MI shows it (-data-evaluate-expression), laid out as `print pretty`
        says."""
        return self._laid_out(display_value(info), info)

    def printed(self, info: VariableInfo) -> str:
        """A value as `print` shows it (gdb's value_print: a pointer's `(type *) ` too),
        laid out as `print pretty` says: print's, and finish's returned value."""
        return self._laid_out(printed_value(info), info)

    def _laid_out(self, text: str, info: VariableInfo) -> str:
        if self.settings.get("print pretty") == "on" and not info.error:
            return pretty_text(text, info.type, info.member_classes)
        return text

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
            if not inferior.program and inferior.process is None:  # not another inferior's symbols
                from aliceserver.adapters.mi.inferior_list import claim_engine

                claim_engine(self, starting=False)  # type: ignore[arg-type]
            self.ensure_symbols()
            if not self.has_symbols() and inferior.program:  # no file: the engine's literals and $ values
                raise MiError(f'No symbol "{expression.strip()}" in current context.'
                              if expression.strip().isidentifier() else "No symbol table is loaded.  Use the \"file\" command.")
        if not type_only:  # whatis and ptype: the engine's int, as gdb's
            expression = expand_setting_calls(self, expression)
            from aliceserver.adapters.mi.settings_policy import refresh_nibbles

            refresh_nibbles(self, tid, level or 0)  # type: ignore[arg-type]  # this frame's language's separator
        try:
            info = self.debugger.evaluate(expression, tid, level or 0, fmt, dynamic=self.dynamic_types(shown),
                                          type_only=type_only, calls=tid is not None, record=record)  # fmt: skip
        except AliceError as error:
            if str(error).endswith(ev.CALL_LEFT_STOPPED):
                # A call stopped in the program (a breakpoint, a signal): gdb shows that stop
                # before the error. The engine queued it before raising.
                self.wait_event(lambda event: isinstance(event, ev.Stopped))
            raise
        for ui in self.uis:  # gdb's, on its error stream as they happen: before the value
            for warning in info.warnings:
                if not ui.closed:
                    ui.log(f"warning: {warning}\n")
        return info

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

    def same_function(self, frame: StackFrame | None) -> bool:
        return frame is not None and self._last_stop == (frame.function, frame.cfa)

    def at_line_start(self, frame: StackFrame) -> bool:
        """Whether gdb's frame_show_address hides the pc: the pc is where its line-table row
        starts (sal.pc, the last row at or before it as the reader keeps them: one per
        DWARF row but a repeat of a line with a discriminator) and that row is a statement.
        A frame whose line is not its pc's row's stands at an inlined call's site (gdb's
        sal.pc 0 there): no pc either."""
        if frame.source is None or not frame.source.line:
            return False
        try:
            row = self.debugger.line_range(frame.pc)
        except AliceError:
            row = None
        if row is None:
            return False
        if (row.source.path, row.source.line) != (frame.source.path, frame.source.line):
            return True
        return row.start == frame.pc and row.is_stmt

    def locked_thread(self) -> int | None:
        """The thread a continue resumes alone (gdb's scheduler-locking on), else None."""
        return self.inferior.selected_tid if self.settings.get("scheduler-locking") == "on" else None
