"""gdb's commands about targets, files and overlays that a native Linux debugger has
little use for, answered as gdb's native target answers them: `target` (its list, `exec`,
`native`), `unset` (its list, `environment` with no name), `file`/`exec-file` with no
name, `load`, `section`, `add-symbol-file`, `info terminal` and `overlay`. What gdb would
do and we do not (load a program into a stub, move a section, add a symbol file) is
refused by name."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING
from weakref import WeakKeyDictionary

from aliceserver.adapters.mi import commands_misc as misc
from aliceserver.adapters.mi.buildargv import build_argv
from aliceserver.adapters.mi.queries import query
from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.adapters.mi.remote_commands import remote_held
from aliceserver.adapters.mi.screen_env import inferior_environment, set_variable

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

_HELP_TAIL = ('Type "apropos word" to search for commands related to "word".\n'
              'Type "apropos -v word" for full documentation of commands related to "word".\n'
              "Command name abbreviations are allowed if unambiguous.\n")

# gdb 13's subcommands of these prefixes on x86-64 Linux, with their one-line docs.
_LISTS: dict[str, tuple[tuple[str, str], ...]] = {
    "target": (
        ("core", "Use a core file as a target."),
        ("ctf", "(Use a CTF directory as a target."),
        ("exec", "Use an executable file as a target."),
        ("extended-remote", "Use a remote computer via a serial line, using a gdb-specific protocol."),
        ("native", 'Native process (started by the "run" command).'),
        ("record-btrace", "Collect control-flow trace and provide the execution history."),
        ("record-core", "Log program while executing and replay execution from log."),
        ("record-full", "Log program while executing and replay execution from log."),
        ("remote", "Use a remote computer via a serial line, using a gdb-specific protocol."),
        ("tfile", "Use a trace file as a target."),
    ),
    "unset": (
        ("environment", "Cancel environment variable VAR for the program."),
        ("exec-wrapper", "Disable use of an execution wrapper."),
        ("substitute-path", "Delete one or all substitution rules rewriting the source directories."),
        ("tdesc", "Unset target description specific variables."),
    ),
    "overlay": (
        ("auto", "Enable automatic overlay debugging."),
        ("list-overlays", "List mappings of overlay sections."),
        ("load-target", "Read the overlay mapping state from the target."),
        ("manual", "Enable overlay debugging."),
        ("map-overlay", "Assert that an overlay section is mapped."),
        ("off", "Disable overlay debugging."),
        ("unmap-overlay", "Assert that an overlay section is unmapped."),
    ),
}


def subcommand_list(prefix: str) -> str:
    """gdb's help_list of a prefix command typed alone."""
    rows = "".join(f"{prefix} {name} -- {doc}\n" for name, doc in _LISTS[prefix])
    return (f"List of {prefix} subcommands:\n\n{rows}\n"
            f'Type "help {prefix}" followed by {prefix} subcommand name for full documentation.\n{_HELP_TAIL}')


def target_native(ctx: Context) -> Reply:
    """`target native`: the target `run` uses anyway; gdb's word to a person."""
    if ctx.session.inferior.process is not None:
        raise MiError('"target native" with a live process is not supported by aliceserver.')
    if ctx.from_tty:
        ctx.console('Done.  Use the "run" command to start a process.\n')
    return None


def exec_file(ctx: Context, text: str, symbols: bool = False) -> Reply:
    """`exec-file`, `target exec` and (`symbols`) `file`: a name loads that program; none
    forgets the program, as gdb's exec_file_attach and symbol_file_clear say it."""
    words = build_argv(text)  # an unclosed quote runs to the end, as in gdb's buildargv
    path = words[0] if words else ""
    session = ctx.session
    if path:
        misc.set_program(ctx, path, announce=ctx.from_tty)
        return None
    program = session.inferior.program
    if ctx.from_tty:
        ctx.console("No executable file now.\n")
    if symbols:
        if program is not None and ctx.from_tty and not query(ctx, f"Discard symbol table from `{program}'? "):
            raise MiError("Not confirmed.")
        if ctx.from_tty:
            ctx.console("No symbol file now.\n")
    misc.set_program(ctx, None)
    return None


def unset(ctx: Context, text: str) -> bool:
    """`unset` alone (gdb's list) and `unset environment` with no name (all of it, asked
    first of a person); False: another `unset` the caller handles."""
    words = text.split()
    if not words:
        ctx.console(subcommand_list("unset"))
        return True
    if len(words) == 1 and words[0] in ("environment", "env"):
        if not ctx.from_tty or query(ctx, "Delete all environment variables? "):
            changes = ctx.session.inferior.env
            for name in inferior_environment(ctx.session.host_env, changes):
                set_variable(changes, name, None)
        return True
    return False


