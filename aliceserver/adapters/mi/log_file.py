"""gdb's `set logging`: a copy of what a UI writes in a file (gdb's logfile), or, with
`logging redirect`, the output there alone. aliceserver writes no debug output, so
`logging debugredirect` only names where it would go."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import MiError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.registry import Context
    from aliceserver.adapters.mi.ui import Ui

SETTINGS = frozenset(("logging enabled", "logging file", "logging overwrite", "logging redirect",
                      "logging debugredirect"))  # fmt: skip
_APPLIED_AT_START = ("logging overwrite", "logging redirect", "logging debugredirect")


def changed(ctx: Context, name: str, *, from_tty: bool) -> None:
    """Act on the logging setting `name` just set (before its =cmd-param-changed, which
    the log already holds, as in gdb)."""
    settings = ctx.session.settings
    logging_ui = _logging_ui(ctx)
    if name == "logging enabled":
        if settings.get(name) == "on" and logging_ui is None:
            _start(ctx, from_tty)
        elif settings.get(name) == "off" and logging_ui is not None:
            _stop(ctx, logging_ui, from_tty)
    elif name in _APPLIED_AT_START and logging_ui is not None:
        ctx.log(f"warning: Currently logging to {settings.get('logging file')}.  "
                "Turn the logging off and on to make the new setting effective.\n")


def _logging_ui(ctx: Context) -> Ui | None:
    return next((ui for ui in ctx.session.uis if ui.log_copy is not None), None)


def _start(ctx: Context, from_tty: bool) -> None:
    settings = ctx.session.settings
    path = settings.get("logging file")
    redirect = settings.get("logging redirect") == "on"
    try:
        copy = open(path, "w" if settings.get("logging overwrite") == "on" else "a", encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        settings.set("logging enabled", "off")
        raise MiError(f"{path}: {error.strerror}.") from None
    if from_tty:
        ctx.console(f"{'Redirecting' if redirect else 'Copying'} output to {path}.\n")
        debug = "Redirecting" if settings.get("logging debugredirect") == "on" else "Copying"
        ctx.console(f"{debug} debug output to {path}.\n")
    ctx.ui.flush()  # what was said before the copy starts stays out of it
    ctx.ui.start_log_copy(copy, only=redirect)


def _stop(ctx: Context, ui: Ui, from_tty: bool) -> None:
    ui.stop_log_copy()
    if from_tty:
        ctx.console(f"Done logging to {ctx.session.settings.get('logging file')}.\n")
