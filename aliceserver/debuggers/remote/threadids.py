"""Thread ids on the wire: `TID`, or `pPID.TID` with the multiprocess extension, in hex;
`-1` is every thread (of a process), `0` any one."""

from __future__ import annotations

from dataclasses import dataclass

from aliceserver.debuggers.remote.errors import RemoteError

ALL = -1
ANY = 0


@dataclass(frozen=True, slots=True)
class ThreadRef:
    pid: int | None  # None: the stub did not say (no multiprocess)
    tid: int

    def encode(self, multiprocess: bool) -> bytes:
        return encode(self.tid, self.pid if multiprocess else None)


def _number(text: str) -> int:
    return ALL if text == "-1" else int(text, 16)


def parse(text: bytes | str) -> ThreadRef:
    if isinstance(text, bytes):
        text = text.decode("ascii", "replace")
    try:
        if text.startswith("p"):
            pid, _, tid = text[1:].partition(".")
            return ThreadRef(_number(pid), _number(tid) if tid else ALL)
        return ThreadRef(None, _number(text))
    except ValueError:
        raise RemoteError(f"A bad thread id from the stub: {text!r}.") from None


def _hex(value: int) -> str:
    return "-1" if value == ALL else f"{value:x}"


def encode(tid: int, pid: int | None = None) -> bytes:
    """`TID`, or `pPID.TID` when `pid` is given (the stub speaks multiprocess)."""
    if pid is None:
        return _hex(tid).encode()
    return f"p{_hex(pid)}.{_hex(tid)}".encode()
