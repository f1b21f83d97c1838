"""gdb's `thread apply` and `frame apply` (thread.c, stack.c) and their short forms `taas`,
`tfaas` and `faas`: one command run for each thread or frame, its output shown after a
header naming the thread (`\\nThread 1 (Thread 0x... (LWP n) "prog"):`) or the frame (its
backtrace line). The front end runs the command with the target selected and hands back
what it printed; -q leaves out the headers, -c prints an error and goes on, -s skips
errors and empty output silently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from aliceserver.adapters.gdbcommands.selection import Write
from aliceserver.errors import AliceError, ProtocolError
from aliceserver.regexes import compiled_later

Target = TypeVar("Target")
_ID_RANGE = compiled_later(r"(?:(?P<inferior>\d+)\.)?(?P<first>\d+|\*)(?:-(?P<last>\d+))?(?=\s|$)")


@dataclass(slots=True)
class ApplyFlags:
    """gdb's qcs_flags, and `thread apply all`'s -ascending."""

    quiet: bool = False
    cont: bool = False
    silent: bool = False
    ascending: bool = False


def parse_flags(which: str, text: str, ascending: bool = False) -> tuple[ApplyFlags, str]:
    """The leading options of `which` (gdb's process_options: an unknown one is the
    command's start, `--` ends them) and the command after them."""
    flags = ApplyFlags()
    names = {"-q": "quiet", "-c": "cont", "-s": "silent"}
    if ascending:
        names["-ascending"] = "ascending"
    rest = text.strip()
    while rest.startswith("-"):
        word, _, after = rest.partition(" ")
        if word == "--":
            rest = after.strip()
            break
        matches = [name for name in names if len(word) > 1 and name.startswith(word)]
        if len(matches) != 1:
            break
        setattr(flags, names[matches[0]], True)
        rest = after.strip()
    if flags.cont and flags.silent:
        raise ProtocolError(f"{which}: -c and -s are mutually exclusive")
    return flags, rest


def parse_thread_ids(text: str) -> tuple[list[tuple[int, int | None]], str]:
    """`thread apply`'s ID list (N, N-M, I.N, I.N-M, I.*) and the command after it, as
    (first, last) per range, last None for `*` (every thread)."""
    text = text.strip()
    if not text:
        raise ProtocolError("Please specify a thread ID list")
    ranges: list[tuple[int, int | None]] = []
    rest = text
    while True:
        match = _ID_RANGE().match(rest)
        if match is None:
            break
        if match["inferior"] is not None and match["inferior"] != "1":
            raise ProtocolError(f"Invalid thread ID: {rest}")  # one inferior here
        if match["first"] == "*":
            ranges.append((1, None))
        else:
            first = int(match["first"])
            last = int(match["last"]) if match["last"] else first
            if first == 0 or last < first:
                raise ProtocolError(f"Invalid thread ID: {rest}")
            ranges.append((first, last))
        rest = rest[match.end() :].lstrip()
    if not rest:
        raise ProtocolError("Please specify a command following the thread ID list")
    if not ranges or rest[0].isdigit():
        raise ProtocolError(f"Invalid thread ID: {rest}")
    return ranges, rest


def apply_each(
    targets: Sequence[Target], header: Callable[[Target], str], run: Callable[[Target, str], str],
    command: str, flags: ApplyFlags, write: Write,
) -> None:
    """gdb's thread_try_catch_cmd for each target: RUN the command there (its output, or an
    AliceError), then the header and the output, or the header and the error."""
    for target in targets:
        title = header(target)
        try:
            output = run(target, command)
        except AliceError as error:
            if flags.silent:
                continue
            if not flags.quiet:
                write(title)
            if not flags.cont:
                raise
            write(f"{error}\n")
            continue
        if not flags.silent or output:
            if not flags.quiet:
                write(title)
            write(output)


def thread_header(number: int, target_id: str, name: str) -> str:
    return f'\nThread {number} ({target_id} "{name}"):\n' if name else f"\nThread {number} ({target_id}):\n"
