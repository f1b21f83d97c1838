"""gdb's control commands parsed from the lines of a list and run through hooks that record
what ran: nesting, else arms, loop_break/loop_continue reaching only their loop, a resume
ending the whole list, and blocks handed over whole (a python block's lines as written)."""

from __future__ import annotations

import pytest

from aliceserver.adapters.gdbcommands.breakpoint_scripts import read_block
from aliceserver.adapters.gdbcommands.control_flow import Kind, check_head, parse, run_list
from aliceserver.errors import ProtocolError


class Recorder:
    """A session of one variable `$i`: `set $i = $i + 1` counts, `run` resumes."""

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.i = 0

    def run(self, line: str) -> bool:
        self.ran.append(line)
        if line == "set $i = $i + 1":
            self.i += 1
        return line == "continue"

    def truth(self, expression: str) -> bool:
        return bool(eval(expression.replace("$i", str(self.i))))  # noqa: S307 - the test's own text

    def block(self, head: str, lines: tuple[str, ...]) -> bool:
        self.ran.append(f"<{head}: {' | '.join(lines)}>")
        return False


def _run(lines: list[str]) -> tuple[Recorder, bool]:
    hooks = Recorder()
    return hooks, run_list(parse(lines), hooks)


def test_while_with_continue_and_break_and_an_if_else() -> None:
    hooks, resumed = _run([
        "while $i < 6", "set $i = $i + 1", "if $i == 2", "loop_continue", "end",
        "if $i == 4", "loop_break", "else", "echo odd", "end", "echo tail", "end", "echo after",
    ])  # fmt: skip
    assert not resumed and hooks.i == 4
    assert [line for line in hooks.ran if line.startswith("echo")] == [
        "echo odd", "echo tail", "echo odd", "echo tail", "echo after"]


def test_loop_break_outside_a_loop_ends_only_its_command() -> None:
    hooks, _ = _run(["if 1", "loop_break", "echo skipped", "end", "echo next"])
    assert hooks.ran == ["echo next"]


def test_a_resume_ends_the_whole_list() -> None:
    hooks, resumed = _run(["while 1", "if 1", "continue", "end", "end", "echo never"])
    assert resumed and hooks.ran == ["continue"]


def test_blocks_are_handed_over_whole_with_python_lines_as_written() -> None:
    source = iter(["silent", "python", "if x:", "    y = 1", "end", "commands 2", "print 1", "end", "end", "after"])
    lines = read_block(lambda: next(source, None))
    assert lines == ("silent", "python", "if x:", "    y = 1", "end", "commands 2", "print 1", "end")
    commands = parse(lines)
    assert [c.kind for c in commands] == [Kind.SIMPLE, Kind.BLOCK, Kind.BLOCK]
    assert commands[1].lines == ("if x:", "    y = 1") and commands[2].lines == ("print 1",)


def test_prompts_follow_the_nesting() -> None:
    source = iter(["if 1", "while 0", "end", "end", "end"])
    depths: list[int] = []
    read_block(lambda: next(source, None), depths.append, 0)
    assert depths == [0, 1, 2, 1, 0]  # an `end` is read at the depth of the block it closes


@pytest.mark.parametrize("line", ["if", "while  ", "if\t"])
def test_if_and_while_need_a_condition(line: str) -> None:
    with pytest.raises(ProtocolError, match=f"{line.split()[0]} command requires an argument."):
        check_head(line)
    with pytest.raises(ProtocolError):
        parse([line, "end"])
