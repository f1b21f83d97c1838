"""The function list `break NAME` searches, kept in the index payload.

Reading it from the cache spares the first lookup parsing the whole ELF symbol table (tens
of milliseconds for a large program): the names are one string and the addresses one
buffer, which unpickle at memory speed. A change to what pack_functions keeps must bump
cache.FORMAT_VERSION.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate
from operator import itemgetter

_SEPARATOR = "\0"  # no symbol name holds one: the string table ends names with it
# A list searched this often has its names indexed by their 3-character pieces: str.find
# over 10,000 names like f_00001 took 75 us for each (every name starts as the needle
# does), and rbreak . searches each name in each module. Not past _GRAMS_MOST names.
_GRAMS_AFTER = 32
_GRAMS_MOST = 200_000
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


def name_starts(packed: Packed) -> bytes:
    """Where each name of `packed` starts in its joined names, as little-endian 64-bit
    words: kept beside it in the payload, they spare each start splitting the names (15,000
    strings made: 2.5 ms of CPython's first `break`)."""
    text, raw = packed
    starts = _starts(text.split(_SEPARATOR) if raw else [])
    if sys.byteorder != "little":
        starts.byteswap()
    return starts.tobytes()


def are_name_starts(value: object, packed: Packed) -> bool:
    """Whether `value` has the shape of name_starts(packed) (a damaged payload's has not)."""
    text, raw = packed
    if not isinstance(value, bytes) or len(value) * 2 != len(raw):
        return False
    starts = _words(value)
    return not starts or (starts[0] == 0 and starts[-1] <= len(text))


def _words(data: bytes) -> array[int]:
    words = array("Q", data)
    if sys.byteorder != "little":
        words.byteswap()
    return words


def is_packed(value: object) -> bool:
    if not isinstance(value, tuple) or len(value) != 2:
        return False
    text, raw = value
    if not isinstance(text, str) or not isinstance(raw, bytes) or len(raw) % 16:
        return False
    return len(raw) // 16 == (text.count(_SEPARATOR) + 1 if raw else 0)


class FunctionList:
    """The unpacked list: names and (low, size) by index, decoded on first use."""

    def __init__(self, packed: Packed, starts: bytes | None = None) -> None:
        """`starts`: name_starts(packed), kept with it (else worked out on first use)."""
        self._packed: Packed | None = packed
        self._packed_starts = starts
        self._spans: array[int] = array("Q")
        # The names joined and where each starts: str.find there is what a scan of
        # `needle in name` per name was, 100x faster (20 names broke in 30 ms). A name is
        # cut from them when found: a list of every name took 70 bytes each (libc's, asked
        # for a name it does not have at each first stop).
        self._text = ""
        self._starts: array[int] = array("Q")
        # The demangled names searched the same way, for the one mapping they come from.
        self._demangled: tuple[Mapping[str, str], list[str], str, array[int]] | None = None
        self._indexes_of: dict[str, list[int]] | None = None
        self._searches = 0
        self._grams: dict[str, list[int]] | None = None  # 3 characters -> names holding them

    def _unpack(self) -> None:
        if self._packed is not None:
            text, raw = self._packed
            spans = array("Q", raw)
            if sys.byteorder != "little":
                spans.byteswap()
            self._spans = spans
            self._text = text if spans else ""
            starts = self._packed_starts
            self._starts = _starts(text.split(_SEPARATOR) if spans else []) if starts is None else _words(starts)
            self._packed = self._packed_starts = None

    def _name(self, i: int) -> str:
        starts = self._starts
        end = starts[i + 1] - 1 if i + 1 < len(starts) else len(self._text)
        return self._text[starts[i] : end]

    def matching(
        self, needle: str, demangled: Mapping[str, str]
    ) -> Iterator[tuple[str, str, int, int]]:
        """(linkage, demangled, low, size) of the functions whose linkage or demangled
        name contains `needle`, in list order."""
        self._unpack()
        spans = self._spans
        found = set(self._containing(needle))
        if demangled:
            keys, text, starts = self._demangled_search(demangled)
            also = [keys[i] for i in _containing(text, starts, needle)]
            if also:
                indexes_of = self._name_indexes()
                found.update(i for name in also for i in indexes_of.get(name, ()))
        for i in sorted(found):
            name = self._name(i)
            yield name, demangled.get(name, name), spans[2 * i], spans[2 * i + 1]

    def _containing(self, needle: str) -> Iterable[int]:
        """_containing over the names, by their 3-character pieces once indexed."""
        grams = self._gram_index() if len(needle) >= 3 and _SEPARATOR not in needle else None
        if grams is None:
            return _containing(self._text, self._starts, needle)
        pieces = [grams.get(needle[i : i + 3], []) for i in range(len(needle) - 2)]
        return [i for i in min(pieces, key=len) if needle in self._name(i)]

    def _gram_index(self) -> dict[str, list[int]] | None:
        if self._grams is None:
            self._searches += 1
            if self._searches < _GRAMS_AFTER or not self._starts or len(self._starts) > _GRAMS_MOST:
                return None
            grams: dict[str, list[int]] = {}
            for i, name in enumerate(self._text.split(_SEPARATOR)):
                for piece in {name[j : j + 3] for j in range(len(name) - 2)}:
                    grams.setdefault(piece, []).append(i)
            self._grams = grams
        return self._grams

    def _demangled_search(self, demangled: Mapping[str, str]) -> tuple[list[str], str, array[int]]:
        kept = self._demangled
        if kept is None or kept[0] is not demangled:
            keys = [name for name, text in demangled.items() if _SEPARATOR not in text]
            texts = [demangled[name] for name in keys]
            kept = self._demangled = (demangled, keys, _SEPARATOR.join(texts), _starts(texts))
        return kept[1], kept[2], kept[3]

    def _name_indexes(self) -> dict[str, list[int]]:
        if self._indexes_of is None:
            indexes_of: dict[str, list[int]] = {}
            for i, name in enumerate(self._text.split(_SEPARATOR) if self._starts else ()):
                indexes_of.setdefault(name, []).append(i)
            self._indexes_of = indexes_of
        return self._indexes_of


def _starts(names: list[str]) -> array[int]:
    """Where each of `names` starts in their join with the separator."""
    if not names:
        return array("Q")
    return array("Q", accumulate((len(name) + 1 for name in names[:-1]), initial=0))


def _containing(text: str, starts: Sequence[int], needle: str) -> Iterator[int]:
    """The indexes of the joined names (`text`, each at `starts`) that contain `needle`."""
    if not needle:
        yield from range(len(starts))
        return
    if _SEPARATOR in needle:
        return
    at = text.find(needle)
    while at >= 0:
        i = bisect_right(starts, at) - 1
        yield i
        if i + 1 >= len(starts):
            return
        at = text.find(needle, starts[i + 1])
