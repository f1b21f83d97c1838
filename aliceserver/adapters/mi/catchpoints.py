"""gdb's catchpoints (`catch syscall|fork|vfork|exec|signal|throw|catch|rethrow|load|unload`):
what each one catches, parsed from gdb's words, and how gdb names it (mention, `info
breakpoints` row, MI tuple). Their stops are in catch_stops.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aliceserver.adapters.mi.console_signals import _GDB_NUMBERS, _NUMERIC_ONLY, _linux_signals
from aliceserver.adapters.mi.output import Value
from aliceserver.adapters.mi.registry import MiError
from aliceserver.debuggers.syscall_names import SyscallTable, load_syscall_table

if TYPE_CHECKING:
    from aliceserver.adapters.mi.breakpoints import MiBreakpoint

CATCHPOINT = "catchpoint"
EXCEPTIONS = ("throw", "catch", "rethrow")
PROCESS_EVENTS = ("fork", "vfork", "exec")
LIBRARY_EVENTS = ("load", "unload")
_ADA = ("exception", "handlers", "assert")
_SUBCOMMANDS = ("assert", "catch", "exception", "exec", "fork", "handlers", "load", "rethrow", "signal",
                "syscall", "throw", "unload", "vfork")  # fmt: skip
_ADA_REFUSAL = "Unable to insert catchpoint.  Is this an Ada main program?"
_INTERNAL_SIGNALS = ("SIGTRAP", "SIGINT")  # gdb's own: `catch signal` alone leaves them

# gdb's `help catch` list, printed for a bare `catch`.
HELP = """List of catch subcommands:

catch assert -- Catch failed Ada assertions, when raised.
catch catch -- Catch an exception, when caught.
catch exception -- Catch Ada exceptions, when raised.
catch exec -- Catch calls to exec.
catch fork -- Catch calls to fork.
catch handlers -- Catch Ada exceptions, when handled.
catch load -- Catch loads of shared libraries.
catch rethrow -- Catch an exception, when rethrown.
catch signal -- Catch signals by their names and/or numbers.
catch syscall -- Catch system calls by their names, groups and/or numbers.
catch throw -- Catch an exception, when thrown.
catch unload -- Catch unloads of shared libraries.
catch vfork -- Catch calls to vfork.

Type "help catch" followed by catch subcommand name for full documentation.
Type "apropos word" to search for commands related to "word".
Type "apropos -v word" for full documentation of commands related to "word".
Command name abbreviations are allowed if unambiguous.
"""


@dataclass
class CatchSpec:
    event: str  # syscall, fork, vfork, exec, signal, throw, catch, rethrow, load, unload
    syscalls: tuple[tuple[str | None, int], ...] = ()  # (name, number); empty: every call
    signals: tuple[str, ...] = ()  # gdb's names; empty: the standard ones, or all
    all_signals: bool = False
    regex: str | None = None  # exceptions: the type; load/unload: the library's path
    last: str | None = None  # fork: the child's pid, exec: the new program (after a hit)
    located: bool = False  # an exception catchpoint whose runtime function is known

    @property
    def has_location(self) -> bool:
        """gdb gives exception catchpoints an address (the 64-bit column, thread-groups)."""
        return self.event in EXCEPTIONS and self.located


@dataclass
class SyscallNames:
    """The system call table, read once per session when a syscall catchpoint needs it."""

    table: SyscallTable | None = None

    def get(self) -> SyscallTable:
        if self.table is None:
            self.table = load_syscall_table()
        return self.table


def parse(event: str, text: str, names: SyscallNames) -> CatchSpec:
    """A catchpoint from gdb's `catch EVENT ARGS` (EVENT may be a unique prefix); MiError
    in gdb's words."""
    event = subcommand(event)
    words = text.split()
    if event == "syscall":
        return CatchSpec(event, syscalls=_syscalls(words, names.get()))
    if event == "signal":
        return _signals(words)
    if event in PROCESS_EVENTS:
        if words:
            raise MiError("Junk at end of arguments.")
        return CatchSpec(event)
    if event in EXCEPTIONS or event in LIBRARY_EVENTS:
        regex = text.strip() or None
        if regex is not None:
            try:
                re.compile(regex)
            except re.error as error:
                raise MiError(f"Invalid regexp: {error}") from None
        return CatchSpec(event, regex=regex)
    raise MiError(_ADA_REFUSAL)  # exception, handlers, assert: Ada's, and no Ada here


def subcommand(word: str) -> str:
    if word in _SUBCOMMANDS:
        return word
    found = [name for name in _SUBCOMMANDS if name.startswith(word)]
    if len(found) > 1:
        raise MiError(f'Ambiguous catch command "{word}": {", ".join(found)}.')
    if not found:
        raise MiError(f'Undefined catch command: "{word}".  Try "help catch".')
    return found[0]


def _syscalls(words: list[str], table: SyscallTable) -> tuple[tuple[str | None, int], ...]:
    found: list[tuple[str | None, int]] = []
    for word in words:
        if word.isdigit():
            found.append((table.name(int(word)), int(word)))
        elif word.startswith(("group:", "g:")):
            group = word.split(":", 1)[1]
            if group not in table.groups:
                raise MiError(f"Unknown syscall group '{group}'.")
            found += [(table.name(number), number) for number in table.groups[group]]
        elif word in table.by_name:
            found.append((word, table.by_name[word]))
        else:
            raise MiError(f"Unknown syscall name '{word}'.")
    return tuple(found)


