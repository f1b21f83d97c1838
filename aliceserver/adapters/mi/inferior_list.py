"""gdb's inferior list: `add-inferior`, `-add-inferior`, `inferior N`, `info inferiors`,
`remove-inferiors` and the thread groups MI lists.

Every inferior is the session's `Inferior` state; the current one is `session.inferior`.
The engine traces one process, so one inferior at a time has a live process: another
inferior can be added, selected, given a program and removed, and it runs once no other
inferior has a live process (gdb's own words say which one holds it)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from aliceserver.adapters.mi import connections
from aliceserver.adapters.mi.notify import exit_code_text
from aliceserver.adapters.mi.output import Value
from aliceserver.adapters.mi.parser import getopt
from aliceserver.adapters.mi.registry import Context, MiError, Reply
from aliceserver.adapters.mi.selection_events import announce
from aliceserver.adapters.mi.state import Inferior

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession



def find_inferior(session: MiSession, number: int) -> Inferior | None:
    return next((inferior for inferior in session.inferiors if inferior.number == number), None)


def description(inferior: Inferior) -> str:
    return f"process {inferior.process.pid}" if inferior.process is not None else "<null>"


def connection(session: MiSession, inferior: Inferior) -> str:
    """gdb's Connection column: the target the inferior is on, or the one it was added on."""
    on = connections.field(connections.of_inferior(session, inferior))
    added_on = inferior.connection
    if on or added_on is None:
        return on
    held = connections.remote(session)
    if added_on in ("native", "core") or (held is not None and held.what == added_on):
        return f"{connections.NUMBER} ({added_on})"
    return ""  # the stub it was added on is gone: gdb closed that target for every inferior


def engine_inferior(session: MiSession) -> Inferior:
    """The inferior whose process (or symbol probe) the engine holds: engine events are its."""
    for inferior in session.inferiors:
        if inferior.process is not None or inferior.probe_pid is not None:
            return inferior
    return session.inferior


def claim_engine(session: MiSession, starting: bool) -> None:
    """Free the engine for the current inferior: end another inferior's symbol probe.
    `starting`: a process is about to start, which another live process forbids."""
    current = session.inferior
    for other in session.inferiors:
        if other is current:
            continue
        if other.process is not None:
            if starting:
                raise MiError(f"Cannot run inferior {current.number}: inferior {other.number} "
                              f"[{description(other)}] is live, and aliceserver debugs one process "
                              "at a time. Kill or detach it first.")
            return
        if other.probe_pid is not None:
            with as_current(session, other):
                session.drop_probe()


def detach_target(session: MiSession, args: list[str]) -> Inferior:
    """gdb's mi_cmd_target_detach: the inferior whose process `[pid | thread-group]` names
    (without one, the current inferior), in gdb's words where it names none."""
    if len(args) > 1:
        raise MiError("Usage: -target-detach [pid | thread-group]")
    if not args:
        return session.inferior
    text = args[0]
    if text.startswith("i"):  # a thread group's id (strtoul's, base 0)
        try:
            number = int(text[1:] or "0", 0)
        except ValueError:
            raise MiError(f"Invalid syntax of thread-group id '{text}'") from None
        named = find_inferior(session, number)
        if named is None:
            raise MiError(f"Non-existent thread-group id '{number}'")
        pid = named.process.pid if named.process is not None else 0
    else:  # a pid (strtol's, base 10)
        found = re.fullmatch(r"\s*([+-]?\d*)", text)
        if found is None:
            raise MiError(f"Invalid identifier '{text}'")
        pid = int(found.group(1)) if found.group(1).lstrip("+-") else 0
    for inferior in session.inferiors:
        if inferior.process is not None and inferior.process.pid == pid and inferior.threads:
            return inferior
    raise MiError("Thread group is empty")


@contextmanager
def as_current(session: MiSession, inferior: Inferior) -> Iterator[None]:
    """Make `inferior` the current one for a while (the engine's business with it)."""
    user, session.inferior = session.inferior, inferior
    try:
        yield
    finally:
        session.inferior = user


def info_inferiors(ctx: Context, text: str) -> None:
    words = text.split()
    if any(not word.isdigit() for word in words):
        raise MiError("Arguments must be numbers or '$' variables.")
    session = ctx.session
    wanted = {int(word) for word in words}
    shown = [inferior for inferior in session.inferiors if not wanted or inferior.number in wanted]
    if not shown:
        ctx.console("No inferiors.\n")
        return
    fields = [connection(session, inferior) for inferior in shown]
    width = max(20, *(len(field) for field in fields))  # gdb's connection_id_len
    lines = [f"  Num  Description       {'Connection':<{width}} Executable        \n"]
    for inferior, field in zip(shown, fields, strict=True):
        mark = "*" if inferior is session.inferior else " "
        lines.append(f"{mark} {inferior.number:<4} {description(inferior):<17} {field:<{width}} "
                     f"{inferior.program or '':<17} \n")
    ctx.console("".join(lines))


