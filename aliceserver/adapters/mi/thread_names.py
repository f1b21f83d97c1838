"""gdb's `thread name [NAME]` (the selected thread's user name: shown in place of the
system's name in `info threads`, -thread-info and `Thread N "name" hit ...`; no NAME
clears it) and `thread find REGEX` (threads whose name, system name, target id or extra
info match, in gdb's words)."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.posix_regex import RegexError, basic
from aliceserver.adapters.mi.registry import CliHandler, CliRegistry, Context, MiError, Reply
from aliceserver.debuggers.model import ThreadInfo

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_SUBCOMMANDS = ("name", "find")


def named(session: MiSession, info: ThreadInfo) -> ThreadInfo:
    """The thread as gdb shows it: its user name, where `thread name` gave one, as its name."""
    name = session.inferior.thread_names.get(info.tid)
    return info if name is None or name == info.name else replace(info, name=name)


def _thread_name(ctx: Context, text: str) -> Reply:
    inferior = ctx.session.inferior
    tid = inferior.selected_tid
    if inferior.process is None or tid is None:
        raise MiError("No thread selected")
    if text:
        inferior.thread_names[tid] = text
    else:
        inferior.thread_names.pop(tid, None)
    return None


def _thread_find(ctx: Context, text: str) -> Reply:
    from aliceserver.adapters.mi.commands_stack import target_id
    from aliceserver.adapters.mi.inferiors import thread_label

    if not text:
        raise MiError("Command requires an argument.")
    try:
        regex = basic(text)
    except RegexError as error:
        raise MiError(f"Invalid regexp ({error}): {text}") from None
    session = ctx.session
    inferior = session.inferior
    found = 0
    listed = session.debugger.threads() if inferior.process is not None else []
    for info in sorted(listed, key=lambda t: inferior.threads.get(t.tid, 0)):
        label = thread_label(session, info.tid)
        user = inferior.thread_names.get(info.tid)
        for what, value in (("name", user), ("target name", info.name),
                            ("target id", target_id(session, info.tid)), ("extra info", info.details)):  # fmt: skip
            if value and regex.search(value):
                ctx.console(f"Thread {label} has {what} '{value}'\n")
                found += 1
    if not found:
        ctx.console(f"No threads match '{text}'\n")
    return None


def _with_subcommands(thread: CliHandler) -> CliHandler:
    def handler(ctx: Context, text: str) -> Reply:
        word = re.match(r"[A-Za-z]*", text)
        first = word.group(0) if word is not None else ""
        chosen = [name for name in _SUBCOMMANDS if first and name.startswith(first)]
        if len(chosen) == 1:
            rest = text[len(first) :].strip()
            return _thread_name(ctx, rest) if chosen[0] == "name" else _thread_find(ctx, rest)
        return thread(ctx, text)

    return handler


def register(registry: CliRegistry) -> None:
    """After `thread` and its `apply` (console_frames, console_workflow)."""
    found = registry.lookup("thread")
    assert found is not None
    registry.add("thread", _with_subcommands(found[1]))
