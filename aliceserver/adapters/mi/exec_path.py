"""gdb's `path DIR...`: the directories put first in the PATH the program is given, as
gdb's add_path puts them (in the order given; one already there moves; `.` is the working
directory, a relative name made absolute, a missing one warned about but kept)."""

from __future__ import annotations

import os
import stat

from aliceserver.adapters.mi.buildargv import build_argv
from aliceserver.adapters.mi.registry import CliRegistry, Context, Reply
from aliceserver.adapters.mi.screen_env import inferior_environment, set_variable


def _name(word: str, cwd: str) -> str | None:
    """gdb's reading of one directory name (None: an empty one, skipped)."""
    while len(word) > 1 and word.endswith("/"):
        word = word[:-1]
    while word.endswith("."):
        if word == ".":
            return cwd
        if word == "/.":
            return "/"
        if not word.endswith("/."):
            break
        word = word[:-2]
    if not word:
        return None
    if word.startswith("~"):
        return os.path.expanduser(word)
    if not word.startswith(("/", "$")):
        return os.path.join(cwd, word)
    return word


def _warning(name: str) -> str | None:
    """gdb's warning for a directory that is not there (kept in the path all the same)."""
    if name.startswith("$"):
        return None
    try:
        mode = os.stat(name).st_mode
    except OSError as error:
        return f"Warning: {name}: {error.strerror}.\n"
    return None if stat.S_ISDIR(mode) else f"warning: {name} is not a directory.\n"


def prepend(text: str, current: str, cwd: str) -> tuple[str, list[str]]:
    """`current` (a PATH) with the directories of `text` first; and gdb's warnings."""
    entries = current.split(":") if current else []
    added = 0
    warnings: list[str] = []
    for word in (part for arg in build_argv(text) for part in arg.split(":")):
        name = _name(word, cwd) if word else None
        if name is None:
            continue
        if name != cwd or word != ".":
            warning = _warning(name)
            if warning is not None:
                warnings.append(warning)
        if name in entries[:added]:  # twice in one command
            continue
        entries = entries[:added] + [entry for entry in entries[added:] if entry != name]
        entries.insert(added, name)
        added += 1
    return ":".join(entries), warnings


def _path(ctx: Context, text: str) -> Reply:
    session = ctx.session
    current = inferior_environment(session.host_env, session.inferior.env).get("PATH", "")
    changed, warnings = prepend(text, current, session.inferior.cwd)
    for warning in warnings:
        ctx.log(warning)
    set_variable(session.inferior.env, "PATH", changed)
    if ctx.from_tty:
        ctx.console(f"Executable and object file path: {changed}\n")
    return None


def register(registry: CliRegistry) -> None:
    registry.add("path", _path)
