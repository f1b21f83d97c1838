"""Decoding of raw waitpid statuses, built the way the kernel builds them."""

import signal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.ptrace import binding
from aliceserver.debuggers.ptrace.waitstatus import WaitKind, decode


def stopped(sig: int, event: int = 0) -> int:
    return (event << 16) | (sig << 8) | 0x7F


def test_exit_codes() -> None:
    for code in (0, 3, 255):
        assert decode(code << 8) == decode(code << 8)
        assert decode(code << 8).kind is WaitKind.EXITED
        assert decode(code << 8).value == code


def test_killed_by_signal() -> None:
    status = decode(signal.SIGKILL)
    assert (status.kind, status.value) == (WaitKind.KILLED, signal.SIGKILL)


def test_signal_delivery_stop() -> None:
    status = decode(stopped(signal.SIGSEGV))
    assert (status.kind, status.value) == (WaitKind.SIGNAL_STOP, signal.SIGSEGV)


@pytest.mark.parametrize(
    "event",
    [
        binding.PTRACE_EVENT_CLONE,
        binding.PTRACE_EVENT_FORK,
        binding.PTRACE_EVENT_EXEC,
        binding.PTRACE_EVENT_VFORK_DONE,
    ],
)
def test_ptrace_events(event: int) -> None:
    status = decode(stopped(signal.SIGTRAP, event))
    assert (status.kind, status.event) == (WaitKind.EVENT, event)


def test_interrupt_and_group_stop_are_told_apart() -> None:
    assert decode(stopped(signal.SIGTRAP, binding.PTRACE_EVENT_STOP)).kind is WaitKind.INTERRUPT
    for sig in (signal.SIGSTOP, signal.SIGTSTP, signal.SIGTTIN, signal.SIGTTOU):
        status = decode(stopped(sig, binding.PTRACE_EVENT_STOP))
        assert (status.kind, status.value) == (WaitKind.GROUP_STOP, sig)


def test_syscall_stop() -> None:
    assert decode(stopped(signal.SIGTRAP | 0x80)).kind is WaitKind.SYSCALL


def test_continued() -> None:
    assert decode(0xFFFF).kind is WaitKind.CONTINUED


@given(st.integers(min_value=0, max_value=0xFFFFFF))
def test_any_status_decodes_or_says_why(status: int) -> None:
    try:
        decoded = decode(status)
    except ValueError:
        return
    assert isinstance(decoded.kind, WaitKind)
