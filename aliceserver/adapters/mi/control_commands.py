"""The console's `if` and `while` (with `else`, `loop_break`, `loop_continue`) wherever
gdb reads them: typed (the body read from the same input, with gdb's `>` prompts), in
command files and -x scripts, and in breakpoint command lists run at a stop.

In a command file a command that sets the program running returns at its stop and the
file goes on; in a breakpoint's list it ends the list (gdb's bpstat_do_actions), and the
lists of the new stop run next (breakpoint_commands.run_actions).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

from aliceserver.adapters.gdbcommands.breakpoint_scripts import read_block
from aliceserver.adapters.gdbcommands.control_flow import check_head, control_word, parse, run_list
from aliceserver.adapters.mi.registry import (
    EXIT,
    CliHandler,
    CliRegistry,
    Context,
    Exit,
    MiError,
    Reply,
    Running,
)
from aliceserver.errors import AliceError


class SessionHooks:
    """control_flow.Hooks over the session: commands through its console, conditions
    through its evaluator at the selected frame."""

    def __init__(self, ctx: Context, *, breakpoint_list: bool) -> None:
        self.ctx = ctx
        self.breakpoint_list = breakpoint_list
        self.exited = False

    def run(self, line: str) -> bool:
        session = self.ctx.session
        reply = session.run_cli(self.ctx, line)
        if isinstance(reply, Exit):
            self.exited = True
            return True
        if isinstance(reply, Running):
            session.run_to_stop(self.ctx)
            if self.breakpoint_list:
                return True
            from aliceserver.adapters.mi.breakpoint_commands import run_actions

            run_actions(self.ctx)  # the stop's breakpoint commands, as after any command of a file
        return session.exit_requested

    def truth(self, expression: str) -> bool:
        """gdb's value_true: a number or pointer compared with zero, a bool as it is, an
        aggregate true when any of its bytes is not zero."""
        session = self.ctx.session
        try:
            shown = session.evaluate_display(f"({expression}) == 0", "d")
        except AliceError:
            whole = session.evaluate(expression)
            if whole.value in ("true", "false"):  # a language whose bool is no number (Rust)
                return whole.value == "true"
            if not whole.aggregate or whole.address is None:
                raise
            size = int(session.evaluate_display(f"sizeof({expression})", "d"))
            return any(session.debugger.read_memory(whole.address, size))
        return shown.split()[-1] not in ("1", "true")

    def block(self, head: str, lines: tuple[str, ...]) -> bool:
        word = head.split()[0]
        if word in ("python", "py"):
            from aliceserver.adapters.mi.scripts import SCRIPT_ERROR, run_python

            if not run_python(self.ctx, "\n".join(lines) + "\n"):
                raise MiError(SCRIPT_ERROR)
            return False
        if word in ("commands", "command"):
            from aliceserver.adapters.mi.breakpoint_commands import read_commands

            given = iter([*lines, "end"])
            read_commands(self.ctx, head, lambda: next(given, None))
            return False
        from aliceserver.adapters.mi.user_commands import defining_block

        if defining_block(self.ctx, head, lines):
            return False
        return self.run(head)  # gdb's other blocks (while-stepping...): their own error here


def run_commands(ctx: Context, lines: Sequence[str], *, breakpoint_list: bool) -> Reply:
    """Run a list as gdb reads it; EXIT when one of its commands quits."""
    hooks = SessionHooks(ctx, breakpoint_list=breakpoint_list)
    run_list(parse(lines), hooks)
    return EXIT if hooks.exited else None


def typed_block(ctx: Context, depth_shown: int) -> tuple[str, ...]:
    """The lines a person types after `commands`, `if` or `while`, up to its `end`, each
    after gdb's prompt (`>`, one blank more a level)."""
    session = ctx.session
    return read_block(lambda: session.read_more(ctx.ui), lambda depth: ctx.console(" " * depth + ">"), depth_shown)


def _control(word: str) -> CliHandler:
    def handler(ctx: Context, text: str) -> Reply:
        head = f"{word} {text.strip()}"
        check_head(head)
        body = typed_block(ctx, 1)
        inner = dataclasses.replace(ctx, from_tty=False, extra={})
        return run_commands(inner, [head, *body, "end"], breakpoint_list=False)

    return handler


def read_control(line: str, next_line: Callable[[], str | None]) -> tuple[str, ...] | None:
    """A command file's `if`/`while` line with its block read from the file (None: the
    line opens neither)."""
    if control_word(line.strip()) is None:
        return None
    check_head(line.strip())
    return (line.strip(), *read_block(next_line), "end")


def register(registry: CliRegistry) -> None:
    for word in ("if", "while"):
        registry.add(word, _control(word))