def _signals(words: list[str]) -> CatchSpec:
    if words == ["all"]:
        return CatchSpec("signal", all_signals=True)
    known = _linux_signals()
    names: list[str] = []
    for word in words:
        if word == "all":
            raise MiError("'all' cannot be caught with other signals")
        if word.isdigit():
            if not 1 <= int(word) <= len(_GDB_NUMBERS):
                raise MiError(_NUMERIC_ONLY)
            names.append(_GDB_NUMBERS[int(word) - 1])
        elif word in known or f"SIG{word}" in known:
            names.append(word if word in known else f"SIG{word}")
        else:
            raise MiError(f"Unknown signal name '{word}'.")
    return CatchSpec("signal", signals=tuple(names))


def signal_numbers(spec: CatchSpec) -> frozenset[int]:
    """The system's numbers of the signals a signal catchpoint stops at."""
    known = _linux_signals()
    if spec.signals:
        return frozenset(known[name] for name in spec.signals)
    return frozenset(n for name, n in known.items() if spec.all_signals or name not in _INTERNAL_SIGNALS)


def catches_signal(spec: CatchSpec, name: str) -> bool:
    if spec.signals:
        return name in spec.signals
    return spec.all_signals or name not in _INTERNAL_SIGNALS


def syscall_word(name: str | None, number: int) -> str:
    return name if name is not None else str(number)


# --- how gdb names them ------------------------------------------------------------------
def mention(bp: MiBreakpoint, spec: CatchSpec) -> str:
    """What `catch ...` prints (gdb's print_mention: never "Temporary")."""
    if spec.event == "syscall":
        calls = spec.syscalls
        if not calls:
            what = "any syscall"
        elif len(calls) == 1:
            what = f"syscall {_quoted_syscall(*calls[0])}"
        else:
            what = "syscalls " + " ".join(_quoted_syscall(*call) for call in calls)
    elif spec.event == "signal":
        if spec.all_signals:
            what = "any signal"
        elif not spec.signals:
            what = "standard signals"
        else:
            what = ("signal " if len(spec.signals) == 1 else "signals ") + " ".join(spec.signals)
    else:
        what = spec.event
    return f"Catchpoint {bp.number} ({what})\n"


def _quoted_syscall(name: str | None, number: int) -> str:
    return f"'{name}' [{number}]" if name is not None else str(number)


def mi_what(spec: CatchSpec) -> str | None:
    """The `what` field of the MI tuple (absent for fork, vfork and exec before a hit)."""
    if spec.event == "syscall":
        return ", ".join(syscall_word(*call) for call in spec.syscalls) or "<any syscall>"
    if spec.event == "signal":
        return _signal_what(spec)
    if spec.event in PROCESS_EVENTS:
        return spec.last
    if spec.event in EXCEPTIONS:
        return f"exception {spec.event}"
    return f"{spec.event} of library" + (f" matching {spec.regex}" if spec.regex else "")


def _signal_what(spec: CatchSpec) -> str:
    if spec.all_signals:
        return "<any signal>"
    return " ".join(spec.signals) or "<standard signals>"


def mi_items(bp: MiBreakpoint, spec: CatchSpec) -> list[tuple[str, Value]]:
    """The MI tuple's fields after number, type, disp and enabled, in gdb's order."""
    items: list[tuple[str, Value]] = []
    what = mi_what(spec)
    if what is not None:
        items.append(("what", what))
    items.append(("catch-type", spec.event))
    if spec.event not in EXCEPTIONS or spec.located:
        items.append(("thread-groups", ["i1"]))
    if spec.event in EXCEPTIONS and spec.regex:
        items.append(("regexp", spec.regex))
    if bp.condition:
        items.append(("cond", bp.condition))
    items.append(("times", str(bp.hits)))
    if bp.ignore:
        items.append(("ignore", str(bp.ignore)))
    return items


def info_what(spec: CatchSpec) -> str:
    """The What column of `info breakpoints` (gdb's print_one; a few end with a space)."""
    if spec.event == "syscall":
        calls = spec.syscalls
        word = "syscalls" if len(calls) > 1 else "syscall"
        return f'{word} "{", ".join(syscall_word(*call) for call in calls) or "<any syscall>"}" '
    if spec.event == "signal":
        word = "signals" if len(spec.signals) > 1 else "signal"
        return f'{word} "{_signal_what(spec)}" '
    if spec.event in ("fork", "vfork"):
        return spec.event + (f", process {spec.last} " if spec.last else "")
    if spec.event == "exec":
        return "exec" + (f', program "{spec.last}" ' if spec.last else "")
    if spec.event in EXCEPTIONS:
        return f"exception {spec.event}"
    return f"{spec.event} of library" + (f" matching {spec.regex}" if spec.regex else "")


def info_extra(spec: CatchSpec) -> str:
    """The lines under a catchpoint's row: an exception regexp (gdb's `matching:`)."""
    if spec.event in EXCEPTIONS and spec.regex:
        return f"\tmatching: {spec.regex}\n"
    return ""
