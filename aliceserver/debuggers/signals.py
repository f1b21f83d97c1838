"""Signal names, default policies (gdb's `info signals`) and fault descriptions."""

from __future__ import annotations

import signal as signal_module

from aliceserver.debuggers.gdb_signals import gdb_signal_description, gdb_signal_name
from aliceserver.debuggers.model import SignalPolicy

# Synchronous faults: the program crashed at an instruction.
CRASH_SIGNALS = frozenset(
    {
        signal_module.SIGSEGV,
        signal_module.SIGBUS,
        signal_module.SIGFPE,
        signal_module.SIGILL,
        signal_module.SIGABRT,
    }
)

# gdb passes these silently: they are part of normal program life.
_QUIET = frozenset(
    {
        signal_module.SIGALRM,
        signal_module.SIGURG,
        signal_module.SIGCHLD,
        signal_module.SIGWINCH,
        signal_module.SIGIO,
        signal_module.SIGVTALRM,
        signal_module.SIGPROF,
        signal_module.SIGPOLL,
    }
)

_FAULT_CODES: dict[int, dict[int, str]] = {
    signal_module.SIGSEGV: {1: "address not mapped to object", 2: "invalid permissions for mapped object"},
    signal_module.SIGBUS: {1: "invalid address alignment", 2: "nonexistent physical address", 3: "object-specific hardware error"},
    signal_module.SIGFPE: {1: "integer divide by zero", 2: "integer overflow", 3: "floating-point divide by zero", 4: "floating-point overflow", 5: "floating-point underflow", 6: "floating-point inexact result", 7: "floating-point invalid operation", 8: "subscript out of range"},
    signal_module.SIGILL: {1: "illegal opcode", 2: "illegal operand", 3: "illegal addressing mode", 4: "illegal trap", 5: "privileged opcode", 6: "privileged register", 7: "coprocessor error", 8: "internal stack error"},
}  # fmt: skip


def signal_name(signo: int) -> str:
    """SIGSEGV, SIG34 for a real-time signal (as gdb prints them; Python says SIGRTMIN)."""
    if signo >= 32:
        return f"SIG{signo}"
    try:
        return signal_module.Signals(signo).name
    except ValueError:
        return f"SIG{signo}"


def signal_description(signo: int) -> str:
    """gdb's words for it, not strsignal's: every front end shows these."""
    return gdb_signal_description(gdb_signal_name(signo))


def fault_description(signo: int, code: int) -> str:
    if code <= 0:
        return "sent by a process" if code in (0, -6) else "sent by the kernel"
    return _FAULT_CODES.get(signo, {}).get(code, f"code {code}")


def default_policy(signo: int) -> SignalPolicy:
    if signo in _QUIET:
        return SignalPolicy(stop=False, pass_to_program=True, print_=False)
    if signo in (signal_module.SIGINT, signal_module.SIGTRAP):  # the debugger's own: not passed on
        return SignalPolicy(stop=True, pass_to_program=False, print_=True)
    return SignalPolicy(stop=True, pass_to_program=True, print_=True)
