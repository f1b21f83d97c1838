"""gdb's `handle SIGNAL... ACTION...` and `info signals [SIGNAL]` (infrun.c's tables).

Words are taken left to right: a signal (gdb's name, `all`, or one of gdb's numbers 1-15,
`N-M`) is added to the set, an action (stop, nostop, print, noprint, pass, nopass, ignore,
noignore, or a prefix gdb accepts) applies to every signal named before it. The table is
printed only to a person (from_tty), in gdb's columns.
"""

from __future__ import annotations

import re
import signal as signal_module

from aliceserver.adapters.mi.notify import signal_meaning
from aliceserver.adapters.mi.queries import query
from aliceserver.adapters.mi.registry import Context, MiError, Reply
from aliceserver.debuggers.gdb_signals import gdb_signal_table
from aliceserver.debuggers.model import SignalPolicy
from aliceserver.errors import Unsupported

HEADER = "Signal        Stop\tPrint\tPass to program\tDescription\n"
FOOTER = '\nUse the "handle" command to change these tables.\n'
# gdb numbers the first 15 signals its own way (signals.def), not the way Linux does.
_GDB_NUMBERS = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGEMT", "SIGFPE",
                "SIGKILL", "SIGBUS", "SIGSEGV", "SIGSYS", "SIGPIPE", "SIGALRM", "SIGTERM")  # fmt: skip
_DEBUGGER_OWN = ("SIGTRAP", "SIGINT")  # gdb asks before changing them; `all` leaves them
# (name, minimum length of a prefix gdb accepts, what it sets): (stop, print, pass) or None
_ACTIONS: tuple[tuple[str, int, tuple[bool | None, bool | None, bool | None]], ...] = (
    ("stop", 1, (True, True, None)), ("ignore", 1, (None, None, False)), ("print", 2, (None, True, None)),
    ("pass", 2, (None, None, True)), ("nostop", 3, (False, None, None)), ("noignore", 3, (None, None, True)),
    ("noprint", 4, (False, False, None)), ("nopass", 4, (None, None, False)),
)  # fmt: skip
# gdb's nostop noprint signals that Linux has not (infrun's defaults); Linux's are the engine's
_QUIET_ELSEWHERE = ("SIGPOLL", "SIGWAITING", "SIGLWP", "SIGCANCEL", "SIGPRIO", "SIGLIBRT")
_NUMERIC_ONLY = 'Only signals 1-15 are valid as numeric signals.\nUse "info signals" for a list of symbolic signals.'


def _linux_signals() -> dict[str, int]:
    """gdb's names of this system's signals: SIGHUP..SIGSYS (gdb has no SIGSTKFLT), SIG32..SIG64."""
    names = {s.name: int(s) for s in signal_module.Signals if int(s) < 32 and s.name != "SIGSTKFLT"}
    names.update({f"SIG{n}": n for n in range(32, signal_module.SIGRTMAX + 1)})
    return names


def _by_gdb_number(number: int) -> str:
    if not 1 <= number <= len(_GDB_NUMBERS):
        raise MiError(_NUMERIC_ONLY)
    return _GDB_NUMBERS[number - 1]


def _system_number(name: str) -> int:
    number = _linux_signals().get(name)
    if number is None:
        raise Unsupported(f"{name} is not a signal of this system (Linux).")
    return number


def policy_of(ctx: Context, name: str) -> SignalPolicy:
    """What `handle` set for the signal gdb calls `name`: the engine's for one of this
    system's, else the session's (SIGEMT and the like: shown, never met)."""
    number = _linux_signals().get(name)
    if number is not None:
        return ctx.session.debugger.signal_policy(number)
    kept = ctx.session.foreign_signals.get(name)
    if kept is not None:
        return kept
    quiet = name in _QUIET_ELSEWHERE
    return SignalPolicy(stop=not quiet, pass_to_program=True, print_=not quiet)


def row(ctx: Context, name: str) -> str:
    """One line of gdb's table: the name padded to 13, then tab-separated columns."""
    policy = policy_of(ctx, name)
    yes = {True: "Yes", False: "No"}
    return (f"{name:<13} {yes[policy.stop]}\t{yes[policy.print_]}\t{yes[policy.pass_to_program]}\t\t"
            f"{signal_meaning(name)}\n")


def info_signals(ctx: Context, text: str) -> None:
    """`info signals` (`info handle`): the whole table, or one signal's line."""
    word = text.strip()
    table = gdb_signal_table()
    if not word:
        ctx.console(HEADER + "\n" + "".join(row(ctx, name) for name in table) + FOOTER)
        return
    if word in table:
        name = word
    elif re.fullmatch(r"\d+", word):
        name = _by_gdb_number(int(word))
    else:  # gdb evaluates anything else as an expression giving a number
        raise MiError(f'No symbol "{word}" in current context.')
    ctx.console(HEADER + row(ctx, name))


def handle(ctx: Context, text: str) -> Reply:
    """`handle SIGNAL... ACTION...`."""
    words = text.split()
    if not words:
        raise MiError("Argument required (signal to handle).")
    table = gdb_signal_table()
    chosen: list[str] = []
    for word in words:
        action = next((sets for name, least, sets in _ACTIONS
                       if len(word) >= least and name.startswith(word)), None)
        if action is not None:
            for name in chosen:
                _apply(ctx, name, action)
            continue
        named = _signals_named(word, table)
        for name in named:
            if name in chosen:
                continue
            if name in _DEBUGGER_OWN:
                if "all".startswith(word):
                    continue
                if not query(ctx, f"{name} is used by the debugger.\nAre you sure you want to change it? "):
                    ctx.console("Not confirmed, unchanged.\n")
                    continue
            chosen.append(name)
    if chosen and ctx.from_tty:  # in gdb's order, not the order they were named in
        ctx.console(HEADER + "".join(row(ctx, name) for name in table if name in chosen))
    return None


def _signals_named(word: str, table: tuple[str, ...]) -> list[str]:
    if "all".startswith(word):
        return list(table)
    match = re.fullmatch(r"(\d+)(?:-(\d+))?", word)
    if match:
        first, last = int(match.group(1)), int(match.group(2) or match.group(1))
        first, last = min(first, last), max(first, last)
        return [_by_gdb_number(n) for n in range(first, last + 1)]
    if word in table:
        return [word]
    raise MiError(f'Unrecognized or ambiguous flag word: "{word}".')


def _apply(ctx: Context, name: str, sets: tuple[bool | None, bool | None, bool | None]) -> None:
    policy = policy_of(ctx, name)
    stop, print_, pass_ = sets
    changed = SignalPolicy(
        stop=policy.stop if stop is None else stop,
        pass_to_program=policy.pass_to_program if pass_ is None else pass_,
        print_=policy.print_ if print_ is None else print_,
    )
    number = _linux_signals().get(name)
    if number is None:
        ctx.session.foreign_signals[name] = changed
    else:
        ctx.session.debugger.set_signal_policy(number, changed)
