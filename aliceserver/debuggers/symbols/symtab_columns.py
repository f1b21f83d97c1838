"""A symbol table read from the on-disk index, kept in its packed columns (symtab.py's
PackedTable): an entry is made when a lookup reaches it.

CPython's 14,000 symbols made into tuples took 3 MB at each first stop, which asks the
table for the symbol at a few addresses and one or two names; the columns take a fifth.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Sequence
from itertools import compress
from operator import eq
from typing import TYPE_CHECKING, overload

if TYPE_CHECKING:
    from aliceserver.debuggers.symbols.symtab import Entry, PackedTable

_SEPARATOR = "\0"
# A flag byte -> 1 for a function symbol (kind 0), else 0: flags.translate(_IS_FUNCTION).
_IS_FUNCTION = bytes(int(flag & 3 == 0) for flag in range(256))


class PackedColumns:
    """The columns of a PackedTable (checked by is_packed_table), entries made on demand."""

    def __init__(
        self, packed: PackedTable, kind_names: Sequence[str], binding_names: Sequence[str]
    ) -> None:
        text, raw, flags, count, _sections, order, starts, _folded = packed
        self.packed = packed
        self.count = count  # real symbols; the rest are PLT stubs
        self._text = text
        self._flags = flags
        self._words = _array("Q", raw)
        self._order = _array("I", order)
        self._starts = _array("I", starts) if flags else array("I", [0])  # each name's in `text`
        self._kinds = kind_names
        self._bindings = binding_names
        self._addresses: bytes | None = None  # the address column's bytes, for at_address

    def __len__(self) -> int:
        return len(self._flags)

    def name(self, i: int) -> str:
        return self._text[self._starts[i] : self._end(i)]

    def _end(self, i: int) -> int:
        """Where name `i` ends in the joined names."""
        starts = self._starts
        return starts[i + 1] - 1 if i + 1 < len(starts) else len(self._text)

    def entry(self, i: int) -> Entry:
        words, flag = self._words, self._flags[i]
        return (words[3 * i], words[3 * i + 1], self.name(i), self._kinds[flag & 3],
                self._bindings[flag >> 2 & 3], words[3 * i + 2], flag >= 16)  # fmt: skip

    def entries(self, first: int, end: int) -> list[Entry]:
        """Entries first..end-1, made in one pass (the whole table, when a query needs it)."""
        words, flags = self._words, self._flags[first:end]
        names = self._text[self._starts[first] : self._end(end - 1)].split(_SEPARATOR) if first < end else []
        return list(zip(words[3 * first : 3 * end : 3], words[3 * first + 1 : 3 * end : 3], names,
                        [self._kinds[f & 3] for f in flags], [self._bindings[f >> 2 & 3] for f in flags],
                        words[3 * first + 2 : 3 * end : 3], [f >= 16 for f in flags], strict=True))  # fmt: skip

    def by_address(self, addresses: bytes | None = None) -> tuple[array[int], Sequence[Entry]]:
        """The address index as the packed table keeps it: addresses, and entries made when
        read. `addresses`: address_column() of this table, kept with it (else made here:
        2.5 ms for CPython's 15,000 symbols)."""
        if addresses is not None:
            return _array("Q", addresses), _OrderedEntries(self, self._order)
        column = self._words[0::3]  # in table order; then in address order, in C:
        return array("Q", map(column.__getitem__, self._order)), _OrderedEntries(self, self._order)

    def address_column(self) -> bytes:
        """The address index's addresses as little-endian 64-bit words, to keep with the table."""
        addresses = self.by_address()[0]
        if sys.byteorder != "little":
            addresses.byteswap()
        return addresses.tobytes()

    def at_address(self, address: int) -> list[Entry]:
        """Every entry (PLT stubs too) at `address`: a search of the address column (the
        address index keeps one entry per address), 0.05-0.1 ms for 8,000-15,000 symbols."""
        column = self._addresses
        if column is None:
            column = self._addresses = self._words[0::3].tobytes()
        needle, found = address.to_bytes(8, sys.byteorder), []
        at = column.find(needle)
        while at >= 0:
            if at % 8 == 0:
                found.append(self.entry(at // 8))
            at = column.find(needle, at + 1)
        return found

    def at_addresses(self, addresses: frozenset[int]) -> list[Entry]:
        """Every entry at one of `addresses`, in table order: one pass (0.3 ms for 8,000)."""
        column = self._words[0::3]
        found = compress(range(len(column)), map(addresses.__contains__, column))
        return [self.entry(i) for i in found]

    def any_name_starts(self, prefix: str) -> bool:
        """Whether some entry's name begins with `prefix` (no NUL)."""
        return self._text.startswith(prefix) or _SEPARATOR + prefix in self._text

    def containing(self, fragment: str) -> list[Entry]:
        """Every entry (PLT stubs too) whose name holds `fragment`, in table order: one scan
        of the joined names."""
        text, starts, found = self._text, self._starts, []
        at = text.find(fragment)
        while at >= 0:
            i = bisect_right(starts, at) - 1
            found.append(self.entry(i))
            at = text.find(fragment, starts[i + 1]) if i + 1 < len(starts) else -1
        return found

    def named(self, name: str) -> list[Entry]:
        """The real entries named `name`, or (a name without `@`) it with a version
        (`memcpy@@GLIBC_2.14`), in table order: a scan of the joined names."""
        text, starts, found = self._text, self._starts, []
        exact = "@" in name
        at = text.find(name)
        while at >= 0:
            i = bisect_right(starts, at) - 1
            if i >= self.count:
                break
            after = at + len(name)
            follows = text[after : after + 1]
            if starts[i] == at and (follows in ("", _SEPARATOR) or (follows == "@" and not exact)):
                found.append(self.entry(i))
            at = text.find(name, starts[i + 1]) if i + 1 < len(starts) else -1
        return found

    def function_starts_shared(self) -> frozenset[int]:
        """Addresses where several real function symbols start (kind 0 is "func")."""
        real = self.count  # (in C: the function symbols' addresses sorted, neighbours compared)
        starts = sorted(compress(self._words[0 : 3 * real : 3], self._flags[:real].translate(_IS_FUNCTION)))
        return frozenset(compress(starts[1:], map(eq, starts, starts[1:])))


class _OrderedEntries(Sequence["Entry"]):
    """Entries in address order, each made when read."""

    def __init__(self, columns: PackedColumns, order: array[int]) -> None:
        self._columns = columns
        self._order = order

    def __len__(self) -> int:
        return len(self._order)

    @overload
    def __getitem__(self, index: int) -> Entry: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Entry]: ...

    def __getitem__(self, index: int | slice) -> Entry | Sequence[Entry]:
        if isinstance(index, slice):
            return [self._columns.entry(i) for i in self._order[index]]
        return self._columns.entry(self._order[index])


def _array(code: str, data: bytes) -> array[int]:
    words = array(code, data)
    if sys.byteorder != "little":
        words.byteswap()
    return words
