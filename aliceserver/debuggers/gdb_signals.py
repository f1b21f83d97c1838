"""gdb's names and descriptions of this system's (Linux) signals, for every front end.

gdb prints its own table (gdb's signals.def), not the C library's strsignal: SIGCHLD is
"Child status changed" (strsignal: "Child exited"), SIGFPE "Arithmetic exception",
signal 34 is `SIG34, Real-time event 34` (Python: SIGRTMIN), and SIGSTKFLT, which gdb
has no name for, is `?, Unknown signal`.
"""

from __future__ import annotations

import signal as signal_module

_DESCRIPTIONS = {
    "SIGHUP": "Hangup", "SIGINT": "Interrupt", "SIGQUIT": "Quit", "SIGILL": "Illegal instruction",
    "SIGTRAP": "Trace/breakpoint trap", "SIGABRT": "Aborted", "SIGEMT": "Emulation trap",
    "SIGFPE": "Arithmetic exception", "SIGKILL": "Killed", "SIGBUS": "Bus error",
    "SIGSEGV": "Segmentation fault", "SIGSYS": "Bad system call", "SIGPIPE": "Broken pipe",
    "SIGALRM": "Alarm clock", "SIGTERM": "Terminated", "SIGURG": "Urgent I/O condition",
    "SIGSTOP": "Stopped (signal)", "SIGTSTP": "Stopped (user)", "SIGCONT": "Continued",
    "SIGCHLD": "Child status changed", "SIGTTIN": "Stopped (tty input)",
    "SIGTTOU": "Stopped (tty output)", "SIGIO": "I/O possible", "SIGXCPU": "CPU time limit exceeded",
    "SIGXFSZ": "File size limit exceeded", "SIGVTALRM": "Virtual timer expired",
    "SIGPROF": "Profiling timer expired", "SIGWINCH": "Window size changed", "SIGLOST": "Resource lost",
    "SIGUSR1": "User defined signal 1", "SIGUSR2": "User defined signal 2",
    "SIGPWR": "Power fail/restart", "SIGPOLL": "Pollable event occurred",
    "SIGWAITING": "Process's LWPs are blocked", "SIGLWP": "Signal LWP",
    "SIGDANGER": "Swap space dangerously low", "SIGGRANT": "Monitor mode granted",
    "SIGRETRACT": "Need to relinquish monitor mode", "SIGMSG": "Monitor mode data available",
    "SIGSOUND": "Sound completed", "SIGSAK": "Secure attention", "SIGCANCEL": "LWP internal signal",
    "SIGINFO": "Information request", "EXC_BAD_ACCESS": "Could not access memory",
    "EXC_BAD_INSTRUCTION": "Illegal instruction/operand", "EXC_ARITHMETIC": "Arithmetic exception",
    "EXC_EMULATION": "Emulation instruction", "EXC_SOFTWARE": "Software generated exception",
    "EXC_BREAKPOINT": "Breakpoint", "SIGLIBRT": "librt internal signal",
}  # fmt: skip
# gdb's own numbering of its first signals (1-15 are what `handle N` names), up to SIGPRIO
_FIRST = ("SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGEMT", "SIGFPE", "SIGKILL",
          "SIGBUS", "SIGSEGV", "SIGSYS", "SIGPIPE", "SIGALRM", "SIGTERM", "SIGURG", "SIGSTOP", "SIGTSTP",
          "SIGCONT", "SIGCHLD", "SIGTTIN", "SIGTTOU", "SIGIO", "SIGXCPU", "SIGXFSZ", "SIGVTALRM",
          "SIGPROF", "SIGWINCH", "SIGLOST", "SIGUSR1", "SIGUSR2", "SIGPWR", "SIGPOLL", "SIGWIND",
          "SIGPHONE", "SIGWAITING", "SIGLWP", "SIGDANGER", "SIGGRANT", "SIGRETRACT", "SIGMSG",
          "SIGSOUND", "SIGSAK", "SIGPRIO")  # fmt: skip
_MACH = ("EXC_BAD_ACCESS", "EXC_BAD_INSTRUCTION", "EXC_ARITHMETIC", "EXC_EMULATION", "EXC_SOFTWARE",
         "EXC_BREAKPOINT")  # fmt: skip
UNKNOWN = "?"  # gdb's name of a signal it does not know (GDB_SIGNAL_UNKNOWN)


def gdb_signal_name(number: int) -> str:
    """gdb's name of signal `number` of this system: SIGSEGV, SIG34 (real-time), `?`."""
    if number >= 32:
        return f"SIG{number}"
    try:
        name = signal_module.Signals(number).name
    except ValueError:
        return UNKNOWN
    return UNKNOWN if name == "SIGSTKFLT" else name


def gdb_signal_description(name: str) -> str:
    """gdb's description of the signal it calls `name` (gdb_signal_to_string)."""
    if name.startswith("SIG") and name[3:].isdigit():
        return f"Real-time event {name[3:]}"
    if name == "0":
        return "Signal 0"
    if name == UNKNOWN:
        return "Unknown signal"
    return _DESCRIPTIONS.get(name, name)


def gdb_signal_table() -> tuple[str, ...]:
    """Every signal gdb knows, in its order (signals.def: SIG32 after SIG63 and SIGCANCEL):
    the rows of `info signals`, the order `handle` shows its signals in."""
    return (*_FIRST, *(f"SIG{n}" for n in range(33, 64)), "SIGCANCEL", "SIG32",
            *(f"SIG{n}" for n in range(64, 128)), "SIGINFO", *_MACH, "SIGLIBRT")  # fmt: skip
