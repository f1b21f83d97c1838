"""gdb's breakpoint command lists (`commands N ... end`) and `save breakpoints`, as text.

A command list is kept as gdb reads it (each line stripped of its blanks, nested blocks
`if`/`while`/`python`/`commands` ... `end` kept whole); `info breakpoints` shows it
indented by gdb's print_command_lines (depth 4, two more a level), and `save breakpoints`
writes each breakpoint back as the commands that recreate it (breakpoint.c's
save_breakpoints), a file `source` reads back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aliceserver.errors import ProtocolError

# Lines that open a block ended by its own `end` (gdb's control commands).
_OPENERS = frozenset(("commands", "while", "if", "python", "py", "define", "document", "while-stepping",
                      "stepping", "ws", "compile", "guile", "gu"))


_VERBATIM = frozenset(("python", "py", "guile", "gu", "compile", "document"))
_NEED_ARGUMENT = frozenset(("if", "while", "define", "document"))


def opens_block(line: str) -> bool:
    word = line.split(None, 1)[0] if line.split() else ""
    return word in _OPENERS and not (word in ("python", "py", "guile", "gu", "compile") and len(line.split()) > 1)


def _verbatim(line: str) -> bool:
    """A block whose lines gdb keeps as written (code, documentation): only `end` ends it."""
    return opens_block(line) and line.split()[0] in _VERBATIM


def _check_argument(line: str) -> None:
    """gdb's build_command_line: these blocks need an argument, refused as read."""
    words = line.split()
    if words[0] in _NEED_ARGUMENT and len(words) == 1:
        raise ProtocolError(f"{words[0]} command requires an argument.")


def read_block(next_line: Callable[[], str | None], prompt: Callable[[int], None] | None = None,
               depth_shown: int = 0) -> tuple[str, ...]:
    """The lines up to the `end` that closes a `commands`, `if` or `while` (that `end` left
    out): a nested block keeps its own `end`. `next_line` gives None at the end of the
    input; `prompt` is told the nesting (from `depth_shown`) before each line is read."""
    lines: list[str] = []
    open_blocks: list[bool] = []  # whether each open block is verbatim
    while True:
        if prompt is not None:
            prompt(depth_shown + len(open_blocks))
        if (line := next_line()) is None:
            break
        while line.rstrip("\n").endswith("\\"):  # gdb's continued line: read on, no prompt
            more = next_line()
            if more is None:
                break
            line = line.rstrip("\n")[:-1] + more
        text = line.strip()
        if text == "end":
            if not open_blocks:
                break
            open_blocks.pop()
        elif open_blocks and open_blocks[-1]:
            lines.append(line.rstrip())
            continue
        elif opens_block(text):
            _check_argument(text)
            open_blocks.append(_verbatim(text))
        if text:
            lines.append(text)
    return tuple(lines)


def block_end(lines: Sequence[str], head: int) -> int:
    """The index of the `end` closing the block opened at `lines[head]` (len: none)."""
    open_blocks = [_verbatim(lines[head].strip())]
    for index in range(head + 1, len(lines)):
        text = lines[index].strip()
        if text == "end":
            open_blocks.pop()
            if not open_blocks:
                return index
        elif not open_blocks[-1] and opens_block(text):
            open_blocks.append(_verbatim(text))
    return len(lines)


def indented(lines: Sequence[str], depth: int) -> str:
    """gdb's print_command_lines: two blanks a level, a block's body one level in (the
    lines of a python block as they were written)."""
    out: list[str] = []
    verbatim = False
    for text in lines:
        if verbatim and text.strip() != "end":
            out.append(text + "\n")
            continue
        verbatim = _verbatim(text)
        if text == "end" or text == "else":
            depth -= 1
        out.append(" " * (2 * depth) + text + "\n")
        if opens_block(text) or text == "else":
            depth += 1
    return "".join(out)


def is_silent(lines: Sequence[str]) -> bool:
    """gdb's `silent`: only as the first command of the list."""
    return bool(lines) and lines[0] == "silent"


def to_run(lines: Sequence[str]) -> tuple[str, ...]:
    return tuple(lines[1:] if is_silent(lines) else lines)


@dataclass(frozen=True, slots=True)
class SavedBreakpoint:
    """What `save breakpoints` writes for one breakpoint, watchpoint or dprintf."""

    recreate: str  # `break add`, `tbreak f.c:20`, `watch total`, `dprintf LOC,"fmt",args`
    condition: str | None = None
    ignore: int = 0
    commands: tuple[str, ...] = ()
    enabled: bool = True


def saved_text(entries: Sequence[SavedBreakpoint]) -> str:
    """The command file (gdb 13's save_breakpoints order: condition, ignore count,
    commands, then disable)."""
    out: list[str] = []
    for entry in entries:
        out.append(entry.recreate + "\n")
        if entry.condition:
            out.append(f"  condition $bpnum {entry.condition}\n")
        if entry.ignore:
            out.append(f"  ignore $bpnum {entry.ignore}\n")
        if entry.commands:
            out.append("  commands\n" + indented(entry.commands, 2) + "  end\n")
        if not entry.enabled:
            out.append("disable $bpnum\n")
    return "".join(out)
