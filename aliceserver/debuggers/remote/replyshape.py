"""Whether a reply has the shape its request's answer takes: over a link without acks a
stub's duplicated reply is told apart from the next request's answer only so (a copy of
the reply before it, of another shape), where several requests went out together."""

from __future__ import annotations

import re

_HEX = re.compile(rb"[0-9a-fx]*")  # gdbserver's data in hex; `x`: a register it cannot read
_SET = frozenset(b"ZzMXPGHQ")  # requests answered with OK, E NN or nothing


def fits(body: bytes, reply: bytes) -> bool:
    """Whether `reply` may answer `body` (True where the request's answers take any shape)."""
    if reply[:1] == b"E" or not reply:
        return True  # an error, or a request the stub does not know
    verb = body[:1]
    if verb in (b"m", b"g", b"p"):
        if _HEX.fullmatch(reply) is None:
            return False
        if verb == b"m":
            _, _, size = body.partition(b",")
            return len(reply) <= 2 * int(size, 16)
        return True
    if verb == b"x":
        return reply[:1] == b"b"
    if body.startswith(b"qXfer:"):
        return reply[:1] in (b"l", b"m")
    if body[0] in _SET:
        return reply == b"OK"
    return True


def some_answer(reply: bytes) -> bool:
    """Whether `reply` has the shape of an answer to some request we send (not a stop
    reply): `OK`, an error, data in hex or binary, a qXfer chunk."""
    return (reply == b"OK" or reply[:1] in (b"E", b"l", b"m", b"b")
            or _HEX.fullmatch(reply) is not None)  # fmt: skip


def copy_of_previous(body: bytes, reply: bytes, previous: bytes | None) -> bool:
    """`reply` is the stub's copy of the reply before it, not `body`'s answer."""
    return reply == previous and not fits(body, reply)