def target_name(ctx: Context) -> str:
    """The name gdb's tcomplain gives the target on top: a core's, a live process's (gdb's
    thread layer over it), the program file's, or None's (nothing loaded)."""
    inferior = ctx.session.inferior
    if inferior.core is not None:
        return "core"
    if inferior.process is not None:
        return "multi-thread"
    return "exec" if inferior.program else "None"


def _no_reverse(ctx: Context, text: str) -> Reply:
    """reverse-step and its kin: no target here runs backwards (gdb's words where it has
    no record of the execution either)."""
    if remote_held(ctx.session) is not None:
        raise MiError("Target remote does not support this command.")
    raise MiError(f"Target {target_name(ctx)} does not support this command.")


def _load(ctx: Context, text: str) -> Reply:
    if remote_held(ctx.session) is not None:  # gdb would write the program into the stub
        raise MiError('"load" is not supported by aliceserver.')
    if ctx.session.inferior.program is None and not text.strip():
        raise MiError('No executable file specified.\nUse the "file" or "exec-file" command.')
    raise MiError(f"You can't do that when your target is `{target_name(ctx)}'")


def _section(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("Must specify section name and its virtual address")
    name = text.split()[0]
    if name not in _section_names(ctx):
        raise MiError(f"Section {name} not found")
    raise MiError('"section" is not supported by aliceserver.')  # gdb would move it


def _add_symbol_file(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("add-symbol-file takes a file name and an address")
    raise MiError('"add-symbol-file" is not supported by aliceserver.')


def info_terminal(ctx: Context, text: str) -> None:
    if ctx.session.inferior.process is None:  # gdb's words, not an error
        ctx.console("No saved terminal information.\n")
        return
    if not sys.stdin.isatty():  # gdb's child_terminal_info: only a terminal gdb controls
        ctx.console("This GDB does not control a terminal.\n")
        return
    raise MiError('"info terminal" at a terminal is not supported by aliceserver.')


# --- overlays: a Linux program has no overlay sections (each is at its load address) ----
_OVERLAY_STATE: WeakKeyDictionary[MiSession, str] = WeakKeyDictionary()  # gdb's overlay_debugging


def _overlay(ctx: Context, text: str) -> Reply:
    word, _, rest = text.strip().partition(" ")
    if not word:
        ctx.console(subcommand_list("overlay"))
        return None
    names = [name for name, _doc in _LISTS["overlay"]]
    found = [name for name in names if name.startswith(word)]
    if word in names:
        found = [word]
    if not found:
        raise MiError(f'Undefined overlay command: "{word}".  Try "help overlay".')
    if len(found) > 1:
        raise MiError(f'Ambiguous overlay command "{text.strip()}": {", ".join(found)}.')
    name, rest = found[0], rest.strip()
    key = ctx.session
    if name in ("auto", "manual", "off"):
        _OVERLAY_STATE[key] = name
    elif name == "list-overlays":
        ctx.console("No sections are mapped.\n")
    elif name == "load-target":
        raise MiError("This target does not know how to read its overlay state.")
    else:
        _map(ctx, name, rest, _OVERLAY_STATE.get(key, "off"))
    return None


def _map(ctx: Context, name: str, section: str, state: str) -> None:
    if state == "off":
        raise MiError("Overlay debugging not enabled.  Use either the 'overlay auto' or\nthe 'overlay manual' command.")
    if not section:
        raise MiError("Argument required: name of an overlay section")
    if name == "unmap-overlay" and section in _section_names(ctx):
        raise MiError(f"Section {section} is not mapped")  # gdb's unmap looks at every section
    raise MiError(f"No overlay section called {section}")


def _section_names(ctx: Context) -> set[str]:
    from aliceserver.adapters.mi.elf_sections import file_sections

    program = ctx.session.inferior.program
    if program is None:
        return set()
    try:
        return {section.name for section in file_sections(program) if section.alloc}
    except OSError:
        return set()


def register(registry: CliRegistry) -> None:
    for name, *aliases in (("reverse-step", "rs"), ("reverse-next", "rn"), ("reverse-stepi", "rsi"),
                           ("reverse-nexti", "rni"), ("reverse-continue", "rc"), ("reverse-finish",)):  # fmt: skip
        registry.add(name, _no_reverse, *aliases)
    registry.add("load", _load)
    registry.add("section", _section)
    registry.add("add-symbol-file", _add_symbol_file)
    registry.add("overlay", _overlay, "ov", "ovly")
