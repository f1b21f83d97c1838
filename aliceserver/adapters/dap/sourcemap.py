"""Launch/attach path mappings for programs built elsewhere, into the session's SourcePaths:
lldb-vscode's `sourceMap` ([[from, to], ...], or CodeLLDB's {from: to}) and cpptools'
`sourceFileMap` ({from: to} or {from: {editorPath, useForBreakpoints}})."""

from __future__ import annotations

from typing import Any

from aliceserver.adapters.dap.messages import Arguments, InvalidArguments
from aliceserver.debuggers.sourcepaths import SourcePaths


def apply_source_maps(command: str, args: Arguments, paths: SourcePaths) -> None:
    """Add the rules of both keys, in the order given (the first that matches a path wins)."""
    for source, target in _pairs(command, "sourceMap", args.raw.get("sourceMap")):
        paths.add_rule(source, target)
    for source, target in _pairs(command, "sourceFileMap", args.raw.get("sourceFileMap")):
        paths.add_rule(source, target)


def _pairs(command: str, key: str, raw: Any) -> list[tuple[str, str]]:
    if raw is None:
        return []
    pairs: list[tuple[Any, Any]]
    if isinstance(raw, dict):
        pairs = list(raw.items())
    elif isinstance(raw, list) and all(isinstance(p, list) and len(p) == 2 for p in raw):
        pairs = [(p[0], p[1]) for p in raw]
    else:
        raise InvalidArguments(f"{command}: '{key}' must be a list of [from, to] pairs or an object of paths")
    found: list[tuple[str, str]] = []
    for source, target in pairs:
        if isinstance(target, dict):  # cpptools: {"editorPath": ..., "useForBreakpoints": ...}
            target = target.get("editorPath")
        if not isinstance(source, str) or not source or not isinstance(target, str):
            raise InvalidArguments(f"{command}: '{key}' maps a path to a path: {source!r} -> {target!r}")
        found.append((source, target))
    return found
