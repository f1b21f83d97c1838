"""The function list `break NAME` searches, kept in the index payload.

Reading it from the cache spares the first lookup parsing the whole ELF symbol table (tens
of milliseconds for a large program): the names are one string and the addresses one
buffer, which unpickle at memory speed. A change to what pack_functions keeps must bump
cache.FORMAT_VERSION.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Iterable, Iterator, Mapping
from operator import itemgetter

_SEPARATOR = "\0"  # no symbol name holds one: the string table ends names with it
# (linkage names joined, (low, size) of each as little-endian 64-bit pairs)
Packed = tuple[str, bytes]


def pack_functions(symbols: Iterable[tuple[str, int, int]]) -> Packed:
    """The payload form of an image's (name, address, size) function symbols: by address
    (then name, as the symbol table lists aliases), PLT stubs and `.cold` parts left out."""
    kept = sorted(
        (s for s in symbols if not s[0].endswith("@plt") and ".cold" not in s[0]),
        key=itemgetter(1, 0),
    )
    spans = array("Q", [v for _name, low, size in kept for v in (low, size)])
    if sys.byteorder != "little":
        spans.byteswap()
    return _SEPARATOR.join(name for name, _low, _size in kept), spans.tobytes()


def is_packed(value: object) -> bool:
    if not isinstance(value, tuple) or len(value) != 2:
        return False
    text, raw = value
    if not isinstance(text, str) or not isinstance(raw, bytes) or len(raw) % 16:
        return False
    return len(raw) // 16 == (text.count(_SEPARATOR) + 1 if raw else 0)


class FunctionList:
    """The unpacked list: names and (low, size) by index, decoded on first use."""

    def __init__(self, packed: Packed) -> None:
        self._packed: Packed | None = packed
        self._names: list[str] = []
        self._spans: array[int] = array("Q")

    def _unpack(self) -> None:
        if self._packed is not None:
            text, raw = self._packed
            spans = array("Q", raw)
            if sys.byteorder != "little":
                spans.byteswap()
            self._names = text.split(_SEPARATOR) if spans else []
            self._spans = spans
            self._packed = None

    def matching(
        self, needle: str, demangled: Mapping[str, str]
    ) -> Iterator[tuple[str, str, int, int]]:
        """(linkage, demangled, low, size) of the functions whose linkage or demangled
        name contains `needle`, in list order."""
        self._unpack()
        names = self._names
        spans = self._spans
        also = {name for name, text in demangled.items() if needle in text}
        for i, name in enumerate(names):
            if needle in name or name in also:
                yield name, demangled.get(name, name), spans[2 * i], spans[2 * i + 1]
