"""Commands no person types one at a time: gdb's command files (`source FILE`, -x, -ix) and
the -ex/-iex commands of its command line.

gdb runs them in order, each to its end: a command that sets the program running (`run`,
`continue`, `next`) returns only at the program's next stop (a breakpoint, a signal, the
exit), printed as the console prints it, so that `gdb -batch -ex run -ex bt ./crash` shows
the crash's backtrace. A command file stops at its first error, which names the file and
line; the command line goes on with its next command. A `python` line alone opens a block
of Python that ends at a line `end`; `source FILE.py` runs the file as Python (gdb's
default `script-extension soft`).
"""

from __future__ import annotations

import dataclasses
import os

from aliceserver.adapters.mi.breakpoint_commands import read_commands, run_actions
from aliceserver.adapters.mi.control_commands import read_control, run_commands
from aliceserver.adapters.mi.registry import EXIT, Context, Exit, MiError, Reply, Running
from aliceserver.adapters.mi.user_commands import read_definition
from aliceserver.errors import AliceError


def run_to_end(ctx: Context, text: str) -> Reply:
    """One console command, waiting for the stop of the program it set running."""
    reply = ctx.session.run_cli(ctx, text)
    if isinstance(reply, Running):
        ctx.session.run_to_stop(ctx)
        run_actions(ctx)  # the stop's breakpoint commands
        return None
    return reply


_PYTHON_WORDS = frozenset(("python", "py"))
SCRIPT_ERROR = "Error while executing Python code."


def run_python(ctx: Context, code: str | None, path: str | None = None) -> bool:
    """Python code or file in the session at the selected frame: what it prints goes to the
    console, its traceback to the log stream, as gdb's. False when it raised."""
    session = ctx.session
    inferior = session.inferior
    tid = None if inferior.running else inferior.selected_tid
    level = inferior.selected_level if tid is not None else 0
    result = session.debugger.run_python(code, path, tid, level)
    if result.output:
        ctx.console(result.output)
    if result.errors:
        ctx.log(result.errors)
    return not result.failed


def python_command(ctx: Context, text: str) -> Reply:
    """`python CODE` (a command file gives `python` alone its block: see `source`)."""
    if not text.strip():
        raise MiError('"python" with its code on the following lines is only read from a '
                      "command file here: give the code on the line, or `source FILE.py`.")
    if not run_python(ctx, text.strip()):
        raise MiError(SCRIPT_ERROR)
    return None


def python_interactive(ctx: Context, text: str) -> Reply:
    """`pi EXPR` prints the value's repr as Python's prompt would; no interactive prompt."""
    if not text.strip():
        raise MiError("Python scripting is not supported in this copy of GDB.")
    code = f"_pi_value = ({text.strip()})\nif _pi_value is not None:\n    print(repr(_pi_value))\n"
    if not run_python(ctx, code):
        raise MiError(SCRIPT_ERROR)
    return None


def source(ctx: Context, text: str) -> Reply:
    """gdb's `source FILE`: each line a command (from_tty off), `#` comments, blank lines."""
    path = os.path.expanduser(text.strip())
    if not path:
        raise MiError("source command requires file name of file to source.")
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        reason = error.strerror or str(error)
        if ctx.from_tty:
            raise MiError(f"{path}: {reason}.") from None
        # gdb only warns when a file, not a person, names the missing file (and -batch).
        ctx.log(f"warning: {path}: {reason}\n")
        return None
    if path.endswith(".py"):
        run_python(ctx, None, path)  # its traceback is printed; gdb goes on
        return None
    inner = dataclasses.replace(ctx, from_tty=False, extra={})
    block: list[str] | None = None  # the lines of a `python` ... `end` block
    numbered = enumerate(lines, start=1)
    for number, line in numbered:
        if block is not None:
            if line.strip() != "end":
                block.append(line)
                continue
            python, block = "\n".join(block) + "\n", None
            if not run_python(inner, python):
                raise MiError(f"{path}:{number}: Error in sourced command file:\n{SCRIPT_ERROR}")
            continue
        if line.strip() in _PYTHON_WORDS:
            block = []
            continue
        def next_line() -> str | None:
            nonlocal number
            number, text = next(numbered, (number, None))
            return text

        try:
            if read_commands(inner, line, next_line) or read_definition(inner, line, next_line):
                continue
            control = read_control(line, next_line)
            if control is not None:
                reply = run_commands(inner, control, breakpoint_list=False)
            else:
                reply = run_to_end(inner, line)
        except AliceError as error:
            code = error.code if isinstance(error, MiError) else None
            raise MiError(f"{path}:{number}: Error in sourced command file:\n{error}", code) from None
        if isinstance(reply, Exit):
            return EXIT
    return None
