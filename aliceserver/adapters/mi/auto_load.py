"""gdb's auto-load commands over the engine's auto-load settings (debuggers/printers/
autoload.py, where the safe path is enforced): `set/show auto-load ...` (the settings are
settings.py's, given to the engine by `sync`), `set auto-load off`, `add-auto-load-safe-path`,
`add-auto-load-scripts-directory`, `info auto-load`, and gdb's warnings at reading a
program whose scripts the safe path declines.

aliceserver loads no gdb command scripts (`PROG-gdb.gdb`), no `./.gdbinit` and no
libthread_db: those three settings are off, and only off is accepted."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.registry import CliRegistry, Context, MiError, Reply
from aliceserver.errors import AliceError

if TYPE_CHECKING:
    from aliceserver.adapters.mi.session import MiSession

SAFE_PATH, SCRIPTS_DIRECTORY, PYTHON_SCRIPTS = "auto-load safe-path", "auto-load scripts-directory", "auto-load python-scripts"
_SUBCOMMANDS = ("gdb-scripts", "libthread-db", "local-gdbinit", "python-scripts", "safe-path", "scripts-directory")


def sync(session: MiSession) -> None:
    """The engine's auto-load settings made the session's."""
    auto_load = session.debugger.auto_load
    settings = session.settings
    auto_load.safe_path = settings.get(SAFE_PATH)
    auto_load.scripts_directory = settings.get(SCRIPTS_DIRECTORY)
    auto_load.python_scripts = settings.get(PYTHON_SCRIPTS) == "on"


def set_all(ctx: Context, words: list[str]) -> bool:
    """`set auto-load VALUE` where VALUE names no subcommand: gdb's set_auto_load_cmd, which
    takes only off (or 0, no, disable) and turns every auto-load switch off (True);
    False: a subcommand's `set`."""
    if not words or words[0] != "auto-load":
        return False
    value = " ".join(words[1:])
    if words[1:] and any(name.startswith(words[1]) for name in _SUBCOMMANDS):
        return False
    if not value or not any(word.startswith(value) for word in ("off", "0", "no", "disable")):
        raise MiError("Valid is only global 'set auto-load no'; otherwise check the auto-load sub-commands.")
    ctx.session.settings.set(PYTHON_SCRIPTS, "off")  # the other switches are off already
    sync(ctx.session)
    return True


def _add_safe_path(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("Directory argument required.\n"
                      "Use 'set auto-load safe-path /' for disabling the auto-load safe-path security.")
    _append(ctx.session, SAFE_PATH, text.strip())
    return None


def _add_scripts_directory(ctx: Context, text: str) -> Reply:
    if not text.strip():
        raise MiError("Directory argument required.")
    _append(ctx.session, SCRIPTS_DIRECTORY, text.strip())
    return None


def _append(session: MiSession, name: str, directories: str) -> None:
    session.settings.set(name, f"{session.settings.get(name)}:{directories}")
    sync(session)


def tell_refusals(session: MiSession, path: str, log: Callable[[str], None], console: Callable[[str], None]) -> None:
    """gdb's warnings as it reads the program at `path`: its scripts the safe path declines,
    the ones it names that are missing. The scripts allowed run when values first need them."""
    from aliceserver.debuggers.printers.loader import judged

    session.debugger.auto_load.read_again()
    try:
        _, notes = judged(path, session.debugger.source_paths.script_search_path(), session.debugger.auto_load)
    except OSError:  # unreadable: gdb's own error about the file comes elsewhere
        return
    for category, text in notes:
        (log if category == "warning" else console)(text)


def _info(ctx: Context, text: str) -> None:
    """`info auto-load [SUBCOMMAND [REGEXP]]`."""
    word, _, rest = text.strip().partition(" ")
    shown = {"gdb-scripts": _gdb_scripts, "libthread-db": _libthread_db, "local-gdbinit": _local_gdbinit,
             "python-scripts": _python_scripts}  # fmt: skip
    if not word:
        for name, show in shown.items():
            ctx.console(f"{name}:  ")
            show(ctx, None)
        return
    matches = [name for name in shown if name.startswith(word)]
    if len(matches) != 1:
        raise MiError(f'Undefined info auto-load command: "{text.strip()}".  Try "help info auto-load".')
    shown[matches[0]](ctx, rest.strip())


def _gdb_scripts(ctx: Context, pattern: str | None) -> None:
    _no_scripts(ctx, pattern)


def _libthread_db(ctx: Context, pattern: str | None) -> None:
    ctx.console("No auto-loaded libthread-db.\n")


def _local_gdbinit(ctx: Context, pattern: str | None) -> None:
    local = os.path.join(ctx.session.inferior.cwd or os.getcwd(), ".gdbinit")
    ctx.console(f'Local .gdbinit file "{local}" has not been loaded.\n' if os.path.isfile(local)
                else "Local .gdbinit file was not found.\n")  # fmt: skip


def _python_scripts(ctx: Context, pattern: str | None) -> None:
    from aliceserver.adapters.mi.posix_regex import basic

    _load_now(ctx.session)
    try:
        matcher = basic(pattern) if pattern else None
    except Exception as error:  # re.error, or the translation's own
        raise MiError(f"Invalid regexp: {error}") from None
    records = [r for r in ctx.session.debugger.auto_load.records.values()
               if matcher is None or matcher.search(r.name)]  # fmt: skip
    if not records:
        _no_scripts(ctx, pattern)
        return
    if pattern is None:  # under `info auto-load`: the table starts on a line of its own
        ctx.console("\n")
    rows = [f"{'Loaded':<7} {'Script':<70} \n"]
    for script in sorted(records, key=lambda r: (r.inline, r.name)):
        rows.append(f"{'Yes' if script.loaded else 'No':<7} {script.name:<70} \n")
        if script.full_path is not None:
            rows.append(f"\tfull name: {script.full_path}\n")
    ctx.console("".join(rows))


def _no_scripts(ctx: Context, pattern: str | None) -> None:
    ctx.console(f"No auto-load scripts matching {pattern}.\n" if pattern else "No auto-load scripts.\n")


def _load_now(session: MiSession) -> None:
    """The scripts of the stopped program's images loaded now (gdb loaded each as it read
    the image; ours wait for the first value that needs them)."""
    inferior = session.inferior
    if inferior.process is None or inferior.running or inferior.selected_tid is None:
        return
    try:
        session.debugger.run_python("", None, inferior.selected_tid, 0)  # loads them first
    except AliceError:  # no Python API here: nothing to load
        pass


def register(registry: CliRegistry) -> None:
    registry.add("add-auto-load-safe-path", _add_safe_path)
    registry.add("add-auto-load-scripts-directory", _add_scripts_directory)


INFO = {"auto-load": _info}
