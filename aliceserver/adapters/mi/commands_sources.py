"""gdb's source file listing (symtab.c, info_sources_worker): MI's
-file-list-exec-source-files [--group-by-objfile] [--basename | --dirname] [--] REGEXP
and the console's `info sources [-basename | -dirname] [--] [REGEXP]`."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from aliceserver.adapters.mi.output import Value
from aliceserver.adapters.mi.registry import Context, MiError, MiRegistry, Reply
from aliceserver.debuggers.model import ModuleSourceFiles, SourceFileEntry
from aliceserver.debuggers.symbols.posix_regex import RegexError, compile_basic

_MI_USAGE = "-file-list-exec-source-files: Usage: [--group-by-objfile] [--basename | --dirname] [--] REGEXP"


@dataclass(frozen=True, slots=True)
class _Filter:
    """gdb's info_sources_filter: the regex finds the full name, its directory or its base name."""

    regex: re.Pattern[str] | None = None
    part: str = "fullname"  # or "dirname", "basename"

    def matches(self, entry: SourceFileEntry) -> bool:
        if self.regex is None:
            return True
        text = entry.fullname
        if self.part == "dirname":
            text = os.path.dirname(text)
        elif self.part == "basename":
            text = os.path.basename(text)
        return self.regex.search(text) is not None


def _compiled(pattern: str) -> re.Pattern[str] | None:
    if not pattern:
        return None
    try:
        return compile_basic(pattern)
    except RegexError as error:
        raise MiError(f"Invalid regexp: {error}") from None


def _modules(ctx: Context) -> list[ModuleSourceFiles]:
    session = ctx.session
    session.ensure_symbols()
    if not session.has_symbols():
        return []
    return session.debugger.module_source_files(program_only=session.inferior.process is None)


def _entry_value(entry: SourceFileEntry) -> Value:
    return {"file": entry.file, "fullname": entry.fullname, "debug-fully-read": "true" if entry.fully_read else "false"}


def _file_list_exec_source_files(ctx: Context, args: list[str]) -> Reply:
    group = False
    part = "fullname"
    rest = list(args)
    while rest and rest[0].startswith("-"):
        option = rest.pop(0)
        if option == "--":
            break
        if option == "--group-by-objfile":
            group = True
        elif option in ("--basename", "--dirname"):
            if part not in ("fullname", option[2:]):
                raise MiError(_MI_USAGE)
            part = option[2:]
        else:
            raise MiError(f"-file-list-exec-source-files: Unknown option ``{option[1:]}''")
    if len(rest) > 1:
        raise MiError(_MI_USAGE)
    wanted = _Filter(_compiled(rest[0] if rest else ""), part)
    modules = _modules(ctx)
    if not group:
        seen: dict[tuple[str, str], Value] = {}
        for module in modules:
            for entry in module.files:
                if wanted.matches(entry):
                    seen.setdefault((entry.file, entry.fullname), _entry_value(entry))
        return [("files", list(seen.values()))]
    grouped: list[Value] = []
    for module in modules:
        state = "none" if not module.has_debug_info else "fully-read" if module.fully_read else "partially-read"
        sources = [_entry_value(entry) for entry in module.files if wanted.matches(entry)]
        grouped.append({"filename": module.objfile, "debug-info": state, "sources": sources})
    return [("files", grouped)]


def info_sources_command(ctx: Context, text: str) -> None:
    """`info sources`: per module with debug info, its files joined by commas."""
    part = "fullname"
    rest = text.strip()
    while rest.startswith("-"):
        word, _, after = rest.partition(" ")
        if word == "--":
            rest = after.strip()
            break
        if word not in ("-basename", "-dirname"):
            break
        if part != "fullname" and part != word[1:]:
            raise MiError("You cannot give both -basename and -dirname to 'info sources'.")
        part = word[1:]
        rest = after.strip()
    wanted = _Filter(_compiled(rest), part)
    modules = _modules(ctx)
    if not any(module.has_debug_info for module in modules):
        raise MiError("No symbol table is loaded.  Use the \"file\" command.")
    for module in modules:
        ctx.console(f"{module.objfile}:\n")
        if not module.has_debug_info:
            ctx.console("(Objfile has no debug information.)\n\n")
            continue
        if not module.fully_read:
            ctx.console("(Full debug information has not yet been read for this file.)\n")
        ctx.console("\n")
        names = [entry.fullname for entry in module.files if wanted.matches(entry)]
        if names:
            ctx.console(", ".join(dict.fromkeys(names)) + "\n\n")


def register(registry: MiRegistry) -> None:
    registry.add("file-list-exec-source-files", _file_list_exec_source_files)
