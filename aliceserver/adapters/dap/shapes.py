"""DAP bodies built from model values: sources, modules, variables, memory references."""

from __future__ import annotations

import os
import re

from aliceserver.adapters.dap.messages import InvalidArguments, JsonObject
from aliceserver.debuggers.model import Module, SourcePosition, VariableInfo
from aliceserver.debuggers.sourcepaths import SourcePaths


def source_json(position: SourcePosition, paths: SourcePaths) -> JsonObject | None:
    """A Source the client can open, where the file is here (the session's source paths),
    or None when it is not on this machine (the client then shows disassembly for the
    frame instead of failing to open a file)."""
    located = paths.locate(position.path)
    if not located.found or not os.path.isabs(located.fullname):
        return None
    return {"name": os.path.basename(located.fullname), "path": located.fullname}


def frame_source_json(position: SourcePosition, paths: SourcePaths) -> JsonObject:
    """A frame's Source: named even when the file is not on this machine (libc's, built
    elsewhere), as gdb's bt and lldb-vscode name it (mapped, when a rule maps it); such a
    one is deemphasized, so that clients neither focus it first nor count on opening it."""
    source = source_json(position, paths)
    if source is not None:
        return source
    path = paths.fullname(position.path)
    name = os.path.basename(path) or path
    return {"name": name, "path": path, "presentationHint": "deemphasize"}


class FrameSources:
    """frame_source_json made once per file: 1,000 threads' stacks name a few files 8,000
    times a stop. Kept by path with the LocatedSource the session's source paths give for
    it, which they make anew when a rule or directory changes (then the Source is too)."""

    _LIMIT = 4096  # distinct files; past it, start again (stale entries go with the rest)

    def __init__(self) -> None:
        self._made: dict[str, tuple[object, JsonObject]] = {}

    def json(self, position: SourcePosition, paths: SourcePaths) -> JsonObject:
        located = paths.locate(position.path)
        found = self._made.get(position.path)
        if found is not None and found[0] is located:
            return found[1]
        if len(self._made) >= self._LIMIT:
            self._made.clear()
        made = frame_source_json(position, paths)
        self._made[position.path] = (located, made)
        return made


def module_json(module: Module) -> JsonObject:
    return {
        "id": module.path,
        "name": os.path.basename(module.path) or module.path,
        "path": module.path,
        "addressRange": f"{module.low:#x}-{module.high:#x}",
        "isOptimized": False,
        "symbolStatus": "Symbols loaded.",
    }


def memory_reference(address: int) -> str:
    return f"{address:#x}"


def parse_memory_reference(text: str, what: str = "memoryReference") -> int:
    try:
        value = int(text.strip(), 0)
    except ValueError:
        raise InvalidArguments(f"{what} {text!r} is not an address") from None
    if not 0 <= value < 2**64:
        raise InvalidArguments(f"{what} {text!r} is out of range")
    return value


_PLAIN_PATH = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|->)[A-Za-z_$][\w$]*|\[\d+\])*")


def child_expression(parent: str, parent_is_pointer: bool, child: str) -> str | None:
    """The C expression naming child `child` (as the engine names children: a member,
    `[i]`, `*` for a pointee, `<Base>` for a base class) of the value `parent` names."""
    base = parent if _PLAIN_PATH.fullmatch(parent) else f"({parent})"
    if child == "*":
        return f"*{base}"
    if child.startswith("["):
        return f"{base}{child}"
    if child.startswith("<"):
        return parent  # a base class: its members are reached through the derived value
    if not re.fullmatch(r"[A-Za-z_$][\w$]*", child):
        return None
    return f"{base}->{child}" if parent_is_pointer else f"{base}.{child}"


def is_pointer(info: VariableInfo) -> bool:
    return info.type.rstrip().endswith("*")
