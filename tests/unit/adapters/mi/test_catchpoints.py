"""gdb's catch arguments and the names it gives catchpoints (catchpoints.py), without a
program: the same texts test_catchpoints.py checks against gdb 13 where gdb is installed."""

from __future__ import annotations

import pytest

from aliceserver.adapters.mi import catchpoints as cp
from aliceserver.adapters.mi.breakpoints import MiBreakpoint
from aliceserver.adapters.mi.registry import MiError
from aliceserver.session.breakpoints import BreakpointKind

NAMES = cp.SyscallNames()
needs_table = pytest.mark.skipif(not NAMES.get().by_name, reason="no syscall table (gdb's or the kernel headers')")


def _bp(spec: cp.CatchSpec, number: int = 1) -> MiBreakpoint:
    return MiBreakpoint(number, BreakpointKind.CATCH, spec.event, gdb_type=cp.CATCHPOINT, catch=spec)


@needs_table
def test_syscalls_by_name_number_and_group() -> None:
    spec = cp.parse("syscall", "write 39", NAMES)
    assert spec.syscalls == (("write", 1), ("getpid", 39))
    assert cp.mention(_bp(spec, 2), spec) == "Catchpoint 2 (syscalls 'write' [1] 'getpid' [39])\n"
    assert cp.info_what(spec) == 'syscalls "write, getpid" '
    assert cp.mi_what(spec) == "write, getpid"
    assert ("exit", 60) in cp.parse("sys", "g:process", NAMES).syscalls
    unknown = cp.parse("syscall", "9999", NAMES)
    assert cp.mention(_bp(unknown), unknown) == "Catchpoint 1 (syscall 9999)\n"
    every = cp.parse("syscall", "", NAMES)
    assert (cp.mention(_bp(every), every), cp.info_what(every)) == ("Catchpoint 1 (any syscall)\n",
                                                                    'syscall "<any syscall>" ')  # fmt: skip


@pytest.mark.parametrize(
    ("event", "args", "error"),
    [
        ("syscall", "nosuch", "Unknown syscall name 'nosuch'."),
        ("syscall", "group:foo", "Unknown syscall group 'foo'."),
        ("signal", "SIGFOO", "Unknown signal name 'SIGFOO'."),
        ("signal", "all SIGINT", "'all' cannot be caught with other signals"),
        ("fork", "1", "Junk at end of arguments."),
        ("s", "", 'Ambiguous catch command "s": signal, syscall.'),
        ("foo", "", 'Undefined catch command: "foo".  Try "help catch".'),
        ("exception", "", "Unable to insert catchpoint.  Is this an Ada main program?"),
    ],
)
def test_errors_in_gdbs_words(event: str, args: str, error: str) -> None:
    with pytest.raises(MiError) as raised:
        cp.parse(event, args, NAMES)
    assert str(raised.value) == error


def test_signals_by_gdb_number_and_name() -> None:
    spec = cp.parse("signal", "10 SIGUSR2", NAMES)
    assert spec.signals == ("SIGBUS", "SIGUSR2")  # gdb numbers its first 15 its own way
    assert cp.mention(_bp(spec), spec) == "Catchpoint 1 (signals SIGBUS SIGUSR2)\n"
    standard = cp.parse("signal", "", NAMES)
    assert cp.catches_signal(standard, "SIGUSR1") and not cp.catches_signal(standard, "SIGTRAP")
    assert cp.info_what(standard) == 'signal "<standard signals>" '
    assert cp.catches_signal(cp.parse("signal", "all", NAMES), "SIGINT")


def test_exceptions_and_libraries() -> None:
    spec = cp.parse("throw", "runtime", NAMES)
    assert (cp.mention(_bp(spec), spec), cp.info_what(spec), cp.info_extra(spec)) == (
        "Catchpoint 1 (throw)\n", "exception throw", "\tmatching: runtime\n")
    load = cp.parse("load", "libm", NAMES)
    assert cp.mi_what(load) == "load of library matching libm"
    items = dict(cp.mi_items(_bp(load), load))
    assert (items["catch-type"], items["thread-groups"]) == ("load", ["i1"])
