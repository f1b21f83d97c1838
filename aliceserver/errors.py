"""Typed errors. A handler raises one of these; anything else is an internal error."""

from __future__ import annotations


class AliceError(Exception):
    """Base of every error the server reports to a client on purpose."""


class ProtocolError(AliceError):
    """A bad request from a client: answered with an error reply, never fatal."""


class TargetError(AliceError):
    """The debuggee or the OS refused: a missing program, a dead pid, an unmapped address."""

    def __init__(self, message: str, *, errno: int | None = None, pid: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno
        self.pid = pid


class Unsupported(AliceError):
    """The request is understood but this backend or build cannot do it."""


class StartupExit(TargetError):
    """The program ended before its first instruction (its exec failed). `summary` is
    gdb's `During startup program exited with code N.`, `output` what the program wrote
    meanwhile to a pipe of ours ("" when it wrote to a terminal or to our own stderr);
    the message holds both, for front ends that show the error alone."""

    def __init__(self, summary: str, *, pid: int, output: str) -> None:
        super().__init__(output + summary, pid=pid)
        self.summary = summary
        self.output = output
