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
