"""bt's -past-main and -past-entry options (gdb's backtrace_command_options): for one
backtrace, `backtrace past-main` and `backtrace past-entry` as given."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import Context, MiError
from aliceserver.adapters.mi.settings import Settings

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession


def past_option(ctx: Context, option: str, text: str) -> str:
    """The option's value (on or off) as `set backtrace ...` reads it; past-entry is
    refused on, as its setting is (aliceserver never unwinds past a program's entry)."""
    value = Settings().set("backtrace past-main", text)  # the same boolean parse
    if option == "-past-entry" and value == "on":
        raise MiError('The setting "backtrace past-entry" is not supported by aliceserver.')
    return value


@contextmanager
def past_main(session: MiSession, on: bool) -> Iterator[None]:
    """`backtrace past-main` as `on` while the backtrace is shown, then as it was."""
    kept = session.settings.get("backtrace past-main")
    session.settings.set("backtrace past-main", "on" if on else "off")
    session.debugger.set_backtrace_past_main(on)
    try:
        yield
    finally:
        session.settings.set("backtrace past-main", kept)
        session.debugger.set_backtrace_past_main(kept == "on")
