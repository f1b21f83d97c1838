"""gdb's yes-or-no questions (utils.c defaulted_query): asked of a person at a terminal,
answered Y for everyone else.

gdb asks only on its main UI, when the command was typed there (not read from a command
file) and its input is a terminal (not -batch): the question ends in `(y or n) `, the next
line is the answer (its first letter: y or n, either case), anything else is "Please answer
y or n." and the question again, and the end of the input answers Y. Elsewhere gdb says the
question and "(y or n) [answered Y; input not from terminal]", except on an MI main UI at a
terminal, whose query hook answers Y without a word; with `set confirm off` or the `server`
prefix it answers Y without a word.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import MiError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.registry import Context

def query(ctx: Context, question: str, default: bool | None = None) -> bool:
    """Whether the user says yes to `question`: gdb's query without `default`, its
    nquery / yquery with one (shown as `[n]` / `[y]`, the answer to an empty line, and
    to anyone not at a terminal)."""
    session = ctx.session
    fallback = True if default is None else default
    if session.settings.get("confirm") != "on" or ctx.extra.get("server"):
        return fallback
    choices = "(y or n) " if default is None else "(y or [n]) " if not default else "([y] or n) "
    letter = "Y" if fallback else "N"
    ui = ctx.ui
    # gdb's from_tty stands for its "input is the UI's own stdin": a command file runs
    # its commands with from_tty off (a breakpoint's commands too, which gdb would ask).
    at_terminal = ui is session.main_ui and ui.reads_terminal() and not session.config.batch
    if not (at_terminal and ctx.from_tty):
        ctx.console(f"{question}{choices}[answered {letter}; input not from terminal]\n")
        return fallback
    if ui.is_mi:
        return True  # mi_interp_query_hook
    while True:
        ctx.console(question + choices)
        answer = session.read_more(ui)
        if answer is None:  # "quit": what readline prints at a Ctrl-D
            ctx.console(f"quit\nEOF [assumed {letter}]\n")
            session.read_on_after_end(ui)
            return fallback
        first = answer[:1].upper()
        if first in ("Y", "N"):
            return first == "Y"
        if default is not None and not answer.strip():
            return default
        ctx.console(f"Please answer {choices[1:-2]}.\n")


def confirm(ctx: Context, question: str, refusal: str = "Not confirmed.") -> None:
    """Ask `question`; a no is the error `refusal` (each command's own words)."""
    if not query(ctx, question):
        raise MiError(refusal)
