"""The line part of a per-binary index (units, paths, line headers, address ranges), kept
pickled in the cache file and unpickled on its first use; built on its first use when the
index was made without it.

A breakpoint by name looks in every loaded library's index, but needs only its function
names; libc's line part alone unpickled into 3.5 MB of tuples and strings at each first
stop. Kept as the bytes read from the cache file (a quarter of that), it is decoded when a
query asks for lines of that binary. A new index is made of its name part only (building
libc's line part took two thirds of its 0.2 s); the line part is built by the first query
for lines and then stored with it.
"""

from __future__ import annotations

import _pickle as pickle  # pickle.py's accelerator, as cache.py
import io
import threading
from collections.abc import Callable
from typing import Any

from aliceserver.debuggers.symbols.dwarf.cache import plain_unpickler

PARTS = ("units", "paths", "headers", "ranges")  # build_payload's keys, in that order
PACKED = "lines"  # the cache's key for them, pickled together

Parts = tuple[list[Any], list[str], dict[int, tuple[Any, ...]], list[Any]]


def packed_for_cache(payload: dict[str, Any]) -> dict[str, Any]:
    """`payload` (build_payload's) as stored: the line part pickled on its own (a payload
    without one, build_name_part's, as it is)."""
    if PACKED in payload or not any(k in payload for k in PARTS):
        return payload
    rest = {k: v for k, v in payload.items() if k not in PARTS}
    rest[PACKED] = pickle.dumps(tuple(payload[k] for k in PARTS), protocol=5)
    return rest


def is_packed_or_whole(payload: dict[str, Any]) -> bool:
    """Whether `payload` holds a line part, pickled (from the cache) or whole (just built),
    or none at all (it is built on first use)."""
    if PACKED in payload:
        return isinstance(payload[PACKED], bytes)
    if not any(k in payload for k in PARTS):
        return True
    try:
        return _valid(tuple(payload[k] for k in PARTS))
    except KeyError:
        return False


def _valid(parts: Any) -> bool:
    return (
        isinstance(parts, tuple)
        and len(parts) == len(PARTS)
        and isinstance(parts[0], list)
        and isinstance(parts[1], list)
        and isinstance(parts[2], dict)
        and isinstance(parts[3], list)
        and all(isinstance(h, tuple) and len(h) == 11 for h in parts[2].values())
    )


class LineParts:
    """The line part of one index, decoded (or built) once, on first use (thread-safe). A
    pickled part that does not decode to what build_payload makes is never trusted:
    `rebuild(damaged)` (which builds the line part from the DWARF and stores the index
    with it) gives it anew; it is called so, with damaged=False, when there was none."""

    def __init__(self, payload: dict[str, Any], rebuild: Callable[[bool], dict[str, Any]]) -> None:
        self._packed: bytes | None = payload.get(PACKED)
        self._parts: Parts | None = None
        if self._packed is None and all(k in payload for k in PARTS):
            self._parts = tuple(payload[k] for k in PARTS)
        self._rebuild = rebuild
        self._lock = threading.Lock()

    def available(self) -> bool:
        """Whether the part is here, decoded or packed (get() then builds nothing)."""
        return self._parts is not None or self._packed is not None

    def get(self) -> Parts:
        parts = self._parts
        if parts is not None:
            return parts
        with self._lock:
            if self._parts is None:
                self._parts = self._decode()
                self._packed = None
            return self._parts

    def _decode(self) -> Parts:
        if self._packed is None:  # an index made without it
            built = self._rebuild(False)
            return tuple(built[k] for k in PARTS)
        try:
            parts = plain_unpickler(io.BytesIO(self._packed)).load()
        except Exception:  # noqa: BLE001 - any damage means "rebuild"
            parts = None
        if _valid(parts):
            return parts  # type: ignore[no-any-return]
        built = self._rebuild(True)
        return tuple(built[k] for k in PARTS)
