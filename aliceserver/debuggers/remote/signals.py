"""gdb's own signal numbers (include/gdb/signals.def), which the remote protocol carries,
to and from this host's: SIGUSR1 is 30 on the wire and 10 on Linux x86-64."""

from __future__ import annotations

import signal as signal_module

# signals.def's names, numbers 1-44; then real-time 33-63 as 45-75, 32 as 77, 64-127 as 78-141.
_NAMED = ("SIGHUP SIGINT SIGQUIT SIGILL SIGTRAP SIGABRT SIGEMT SIGFPE SIGKILL SIGBUS SIGSEGV "
          "SIGSYS SIGPIPE SIGALRM SIGTERM SIGURG SIGSTOP SIGTSTP SIGCONT SIGCHLD SIGTTIN SIGTTOU "
          "SIGIO SIGXCPU SIGXFSZ SIGVTALRM SIGPROF SIGWINCH SIGLOST SIGUSR1 SIGUSR2 SIGPWR SIGPOLL "
          "SIGWIND SIGPHONE SIGWAITING SIGLWP SIGDANGER SIGGRANT SIGRETRACT SIGMSG SIGSOUND SIGSAK "
          "SIGPRIO").split()  # fmt: skip
GDB_SIGNAL_TRAP = 5
GDB_SIGNAL_INT = 2
GDB_SIGNAL_STOP = 17


def gdb_name(number: int) -> str | None:
    """signals.def's name of wire signal `number` (SIG34 for a real-time one)."""
    if 1 <= number <= len(_NAMED):
        return _NAMED[number - 1]
    if 45 <= number <= 75:
        return f"SIG{number - 45 + 33}"
    if number == 77:
        return "SIG32"
    if 78 <= number <= 141:
        return f"SIG{number - 78 + 64}"
    return None


def to_host(number: int) -> int | None:
    """This host's number of wire signal `number`, None for one it lacks (SIGEMT on Linux)."""
    name = gdb_name(number)
    if name is None:
        return None
    if name[3:].isdigit():
        return int(name[3:])
    try:
        return int(signal_module.Signals[name])
    except KeyError:
        return None


def from_host(signo: int) -> int:
    """The wire number of this host's signal `signo` (143, gdb's unknown, where none)."""
    if signo >= 32:
        if signo == 32:
            return 77
        return 45 + signo - 33 if signo <= 63 else 78 + signo - 64
    try:
        name = signal_module.Signals(signo).name
    except ValueError:
        return 143
    if name == "SIGIOT":
        name = "SIGABRT"
    return _NAMED.index(name) + 1 if name in _NAMED else 143
