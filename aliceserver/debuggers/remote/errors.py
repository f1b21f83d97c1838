"""The remote backend's typed errors: what went wrong with the stub or the link to it."""

from __future__ import annotations

from aliceserver.errors import TargetError


class RemoteError(TargetError):
    """The stub refused a request (`E NN`, `E.message`) or answered what we cannot read."""


class RemoteConnectionError(RemoteError):
    """The link to the stub failed: refused, closed by the peer, or a broken pipe."""


class RemoteTimeout(RemoteConnectionError):
    """The stub did not answer within the time limit (gdb: `Ignoring packet error` /
    `Remote connection closed` after its retries)."""


class RemoteUnsupported(RemoteError):
    """The stub answered the empty packet: it does not know the request."""
