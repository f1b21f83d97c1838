"""gdb's control commands in command lists and command files (cli-script.c): `if EXPR` ...
[`else` ...] `end`, `while EXPR` ... `end` with `loop_break` and `loop_continue`.

The lines are read as gdb reads them (breakpoint_scripts.read_block: nested blocks whole,
with their `end`), parsed into a tree here, and run through the caller's hooks: a simple
command, the truth of a condition, and a block this module does not open (`python`,
`commands N`, `define`...), which the caller runs whole.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from aliceserver.adapters.gdbcommands.breakpoint_scripts import block_end, opens_block
from aliceserver.errors import ProtocolError

_CONTROL = ("if", "while")


class Kind(enum.Enum):
    SIMPLE = "simple"
    IF = "if"
    WHILE = "while"
    BREAK = "loop_break"
    CONTINUE = "loop_continue"
    BLOCK = "block"  # python, commands, define...: run whole by the caller


@dataclass(frozen=True, slots=True)
class Command:
    kind: Kind
    text: str  # the command; IF and WHILE: the condition; BLOCK: its first line
    body: tuple[Command, ...] = ()
    orelse: tuple[Command, ...] = ()
    lines: tuple[str, ...] = ()  # BLOCK: its lines up to (not with) its `end`


class Outcome(enum.Enum):
    NEXT = "next"
    BREAK = "break"
    CONTINUE = "continue"
    RESUMED = "resumed"  # a command set the program running: the list ends (bpstat_do_actions)


class Hooks(Protocol):
    def run(self, line: str) -> bool:
        """Run one command; True when it set the program running and the list must end."""
        ...

    def truth(self, expression: str) -> bool:
        """gdb's value_true of the expression, evaluated now."""
        ...

    def block(self, head: str, lines: tuple[str, ...]) -> bool:
        """Run a block this module does not open; True as for `run`."""
        ...


def control_word(line: str) -> str | None:
    """`if` or `while` when the line opens one of them."""
    word = line.split(None, 1)[0] if line.split() else ""
    return word if word in _CONTROL else None


def check_head(line: str) -> None:
    """gdb's build_command_line: `if` and `while` need their condition."""
    word = control_word(line)
    if word is not None and not line.strip()[len(word):].strip():
        raise ProtocolError(f"{word} command requires an argument.")


def parse(lines: Sequence[str]) -> tuple[Command, ...]:
    """The tree of a command list as read (blank lines and `#` comments are nothing)."""
    return _parse(lines, 0, inside_if=False)[0]


def _parse(lines: Sequence[str], start: int, *, inside_if: bool) -> tuple[tuple[Command, ...], int]:
    """Commands from `start` up to an `end`/`else` of this level (or the input's end); the
    index of that closing line."""
    out: list[Command] = []
    index = start
    while index < len(lines):
        text = lines[index].strip()
        if text == "end" or (text == "else" and inside_if):
            return tuple(out), index
        index += 1
        if not text or text.startswith("#"):
            continue
        word = control_word(text)
        if word is not None:
            check_head(text)
            body, index = _parse(lines, index, inside_if=word == "if")
            orelse: tuple[Command, ...] = ()
            if index < len(lines) and lines[index].strip() == "else":
                orelse, index = _parse(lines, index + 1, inside_if=False)
            out.append(Command(Kind.IF if word == "if" else Kind.WHILE, text[len(word):].strip(), body, orelse))
            index += 1  # its `end`
        elif text in ("loop_break", "loop_continue"):
            out.append(Command(Kind.BREAK if text == "loop_break" else Kind.CONTINUE, text))
        elif opens_block(text):
            end = block_end(lines, index - 1)
            out.append(Command(Kind.BLOCK, text, lines=tuple(lines[index:end])))
            index = end + 1
        else:
            out.append(Command(Kind.SIMPLE, text))
    return tuple(out), index


def run_list(commands: Sequence[Command], hooks: Hooks) -> bool:
    """A whole list (a breakpoint's, a file's block): a `loop_break` outside any `while`
    only ends the command it is in, as in gdb. True when a command set the program running."""
    return any(_execute_one(command, hooks) is Outcome.RESUMED for command in commands)


def execute(commands: Sequence[Command], hooks: Hooks) -> Outcome:
    """gdb's execute_control_command_1 over a list: BREAK and CONTINUE go up to the
    innermost `while`, RESUMED to the top."""
    for command in commands:
        outcome = _execute_one(command, hooks)
        if outcome is not Outcome.NEXT:
            return outcome
    return Outcome.NEXT


def _execute_one(command: Command, hooks: Hooks) -> Outcome:
    if command.kind is Kind.SIMPLE:
        return Outcome.RESUMED if hooks.run(command.text) else Outcome.NEXT
    if command.kind is Kind.BLOCK:
        return Outcome.RESUMED if hooks.block(command.text, command.lines) else Outcome.NEXT
    if command.kind is Kind.BREAK:
        return Outcome.BREAK
    if command.kind is Kind.CONTINUE:
        return Outcome.CONTINUE
    if command.kind is Kind.IF:
        return execute(command.body if hooks.truth(command.text) else command.orelse, hooks)
    while hooks.truth(command.text):
        outcome = execute(command.body, hooks)
        if outcome is Outcome.BREAK:
            break
        if outcome is Outcome.RESUMED:
            return outcome
    return Outcome.NEXT
