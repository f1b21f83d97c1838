"""An image's symbol table packed for the on-disk index (symtab.PackedTable) and its
function list (funclist.Packed) made straight from the section bytes, a column at a time.

What a cold first stop waited for: parse_symbols made a 7-tuple per symbol, SymbolTable
deduplicated them through a dict of (name, address) pairs, packed() and pack_functions took
them apart again and sorted them by tuple keys, and the session then answered from those
tuples (sorting them again for its address index): 200-250 ms of the tracer thread for the
55,000 symbols of bench/huge_program, 40-65 ms for CPython's 14,830. Here the columns are
array slices of the raw Elf64_Sym array, the symbols kept are chosen by a byte per symbol
seen as one integer's bits (bytes.translate, &, ~), the names are cut from the string table at
their offsets, and one sort by address serves the deduplication (equal pairs are neighbours
there), the address index and the function list; Python runs per symbol only where the
slow form did something rare (aliases at one address, versioned names). The result is
byte for byte what the slow form packs (SymbolTable.packed, funclist.pack_functions: the
cache files do not change), and the image answers from it as from a cached index
(symtab_columns.py). A file this does not cover (big-endian, a string table that is not
ASCII, a name `$...`) gives None, and the caller parses it as before.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import accumulate, compress
from itertools import count as count_from
from operator import eq, ne

from aliceserver.debuggers.symbols._elfread import ElfContents
from aliceserver.debuggers.symbols.elfheaders import (
    SHF_ALLOC,
    SHF_TLS,
    SHT_DYNSYM,
    SHT_GNU_VERSYM,
    SHT_SYMTAB,
)
from aliceserver.debuggers.symbols.plt import got_plt_symbols, plt_symbols
from aliceserver.debuggers.symbols.symtab import (
    _BINDING_NAMES,
    _KIND_NAMES,
    SHN_XINDEX,
    SYM_SIZE,
    Entry,
    PackedTable,
    _address_rank,
)
from aliceserver.debuggers.symbols.symtab_columns import _IS_FUNCTION

_SKIP = 255  # an st_info whose symbol is not kept (SECTION, FILE, TLS...)
_KIND_CODES = {0: 2, 1: 1, 2: 0, 5: 1, 10: 0}  # st_info's type -> symtab._KIND_NAMES' index
_BINDING_CODES = {0: 2, 1: 0, 2: 1, 10: 0}  # its binding -> symtab._BINDING_NAMES' (else global)
# st_info -> kind | binding << 2 (symtab.PackedTable's flag byte without its hidden bit)
_INFO_CODES = bytes(
    _SKIP
    if info & 0xF not in _KIND_CODES
    else _KIND_CODES[info & 0xF] | _BINDING_CODES.get(info >> 4, 0) << 2
    for info in range(256)
)
_HIDDEN = 16  # the flag's bit of a non-default version
_IS_ZERO = bytes([1]) + bytes(255)
_IS_FF = bytes(255) + bytes([1])
_IS_KEPT = bytes(int(code != _SKIP) for code in range(256))
_ONE = bytes([1]) * 256
_VERSYM_HIDDEN = 0x8000

# (names, addresses, sizes, section indexes, flag bytes) of the symbols kept, in table order
_Columns = tuple[list[str], "array[int]", "array[int]", "array[int]", bytearray]
FunctionPart = tuple[tuple[str, bytes], list[str]]  # funclist.Packed, names to demangle


def pack(contents: ElfContents) -> tuple[PackedTable, FunctionPart] | None:
    """The packed table of `contents`' .symtab, .dynsym and PLT stubs, and the function
    list with the function names a demangler may change (`_Z`, `_R`), or None (not covered)."""
    if not contents.little_endian or sys.byteorder != "little":
        return None
    sections, raw = contents.sections, contents.raw
    versym = next((raw.get(s.index) for s in sections if s.type == SHT_GNU_VERSYM), None)
    parts: list[_Columns] = []
    # .symtab first: it is the fuller table; .dynsym fills in what strip removed.
    for kind in (SHT_SYMTAB, SHT_DYNSYM):
        for sec in sections:
            data = raw.get(sec.index)
            if sec.type != kind or data is None:
                continue
            parsed = _parse(data, raw.get(sec.link, b""), versym if kind == SHT_DYNSYM else None)
            if parsed is None:
                return None
            parts.append(parsed)
    columns = _joined([part if i == 0 else _new_in(part, parts[0]) for i, part in enumerate(parts)])
    by_address = _Sorted(columns[1])  # (once: dedup, address index and function list use it)
    columns = by_address.first_of_each(columns)
    names, addresses, sizes, homes, flags = columns
    count = len(names)
    synthetic: list[Entry] = []
    if contents.machine == "EM_X86_64":
        synthetic = plt_symbols(sections, raw) + got_plt_symbols(sections, raw)
    elif contents.machine == "EM_AARCH64":
        synthetic = got_plt_symbols(sections, raw)
    for address, size, name, kind_name, binding, home, hidden in synthetic:
        names.append(name)
        addresses.append(address)
        sizes.append(size)
        homes.append(home)
        flags.append(
            _KIND_NAMES.index(kind_name) | _BINDING_NAMES.index(binding) << 2 | hidden << 4
        )
    by_address.extend(addresses, count)
    bounds = tuple((s.index, s.addr, s.addr + s.size) for s in sections
                   if s.flags & SHF_ALLOC and not s.flags & SHF_TLS and s.size)  # fmt: skip
    text = "\0".join(names)
    starts = array("I", accumulate(map((1).__add__, map(len, names)), initial=0))
    del starts[-1:]
    kept = {index for index, _s, _e in bounds} | {SHN_XINDEX}
    order, folded = _address_order(columns, count, kept, by_address)
    words = array("Q", bytes(24 * len(names)))
    words[0::3], words[1::3], words[2::3] = addresses, sizes, array("Q", homes)
    table = (text, words.tobytes(), bytes(flags), count, bounds, array("I", order).tobytes(), starts.tobytes(),
             array("Q", folded).tobytes())  # fmt: skip
    return table, _function_part(columns, by_address, text, starts)


class _Sorted:
    """Every symbol's number by address (table order among equals), with the addresses
    in that order and where an address repeats (aliases: rare, but for libc's)."""

    def __init__(self, addresses: array[int]) -> None:
        self.ranked = sorted(range(len(addresses)), key=addresses.__getitem__)
        self._at(addresses)

    def _at(self, addresses: array[int]) -> None:
        self.at = at = list(map(addresses.__getitem__, self.ranked))
        self.ties = list(
            compress(range(1, len(at)), map(eq, at[1:], at))
        )  # equal to the one before

    def first_of_each(self, columns: _Columns) -> _Columns:
        """The columns without a later symbol of a name and address seen before
        (SymbolTable's deduplication: .dynsym repeats .symtab): among the ties alone."""
        names, ranked, ties = columns[0], self.ranked, self.ties
        later = list(map(ranked.__getitem__, ties))  # each tie and the symbol before it
        before = list(map(ranked.__getitem__, map((-1).__add__, ties)))
        dropped = set(
            compress(later, map(eq, map(names.__getitem__, later), map(names.__getitem__, before)))
        )
        for first, end in _runs(ties):  # (three or more at one address: each pair)
            if end - first > 2:
                seen = set()
                for i in ranked[first:end]:
                    if names[i] in seen:
                        dropped.add(i)
                    seen.add(names[i])
        if not dropped:
            return columns
        mask = bytearray([1]) * len(names)
        for i in dropped:
            mask[i] = 0
        number = list(accumulate(mask, initial=-1))[1:]  # an old number -> its new one
        kept = bytes(map(mask.__getitem__, ranked))
        self.ranked = list(map(number.__getitem__, compress(ranked, kept)))
        self.at = list(compress(self.at, kept))
        self.ties = list(compress(range(1, len(self.at)), map(eq, self.at[1:], self.at)))
        return _compressed(columns, mask)

    def extend(self, addresses: array[int], count: int) -> None:
        """Take in the symbols from number `count` on (the PLT's, a few): after the others
        at their address, as their numbers are."""
        if count == len(addresses):
            return
        ranked, at, old_ranked, old_at, done = [], [], self.ranked, self.at, 0
        for i in sorted(range(count, len(addresses)), key=addresses.__getitem__):
            address = addresses[i]
            cut = bisect_right(old_at, address, done)
            ranked += old_ranked[done:cut]
            at += old_at[done:cut]
            ranked.append(i)
            at.append(address)
            done = cut
        self.ranked, self.at = ranked + old_ranked[done:], at + old_at[done:]
        self.ties = list(compress(range(1, len(self.at)), map(eq, self.at[1:], self.at)))


def _parse(data: bytes, strtab: bytes, versym: bytes | None) -> _Columns | None:
    """parse_symbols' symbols of one table as columns; None: not covered here."""
    usable = len(data) - len(data) % SYM_SIZE
    records = data[:usable] if usable < len(data) else data
    count = usable // SYM_SIZE
    halves, words, shorts = array("I"), array("Q"), array("H")
    halves.frombytes(records)
    words.frombytes(records)
    shorts.frombytes(records)
    offsets = halves[0::6]
    if not strtab.isascii() or (count and max(offsets) >= len(strtab)):
        return None  # (offsets would not be offsets in the decoded text; names past it)
    codes = records[4::SYM_SIZE].translate(_INFO_CODES)
    # parse_symbols' tests over every symbol at once, a byte per symbol as one integer's
    # bits: kept = a kept kind, and a name, and not undefined (0), ABS or COMMON (0xff..)
    unnamed = _bits(records[0::SYM_SIZE], _IS_ZERO)
    for byte in range(1, 4):
        unnamed &= _bits(records[byte::SYM_SIZE], _IS_ZERO)
    low, high = records[6::SYM_SIZE], records[7::SYM_SIZE]
    undefined = _bits(low, _IS_ZERO) & _bits(high, _IS_ZERO)
    reserved = _bits(high, _IS_FF) & ~_bits(low, _IS_FF)
    kept = _bits(codes, _IS_KEPT) & ~(unnamed | undefined | reserved)
    versions_of: Iterable[int] = range(count)  # each kept symbol's number in the table
    if kept == _bits(codes, _ONE):
        addresses, sizes, homes = words[1::3], words[2::3], shorts[3::12]
    else:
        mask = kept.to_bytes(count, "little")
        offsets = array("I", compress(offsets, mask))
        addresses, sizes = (
            array("Q", compress(words[1::3], mask)),
            array("Q", compress(words[2::3], mask)),
        )
        homes = array("H", compress(shorts[3::12], mask))
        codes = bytes(compress(codes, mask))
        versions_of = compress(versions_of, mask)
    names = _names(strtab.decode("ascii"), offsets)
    joined = "\0".join(names)
    if "\0$" in joined or joined.startswith("$"):
        return None  # AArch64's mapping symbols (`$x`, `$d`), which name nothing
    flags = bytearray(codes)
    hidden: Iterable[object] = ()
    if versym:
        versions = array("H", versym[: len(versym) - len(versym) % 2])
        hidden = [versions[i] & _VERSYM_HIDDEN if i < len(versions) else "@" in name and "@@" not in name
                  for i, name in zip(versions_of, names, strict=True)]  # fmt: skip
    elif "@" in joined:
        hidden = ["@" in name and "@@" not in name for name in names]
    for j in compress(count_from(0), hidden):
        flags[j] |= _HIDDEN
    return names, addresses, sizes, homes, flags


def _names(text: str, offsets: array[int]) -> list[str]:
    """The string at each of `offsets` in `text` (each below its length): to the next NUL,
    or the text's end (a NUL put after it). A name may be the tail of another (a linker
    shares it). Per offset, its end found in C: a split of the whole table and a dict of
    every string by its start took half as long again."""
    text += "\0"
    return [text[offset : text.index("\0", offset)] for offset in offsets]


def _bits(column: bytes, table: bytes) -> int:
    """`column` (a byte per symbol) through `table` (0 or 1 per value), as one integer."""
    return int.from_bytes(column.translate(table), "little")


def _joined(parts: list[_Columns]) -> _Columns:
    if len(parts) == 1:
        return parts[0]
    names: list[str] = []
    addresses, sizes, homes, flags = array("Q"), array("Q"), array("H"), bytearray()
    for part in parts:
        for column, more in zip((names, addresses, sizes, homes, flags), part, strict=True):
            column += more  # type: ignore[operator]  # (each its own kind)
    return names, addresses, sizes, homes, flags


def _new_in(part: _Columns, first: _Columns) -> _Columns:
    """`part` without its symbols of a name and address `first` has (.dynsym repeats most
    of .symtab's globals): first_of_each would drop them (a symbol of a name and address
    seen before, whatever it says else), at the cost of compressing every column after."""
    names, addresses = part[0], part[1]
    address_of = dict(zip(first[0], first[1], strict=True))  # (a name twice: its last; the
    kept = bytes(map(ne, map(address_of.get, names), addresses))  # others first_of_each drops)
    return part if all(kept) else _compressed(part, kept)


def _compressed(columns: _Columns, mask: bytes | bytearray) -> _Columns:
    if all(mask):
        return columns
    names, addresses, sizes, homes, flags = columns
    return (list(compress(names, mask)), array("Q", compress(addresses, mask)), array("Q", compress(sizes, mask)),
            array("H", compress(homes, mask)), bytearray(compress(flags, mask)))  # fmt: skip


def _address_order(
    columns: _Columns, count: int, kept: set[int], by_address: _Sorted
) -> tuple[list[int], list[int]]:
    """(SymbolTable's address index as entry numbers: the symbols in an addressable section
    by address, table order among equals, one per address, address_rank's; the addresses
    where several real function symbols start)."""
    _names, addresses, _sizes, homes, flags = columns
    ranked, at, ties = by_address.ranked, by_address.at, by_address.ties
    everywhere = set(homes) <= kept
    if not everywhere:
        ranked = list(compress(ranked, map(kept.__contains__, map(homes.__getitem__, ranked))))
        at = list(map(addresses.__getitem__, ranked))
        ties = list(compress(range(1, len(at)), map(eq, at[1:], at)))
    order = ranked
    folded: set[int] = set()
    if ties:
        order = ranked.copy()
        drop = bytearray([1]) * len(at)
        for j in ties:
            drop[j] = 0
        for first, end in _runs(ties):
            members = ranked[first:end]
            order[first] = min(members, key=lambda i: _address_rank(_entry(columns, i)))
            if sum(i < count and flags[i] & 3 == 0 for i in members) > 1:
                folded.add(at[first])
        order = list(compress(order, drop))
    if not everywhere:  # (functions outside the sections counted too)
        starts = sorted(compress(addresses[:count], flags[:count].translate(_IS_FUNCTION)))
        folded = set(compress(starts[1:], map(eq, starts, starts[1:])))
    return order, sorted(folded)


def _runs(ties: list[int]) -> Iterator[tuple[int, int]]:
    """(first, end) of each run of equal neighbours, from the positions equal to the one before."""
    first = end = -1
    for j in ties:
        if j != end:
            if first >= 0:
                yield first, end
            first = j - 1
        end = j + 1
    if first >= 0:
        yield first, end


def _entry(columns: _Columns, i: int) -> Entry:
    names, addresses, sizes, homes, flags = columns
    flag = flags[i]
    return (addresses[i], sizes[i], names[i], _KIND_NAMES[flag & 3], _BINDING_NAMES[flag >> 2 & 3],
            homes[i], flag >= _HIDDEN)  # fmt: skip


def _function_part(
    columns: _Columns, by_address: _Sorted, text: str, starts: array[int]
) -> FunctionPart:
    """funclist.pack_functions of the function symbols (by address, then name; PLT stubs
    and `.cold` parts left out), and their names starting `_Z` or `_R` in table order."""
    names, addresses, sizes, _homes, flags = columns
    is_function = flags.translate(_IS_FUNCTION)
    listed = bytearray(is_function)
    for i in _named_like(text, starts, "@plt\0") | _named_like(text, starts, ".cold"):
        listed[i] = 0 if names[i].endswith("@plt") or ".cold" in names[i] else listed[i]
    chosen = bytes(map(listed.__getitem__, by_address.ranked))
    functions, at = list(compress(by_address.ranked, chosen)), list(compress(by_address.at, chosen))
    for first, end in _runs(list(compress(range(1, len(at)), map(eq, at[1:], at)))):
        functions[first:end] = sorted(
            functions[first:end], key=names.__getitem__
        )  # (stable: as by (address, name))
    spans = array("Q", bytes(16 * len(functions)))
    spans[0::2], spans[1::2] = array("Q", at), array("Q", map(sizes.__getitem__, functions))
    mangled: list[str] = []
    if "\0_Z" in text or "\0_R" in text or text.startswith(("_Z", "_R")):
        mangled = [n for n in compress(names, is_function) if n.startswith(("_Z", "_R"))]
    return ("\0".join(map(names.__getitem__, functions)), spans.tobytes()), mangled


def _named_like(text: str, starts: array[int], needle: str) -> set[int]:
    """The names (their numbers) in `text` (joined, each at `starts`) holding `needle` (a
    name's NUL: its end, or the text's)."""
    found: set[int] = set()
    if needle.endswith("\0"):
        text += "\0"
    at = text.find(needle)
    while at >= 0:
        i = bisect_right(starts, at) - 1
        found.add(i)
        at = text.find(needle, starts[i + 1]) if i + 1 < len(starts) else -1
    return found