def _new_inferiors(ctx: Context, copies: int, program: str | None, connect: bool) -> list[Inferior]:
    session = ctx.session
    current = connections.of_inferior(session, session.inferior) if connect else None
    on = current.what if current is not None else None
    added: list[Inferior] = []
    for _ in range(copies):
        session.highest_inferior = number = max(session.highest_inferior, *(i.number for i in session.inferiors)) + 1
        inferior = Inferior(program=None, number=number, cwd=session.inferior.cwd, connection=on)
        session.inferiors.append(inferior)
        added.append(inferior)
        session.notify("thread-group-added", [("id", f"i{number}")])
        ctx.console(f"[New inferior {number}]\n")
        ctx.console(f"Added inferior {number}" + (f" on connection 1 ({on})\n" if on else "\n"))
        if program is not None:  # as gdb: the inferior stays when its file is missing
            if not os.path.exists(program):
                raise MiError(f"{program}: No such file or directory.")
            inferior.program = os.path.abspath(program)
    return added


def add_inferior(ctx: Context, text: str) -> Reply:
    """`add-inferior [-copies N] [-exec FILE] [-no-connection]`"""
    words = text.split()
    copies, program, connection = 1, None, True
    while words:
        word = words.pop(0)
        if word == "-no-connection":
            connection = False
        elif word in ("-copies", "-exec") and words:
            value = words.pop(0)
            if word == "-exec":
                program = value
            elif not value.isdigit():
                raise MiError(f'No symbol "{value}" in current context.')
            else:
                copies = int(value)
        elif not word.startswith("-"):  # gdb passes over an unknown option
            raise MiError("Invalid argument")
    _new_inferiors(ctx, copies, program, connection)
    return None


def mi_add_inferior(ctx: Context, args: list[str]) -> Reply:
    """`-add-inferior [--no-connection]`"""
    options = getopt("add-inferior", args, long=("no-connection",))
    inferior = _new_inferiors(ctx, 1, None, "no-connection" not in options.found)[0]
    pairs: list[tuple[str, Value]] = [("inferior", f"i{inferior.number}")]
    if inferior.connection:
        pairs.append(("connection", {"number": "1", "name": inferior.connection}))
    return pairs


def switch_inferior(ctx: Context, number: int) -> None:
    """`inferior N`: every UI hears of it, even when N already was the current one."""
    session = ctx.session
    target = find_inferior(session, number)
    if target is None:
        raise MiError(f"Inferior ID {number} not known.")
    if target is not session.inferior:
        session.inferior = target
        if target.process is None:
            claim_engine(session, starting=False)  # its `file` and symbols may use the engine
        elif target.threads:  # as gdb's any_thread_of_inferior: its first thread, innermost frame
            target.selected_tid, target.selected_level = min(target.threads, key=target.threads.__getitem__), 0
    live = target.process is not None and target.selected_tid is not None
    announce(ctx, inferior=True, thread=live, frame=live)


def remove_inferiors(ctx: Context, text: str) -> Reply:
    words = text.split()
    if not words:
        raise MiError("Requires an argument (inferior id(s) to remove)")
    if any(not word.isdigit() for word in words):
        raise MiError("Arguments must be numbers or '$' variables.")
    session = ctx.session
    for word in words:
        number = int(word)
        inferior = find_inferior(session, number)
        if inferior is None:
            ctx.log(f"warning: Inferior ID {number} not known.\n")
        elif inferior is session.inferior:
            ctx.log(f"warning: Can not remove current inferior {number}.\n")
        elif inferior.process is not None:
            ctx.log(f"warning: Can not remove active inferior {number}.\n")
        else:
            drop_inferior(session, inferior)
    return None


def drop_inferior(session: MiSession, inferior: Inferior) -> None:
    """`inferior` (no process of its own) leaves the list: its symbol probe ends."""
    if inferior.probe_pid is not None:
        with as_current(session, inferior):
            session.drop_probe()
    session.inferiors.remove(inferior)
    session.notify("thread-group-removed", [("id", f"i{inferior.number}")])


def thread_groups(session: MiSession) -> list[Value]:
    """-list-thread-groups' groups: one per inferior."""
    groups: list[Value] = []
    for inferior in session.inferiors:
        group: dict[str, Value] = {"id": f"i{inferior.number}", "type": "process"}
        if inferior.exit_code is not None:  # the last run's, until the next one starts
            group["exit-code"] = exit_code_text(inferior.exit_code)
        if inferior.process is not None:
            group["pid"] = str(inferior.process.pid)
        if inferior.program:
            group["executable"] = inferior.program
        groups.append(group)
    return groups
