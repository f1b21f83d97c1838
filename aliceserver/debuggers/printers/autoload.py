"""gdb's auto-load settings for the printer scripts of a program's images, and its
security rule: a script runs only from a directory of `auto-load safe-path` (gdb's default
`$debugdir:$datadir/auto-load`); any other is declined with gdb's warning (and, once a
session, its advice), so a `PROG-gdb.py` left beside a downloaded program runs nothing.

One `AutoLoad` per debugging session, owned by the engine; front ends change it in place
(MI's `set auto-load ...` and `add-auto-load-safe-path`, DAP's `autoLoadSafePath`, the
CLI's `--auto-load-safe-path`). Light to import: no printer code.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

# gdb's defaults: `show debug-file-directory`, `show data-directory`.
DEBUG_FILE_DIRECTORY = "/usr/lib/debug"
GDB_DATA_DIRECTORY = "/usr/share/gdb"
DEFAULT_PATH = "$debugdir:$datadir/auto-load"  # both safe-path's and scripts-directory's


@dataclass
class ScriptRecord:
    """One row of gdb's `info auto-load python-scripts`."""

    loaded: bool
    name: str  # an inline script's own name, or the script's path
    full_path: str | None = None  # where a named script was found, if not its name
    inline: bool = False  # listed after the files, as gdb's table


@dataclass
class AutoLoad:
    safe_path: str = DEFAULT_PATH
    scripts_directory: str = DEFAULT_PATH
    python_scripts: bool = True
    records: dict[str, ScriptRecord] = field(default_factory=dict)
    # The scripts declined as each image was read: they stay declined until the program is
    # read again (`file`), whatever the safe path says since. (gdb also reads a library
    # again at each run; here its verdict stays until `file`.)
    declined: dict[str, set[str]] = field(default_factory=dict)
    _warned: set[str] = field(default_factory=set)
    _advised: bool = False
    _told_missing: bool = False

    def add_safe_path(self, directories: str) -> None:
        """gdb's add-auto-load-safe-path: appended, ':' between."""
        self.safe_path = f"{self.safe_path}:{directories}"

    def read_again(self) -> None:
        """A program is read anew (`file`): its images' scripts are judged again."""
        self.declined.clear()

    def script_directories(self) -> list[str]:
        """Where `<dir>/<real path of the image>-gdb.py` is looked for."""
        return [part for part in _expanded(self.scripts_directory) if part]

    def is_safe(self, filename: str) -> bool:
        """gdb's file_is_auto_load_safe, without its warning: the name as given, then its
        real path, matched against each directory (and the real path of each)."""
        patterns = self._patterns()
        if any(_in_pattern(filename, pattern) for pattern in patterns):
            return True
        real = os.path.realpath(filename)
        return real != filename and any(_in_pattern(real, pattern) for pattern in patterns)

    def declined_notes(self, filename: str) -> list[tuple[str, str]]:
        """gdb's warning for a declined file (once per file here) and, the first time in
        the session, its advice: (category, text) pieces, "warning" for gdb's error stream
        and "console" for its output."""
        real = os.path.realpath(filename)
        if real in self._warned:
            return []
        self._warned.add(real)
        notes = [("warning", f'warning: File "{real}" auto-loading has been declined by your '
                             f"`auto-load safe-path' set to \"{self.safe_path}\".\n")]  # fmt: skip
        if not self._advised:
            self._advised = True
            init = home_init_file()
            notes.append(("console", "To enable execution of this file add\n"
                                     f"\tadd-auto-load-safe-path {real}\n"
                                     f'line to your configuration file "{init}".\n'
                                     "To completely disable this security protection add\n"
                                     "\tset auto-load safe-path /\n"
                                     f'line to your configuration file "{init}".\n'
                                     "For more information about this security protection see the\n"
                                     '"Auto-loading safe path" section in the GDB manual.  E.g., run from the shell:\n'
                                     '\tinfo "(gdb)Auto-loading safe path"\n'))  # fmt: skip
        return notes

    def record(self, loaded: bool, name: str, full_path: str | None = None, *, inline: bool = False) -> None:
        """A script judged (run, declined or missing), for `info auto-load python-scripts`."""
        key = ("text:" if inline else "file:") + name
        self.records[key] = ScriptRecord(loaded, name, full_path if full_path != name else None, inline)

    def missing_note(self, image: str, offset: int) -> list[tuple[str, str]]:
        """gdb's warning, once a session, that a script the image names is not installed."""
        if self._told_missing:
            return []
        self._told_missing = True
        return [("warning", f"warning: Missing auto-load script at offset {offset} in section .debug_gdb_scripts\n"
                            f"of file {image}.\n"
                            "Use `info auto-load python-scripts [REGEXP]' to list them.\n")]  # fmt: skip

    def _patterns(self) -> list[str]:
        patterns = _expanded(self.safe_path)
        return patterns + [real for p in patterns if p and (real := os.path.realpath(p)) != p]


def _expanded(value: str) -> list[str]:
    """gdb's auto_load_expand_dir_vars and tilde_expand of each directory."""
    parts = value.split(":")
    out = []
    for part in parts:
        part = re.sub(r"\$datadir(?=/|$)", GDB_DATA_DIRECTORY, part)
        part = re.sub(r"\$debugdir(?=/|$)", DEBUG_FILE_DIRECTORY, part)
        out.append(os.path.expanduser(part))
    return out


def _in_pattern(filename: str, pattern: str) -> bool:
    """gdb's filename_is_in_pattern: the file, or a directory above it, matches the
    pattern (fnmatch with FNM_FILE_NAME: no wildcard crosses a '/'); an empty pattern
    (`/`, or nothing between two ':') matches every file."""
    pattern = pattern.rstrip("/")
    if not pattern:
        return True
    matcher = _glob(pattern)
    name = filename
    while True:
        name = name.rstrip("/")
        if not name:
            return False
        if matcher.fullmatch(name):
            return True
        name = name[: name.rfind("/") + 1]


def _glob(pattern: str) -> re.Pattern[str]:
    """fnmatch(3) with FNM_FILE_NAME and FNM_NOESCAPE as a regular expression."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := _bracket_end(pattern, i)) > 0:
            body = pattern[i + 1 : end]
            negated = body[:1] in ("!", "^")
            body = body[1:] if negated else body
            out.append(("[^/" if negated else "[") + body.replace("\\", "\\\\").replace("[", "\\[") + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out))


def _bracket_end(pattern: str, start: int) -> int:
    """The index of the `]` closing the bracket expression at `start`, or -1 (a literal `[`)."""
    i = start + 1
    if i < len(pattern) and pattern[i] in "!^":
        i += 1
    if i < len(pattern) and pattern[i] == "]":  # a leading ] is a member
        i += 1
    end = pattern.find("]", i)
    return -1 if end < 0 or "/" in pattern[start:end] else end


def home_init_file() -> str:
    """The file gdb names in its advice: the user's init file where one exists, else
    where gdb 13 would look first (`$XDG_CONFIG_HOME/gdb/gdbinit`, `~/.config/gdb/gdbinit`)."""
    home = os.environ.get("HOME")
    if not home:
        return "$HOME/.gdbinit"
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    config = os.path.join(xdg, "gdb", "gdbinit")
    dotted = os.path.join(home, ".gdbinit")
    if not os.path.isfile(config) and os.path.isfile(dotted):
        return dotted
    return config
