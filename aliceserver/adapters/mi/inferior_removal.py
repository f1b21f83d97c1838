"""-remove-inferior iN (mi-main.c): one inferior without a process leaves the list, told as
`remove-inferiors` tells it (=thread-group-removed); removing the current one makes the
last other one current first, as gdb does."""

from __future__ import annotations

import re

from aliceserver.adapters.mi.inferior_list import claim_engine, drop_inferior, find_inferior
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply


def _remove(ctx: Context, args: list[str]) -> Reply:
    if len(args) != 1:
        raise MiError("-remove-inferior should be passed a single argument")
    match = re.match(r"i\s*([-+]?\d+)", args[0])  # gdb's sscanf "i%d"
    if match is None:
        raise MiError("the thread group id is syntactically invalid")
    session = ctx.session
    inferior = find_inferior(session, int(match.group(1)))
    if inferior is None:
        raise MiError("the specified thread group does not exist")
    if inferior.process is not None:
        raise MiError("cannot remove an active inferior")
    if inferior is session.inferior:
        others = [other for other in session.inferiors if other is not inferior]
        if not others:
            raise MiError("Cannot remove last inferior")
        session.inferior = others[-1]  # quietly, as gdb's set_current_inferior
        if session.inferior.process is None:
            claim_engine(session, starting=False)  # its symbols may use the engine
    drop_inferior(session, inferior)
    return None


def register(registry: MiRegistry) -> None:
    registry.add("remove-inferior", _remove)
