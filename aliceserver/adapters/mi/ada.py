"""gdb's Ada commands over MI (ada-tasks.c, ada-lang.c) for programs without Ada: Ada tasks
exist only in a running program that uses GNAT's tasking, Ada exceptions only where the
GNAT run time defines them; this server reads neither, so it answers as gdb does for a
program without them (no tasks, an empty exception table)."""

from __future__ import annotations

from aliceserver.adapters.mi.output import Results, Value
from aliceserver.adapters.mi.posix_regex import RegexError, basic
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply


def _task_info(ctx: Context, args: list[str]) -> Reply:
    """-ada-task-info [TASK_ID]: nothing to list ("does not use any Ada tasks", which MI
    does not print)."""
    if len(args) > 1:
        raise MiError("Invalid MI command")
    if ctx.session.inferior.process is None:
        raise MiError("Cannot inspect Ada tasks when program is not running")
    return None


def _exceptions(ctx: Context, args: list[str]) -> Reply:
    """-info-ada-exceptions [REGEXP]: gdb's table, its columns 1 wide, with no rows."""
    if len(args) > 1:
        raise MiError("Usage: -info-ada-exceptions [REGEXP]")
    if args:
        try:
            basic(args[0])  # gdb's compiled_regex without REG_EXTENDED
        except RegexError as error:
            raise MiError(f"invalid regular expression: {error}") from None
    hdr: list[Value] = [{"width": "1", "alignment": "-1", "col_name": name, "colhdr": title}
                        for name, title in (("name", "Name"), ("address", "Address"))]  # fmt: skip
    table = Results([("nr_rows", "0"), ("nr_cols", "2"), ("hdr", hdr), ("body", Results([], as_list=True))])
    return [("ada-exceptions", table)]


def register(registry: MiRegistry) -> None:
    registry.add("ada-task-info", _task_info)
    registry.add("info-ada-exceptions", _exceptions)
