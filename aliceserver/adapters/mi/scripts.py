"""Commands no person types one at a time: gdb's command files (`source FILE`, -x, -ix) and
the -ex/-iex commands of its command line.

gdb runs them in order, each to its end: a command that sets the program running (`run`,
`continue`, `next`) returns only at the program's next stop (a breakpoint, a signal, the
exit), printed as the console prints it, so that `gdb -batch -ex run -ex bt ./crash` shows
the crash's backtrace. A command file stops at its first error, which names the file and
line; the command line goes on with its next command.
"""

from __future__ import annotations

import dataclasses
import os

from aliceserver.adapters.mi.registry import EXIT, Context, Exit, MiError, Reply, Running
from aliceserver.errors import AliceError


def run_to_end(ctx: Context, text: str) -> Reply:
    """One console command, waiting for the stop of the program it set running."""
    reply = ctx.session.run_cli(ctx, text)
    if isinstance(reply, Running):
        ctx.session.run_to_stop(ctx)
        return None
    return reply


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
    inner = dataclasses.replace(ctx, from_tty=False, extra={})
    for number, line in enumerate(lines, start=1):
        try:
            reply = run_to_end(inner, line)
        except AliceError as error:
            code = error.code if isinstance(error, MiError) else None
            raise MiError(f"{path}:{number}: Error in sourced command file:\n{error}", code) from None
        if isinstance(reply, Exit):
            return EXIT
    return None
