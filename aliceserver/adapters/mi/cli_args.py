"""gdb's command line: the flags Emacs, Vim termdebug and MI tools pass to gdb."""

from __future__ import annotations

import os
from dataclasses import dataclass, field

_VALUED = {
    "i": "interpreter", "interpreter": "interpreter", "iex": "iex", "init-eval-command": "iex",
    "ex": "ex", "eval-command": "ex", "x": "x", "command": "x", "ix": "ix", "init-command": "ix",
    "tty": "tty", "t": "tty", "p": "pid", "pid": "pid", "c": "core", "core": "core", "cd": "cd", "d": "directory",
    "directory": "directory", "s": "symbols", "se": "se", "e": "exec", "exec": "exec", "symbols": "symbols",
    "data-directory": "data-directory", "D": "data-directory", "l": "baud", "b": "baud",
    "log-file": "log-file", "log-level": "log-level", "cache-dir": "cache-dir",
}  # fmt: skip
_FLAGS = {
    "q": "quiet", "quiet": "quiet", "silent": "quiet", "nx": "nx", "n": "nx", "nh": "nh",
    "fullname": "fullname", "f": "fullname", "version": "version", "v": "version", "batch": "batch",
    "readnow": "readnow", "readnever": "readnever", "nw": "nw", "nowindows": "nw", "w": "w",
    "windows": "w", "write": "write", "args": "args", "help": "help", "h": "help",
    "return-child-result": "return-child-result", "enable-shell": "enable-shell", "statistics": "statistics",
    "configuration": "configuration",
}  # fmt: skip
_INTERPRETERS = ("mi", "mi1", "mi2", "mi3", "mi4", "console", "cli")


class UsageError(Exception):
    """A command line gdb would refuse; the message is gdb's."""


@dataclass
class GdbArgs:
    interpreter: str | None = None
    quiet: bool = False
    program: str | None = None
    args: list[str] = field(default_factory=list)
    pid: int | None = None
    core: str | None = None  # a core file (PROG CORE, -c CORE): opened with `core-file`
    tty: str | None = None
    before: list[str] = field(default_factory=list)  # -iex, -ix (as "source FILE")
    after: list[str] = field(default_factory=list)  # -ex, -x
    cwd: str | None = None
    version: bool = False
    help: bool = False
    batch: bool = False
    enable_shell: bool = False
    fullname: bool = False  # -fullname (-f): gdb's annotation level 1, for Emacs
    write: bool = False  # -write: gdb's `set write on` (refused: see settings_policy)
    log_file: str | None = None
    log_level: str | None = None
    cache_dir: str | None = None  # where the indexes are kept (no gdb option: gdb's is a setting)


def looks_like_gdb(argv: list[str]) -> bool:
    """Whether `python -m aliceserver ARGS` is a gdb-style invocation (not a subcommand)."""
    if not argv:
        return False
    first = argv[0]
    if first in ("demo",) or first.startswith("--adapter"):
        return False
    for arg in argv:
        if arg == "--adapter" or arg.startswith("--adapter="):
            return False
    if not first.startswith("-"):
        return True
    for arg in argv:
        name = arg.lstrip("-").split("=", 1)[0]
        if name in ("log-file", "log-level", "cache-dir", "port", "host"):
            continue  # also the DAP front end's options
        if name in _VALUED or (name in _FLAGS and name not in ("version", "v", "help", "h")):
            return True
    return False


def parse(argv: list[str]) -> GdbArgs:
    result = GdbArgs()
    positional: list[str] = []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            positional += argv[i + 1 :]
            break
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            i += 1
            continue
        body = arg.lstrip("-")
        name, equals, inline = body.partition("=")
        if name in _FLAGS and not equals:
            flag = _FLAGS[name]
            i += 1
            if flag == "args":
                rest = argv[i:]
                if not rest:
                    raise UsageError("option '--args' requires an argument")
                positional.append(rest[0])
                result.args = rest[1:]
                break
            _flag(result, flag)
            continue
        if name in _VALUED:
            if equals:
                value = inline
                i += 1
            elif i + 1 < len(argv):
                value = argv[i + 1]
                i += 2
            else:
                raise UsageError(f"option '{arg}' requires an argument")
            _valued(result, _VALUED[name], value)
            continue
        raise UsageError(f"unrecognized option '{arg}'")
    if positional:
        result.program = positional[0]
    if len(positional) > 1:
        second = positional[1]
        if second.isdigit() and not os.path.isfile(second):  # gdb: a core first, then a pid
            result.pid = int(second)
        else:
            result.core = second
    if len(positional) > 2:
        raise UsageError(f"excess command line arguments ignored. ({' '.join(positional[2:])})")
    return result


def _flag(result: GdbArgs, flag: str) -> None:
    if flag == "quiet":
        result.quiet = True
    elif flag == "version":
        result.version = True
    elif flag == "help":
        result.help = True
    elif flag == "batch":
        result.batch = result.quiet = True
    elif flag == "enable-shell":
        result.enable_shell = True
    elif flag == "fullname":
        result.fullname = True
    elif flag == "write":
        result.write = True
    # -nx, -nh, -readnow, -nw...: accepted; nothing to do here.


def _valued(result: GdbArgs, option: str, value: str) -> None:
    if option == "interpreter":
        if value not in _INTERPRETERS:
            raise UsageError(f"Interpreter `{value}' unrecognized")
        result.interpreter = value
    elif option == "iex":
        result.before.append(value)
    elif option == "ix":
        result.before.append(f"source {value}")
    elif option == "ex":
        result.after.append(value)
    elif option == "x":
        result.after.append(f"source {value}")
    elif option == "tty":
        result.tty = value
    elif option == "pid":
        if not value.isdigit():
            raise UsageError(f"Illegal process-id: {value}.")
        result.pid = int(value)
    elif option == "core":
        result.core = value
    elif option == "cd":
        result.cwd = value
    elif option in ("exec", "symbols", "se"):
        result.program = value
    elif option == "log-file":
        result.log_file = value
    elif option == "log-level":
        result.log_level = value
    elif option == "cache-dir":
        result.cache_dir = value


USAGE = """\
This is aliceserver, a debugger with gdb's command line and interfaces.
Usage:

    aliceserver [options] [executable-file [process-id]]
    aliceserver [options] --args executable-file [inferior-arguments ...]

Selection of debuggee and its files:

  --args             Arguments after executable-file are passed to inferior.
  --pid=PID          Attach to running process PID.

Initial commands and command files:

  --command=FILE, -x Execute gdb commands from FILE.
  --init-command=FILE, -ix
                     Like -x but execute commands before loading inferior.
  --eval-command=COMMAND, -ex
                     Execute a single gdb command.
  --init-eval-command=COMMAND, -iex
                     Like -ex but before loading inferior.
  --nh, --nx         Accepted; no init files are read.

Output and user interface control:

  --interpreter=INTERP
                     Select a specific interpreter / user interface (mi, mi2, mi3, mi4, console).
  --tty=TTY          Use TTY for input/output by the program being debugged.
  -q, --quiet, --silent
                     Do not print version number on startup.
  --enable-shell     Allow the `shell' command.
  --cache-dir=DIR    Keep the debug info indexes in DIR (default $ALICESERVER_CACHE_DIR,
                     else $XDG_CACHE_HOME/aliceserver/index; `aliceserver cache info|clear').
  --version          Print version information and then exit.
"""
