"""gdb's commands for where source files are: `set/unset/show substitute-path`, `directory`,
`show directories`, `info source` and MI's `-environment-directory`, over the session's
one SourcePaths (debuggers/sourcepaths.py) that every front end shares."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.output import record
from aliceserver.adapters.mi.queries import confirm, query
from aliceserver.adapters.mi.registry import Context, MiError, Reply
from aliceserver.debuggers.sourcepaths import SourcePaths
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.ui import Ui


def _paths(ctx: Context) -> SourcePaths:
    return ctx.session.debugger.source_paths


def _words(text: str) -> list[str]:
    """gdb's gdb_buildargv: blank-separated, quotes and backslashes group."""
    return [
        match.group(1) if match.group(1) is not None else match.group(2) if match.group(2) is not None
        else re.sub(r"\\(.)", r"\1", match.group(3))
        for match in re.finditer(r'"([^"]*)"|\'([^\']*)\'|((?:\\.|[^\s"\'])+)', text)
    ]  # fmt: skip


def set_substitute_path(ctx: Context, text: str) -> None:
    words = _words(text)
    if len(words) < 2:
        raise MiError("Incorrect usage, too few arguments in command")
    if len(words) > 2:
        raise MiError("Incorrect usage, too many arguments in command")
    if not words[0]:
        raise MiError("First argument must be at least one character long")
    _paths(ctx).add_rule(words[0], words[1])


def unset_substitute_path(ctx: Context, text: str) -> None:
    words = _words(text)
    if len(words) > 1:
        raise MiError("Incorrect usage, too many arguments in command")
    if not words:
        confirm(ctx, "Delete all source path substitution rules? ", "Canceled")
        _paths(ctx).remove_rules(None)
        return
    if not _paths(ctx).remove_rules(words[0]):
        raise MiError(f"No substitution rule defined for `{words[0]}'")


def show_substitute_path(ctx: Context, text: str) -> None:
    words = _words(text)
    if len(words) > 1:
        raise MiError("Too many arguments in command")
    path = words[0] if words else None
    if path is None:
        ctx.console("List of all source path substitution rules:\n")
    else:
        ctx.console(f"Source path substitution rule matching `{path}':\n")
    for rule in _paths(ctx).rules_matching(path):
        ctx.console(f"  `{rule.source}' -> `{rule.target}'.\n")


def directories_sentence(ctx: Context) -> tuple[str, str]:
    """`show directories`: (value, sentence)."""
    value = _paths(ctx).directories_text()
    return value, f"Source directories searched: {value}"


def directory(ctx: Context, text: str) -> Reply:
    """`directory DIR...` puts DIRs first in the source path; `directory` resets it."""
    paths = _paths(ctx)
    if not text.strip():
        if ctx.from_tty and not query(ctx, "Reinitialize source path to empty? "):
            return None  # gdb changes and says nothing
        paths.reset_directories()
    else:
        _add(ctx, [name for word in _words(text) for name in word.split(":") if name])
    _param_changed(ctx)
    if ctx.from_tty:
        ctx.console(directories_sentence(ctx)[1] + "\n")
    return None


def set_directories(ctx: Context, text: str, *, from_mi: bool) -> None:
    """`set directories PATH`: the source path becomes PATH, then $cdir:$cwd if it lacks them."""
    paths = _paths(ctx)
    paths.reset_directories()
    _add(ctx, [name for word in _words(text) for name in word.split(":") if name])
    _param_changed(ctx, except_ui=ctx.ui if from_mi else None)


def _add(ctx: Context, names: list[str]) -> None:
    for missing in _paths(ctx).add_directories(names, ctx.session.inferior.cwd):
        ctx.log(f"Warning: {missing}: No such file or directory.\n")


def _param_changed(ctx: Context, except_ui: Ui | None = None) -> None:
    """gdb tells every MI channel that a console command changed the source path (and the
    others, when an MI command changed it)."""
    value = _paths(ctx).directories_text()
    line = record("=", "cmd-param-changed", [("param", "directories"), ("value", value)])
    ctx.session.broadcast(line, except_ui=except_ui)


def environment_directory(ctx: Context, reset: bool, names: list[str]) -> Reply:
    """`-environment-directory [-r] [DIR...]`: as `directory`, -r resets first."""
    if reset:
        _paths(ctx).reset_directories()
    if names:
        _add(ctx, names)
    return [("source-path", _paths(ctx).directories_text())]


def _current_source(ctx: Context) -> str | None:
    """gdb's current source file: the one a stop, a shown frame or `list` last showed, else
    the selected frame's; none before either (`info source` does not default to main's file)."""
    session = ctx.session
    listed = session.command_memory.listed
    if listed is not None:
        return listed[0]
    inferior = session.inferior
    if inferior.process is not None and not inferior.running and inferior.selected_tid is not None:
        try:
            frame = session.frames.frame(inferior.selected_tid, inferior.selected_level)
        except AliceError:
            frame = None
        if frame is not None and frame.source is not None:
            return frame.source.path
    return None


def info_source(ctx: Context) -> None:
    session = ctx.session
    path = _current_source(ctx)
    if path is None:
        ctx.console("No current source file.\n")
        return
    unit = session.debugger.compile_unit(path)
    located = _paths(ctx).locate(path)
    text = f"Current source file is {session.frames.file_name(path)}\n"
    if unit is not None and unit.comp_dir:
        text += f"Compilation directory is {unit.comp_dir}\n"
    if located.found or located.rewritten or path in session.frames.named_missing:  # gdb's fullname known
        text += f"Located in {located.fullname}\n"
    lines = session.frames.file_lines(path)
    if lines is not None:
        text += f"Contains {len(lines)} line{'' if len(lines) == 1 else 's'}.\n"  # gdb's plural
    text += f"Source language is {unit.language if unit is not None else 'c'}.\n"
    if unit is not None:
        if unit.producer:
            text += f"Producer is {unit.producer}.\n"
        text += f"Compiled with DWARF {unit.dwarf_version} debugging format.\n"
        text += ("Includes" if unit.has_macros else "Does not include") + " preprocessor macro info.\n"
    ctx.console(text)
