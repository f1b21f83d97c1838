"""ELF symbol tables: fast raw Elf64_Sym parsing and the name / address indexes over them."""

from __future__ import annotations

import struct
import sys
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter

from aliceserver.debuggers.symbols.symtab_columns import PackedColumns

SHN_UNDEF = 0
SHN_LORESERVE = 0xFF00
SHN_XINDEX = 0xFFFF

SYM_SIZE = 24  # sizeof(Elf64_Sym)

# st_info type -> kind; SECTION, FILE and TLS (an offset, not an address) are left out.
_KINDS = {0: "other", 1: "object", 2: "func", 5: "object", 10: "func"}  # 10: GNU_IFUNC
# st_info binding -> binding; 10 is GNU_UNIQUE, a global for our purposes.
_BINDINGS = {0: "local", 1: "global", 2: "weak", 10: "global"}
_BINDING_RANK = {"global": 0, "weak": 1, "local": 2}
_KIND_RANK = {"func": 0, "object": 1, "other": 2}
_VERSYM_HIDDEN = 0x8000

# How far symbol_at reaches past a symbol that does not contain the address.
_SIZED_PADDING = 64  # alignment padding after a function with a size
_UNSIZED_REACH = 64 * 1024  # a label without a size (hand-written assembly)
_CONTAIN_SCAN = 64  # how many preceding addresses may hold an enclosing symbol
# Lookups by name answered by scanning before the name index is built: the index of
# CPython's 14,000 symbols takes 2-7 ms, a scan 0.7 ms, and a session's first stop asks
# for one or two names (a call site's callee).
_SCANS_BEFORE_INDEX = 4


@dataclass(frozen=True, slots=True)
class ElfSymbol:
    name: str
    address: int  # link-time value
    size: int
    kind: str  # "func" | "object" | "other"
    binding: str  # "global" | "local" | "weak"


# A parsed symbol, kept as a plain tuple because tables hold tens of thousands:
# (address, size, name, kind, binding, section index, hidden = a non-default version).
Entry = tuple[int, int, str, str, str, int, bool]

# A table in the on-disk index: names joined by NUL (a string table ends each with one),
# (address, size, section index) of each as little-endian 64-bit words, a byte of kind,
# binding and hidden each, how many are real symbols (the rest are PLT stubs), the
# sections as (index, start, end), and the address index (the entry that names each
# address, in address order) as 32-bit entry numbers: sorting it anew took as long as
# unpacking; and where each name starts in the joined names, 32-bit each (finding them
# again split all the names: 1-2 ms of each start for CPython's 14,830); and the addresses
# where several function symbols start, 64-bit each (sorting every function's address to
# find them took 1-2 ms at a first stop). Plain containers unpickle at memory speed. A change to what parse_symbols
# keeps must bump cache.FORMAT_VERSION: cached tables are not re-parsed; and symtab_pack.py, which packs
# the same table from the section bytes, must change with it.
PackedTable = tuple[str, bytes, bytes, int, tuple[tuple[int, int, int], ...], bytes, bytes, bytes]
_KIND_NAMES = ("func", "object", "other")
_BINDING_NAMES = ("global", "weak", "local")
_FLAG_VALUES = bytes(v for v in range(32) if v & 3 < 3 and v >> 2 & 3 < 3)


def is_packed_table(value: object) -> bool:
    """Whether `value` has the shape of a PackedTable (a damaged cache file is not one)."""
    if not isinstance(value, tuple) or len(value) != 8:
        return False
    text, raw, flags, count, sections, order, starts, folded = value
    if not (isinstance(text, str) and isinstance(raw, bytes) and isinstance(flags, bytes)
            and isinstance(count, int) and isinstance(sections, tuple)
            and isinstance(order, bytes) and isinstance(starts, bytes)
            and isinstance(folded, bytes) and len(folded) % 8 == 0):  # fmt: skip
        return False
    size = len(flags)
    if len(raw) != 24 * size or not 0 <= count <= size or flags.translate(None, _FLAG_VALUES):
        return False
    if len(order) % 4 or len(order) > 4 * size or max(_words32(order), default=0) >= max(size, 1):
        return False
    if (text.count("\0") + 1 if size else len(text)) != size:
        return False
    # the first start and the last (the file's CRC-32 guards the others)
    if len(starts) != 4 * size or (size and (_words32(starts[:4])[0] or _words32(starts[-4:])[0] > len(text))):
        return False
    return all(
        isinstance(s, tuple) and len(s) == 3 and all(isinstance(v, int) for v in s)
        for s in sections
    )


def packed_addresses(packed: PackedTable) -> bytes:
    """The addresses of a packed table's address index (its `order`), to keep beside it."""
    return PackedColumns(packed, _KIND_NAMES, _BINDING_NAMES).address_column()


def are_packed_addresses(value: object, packed: PackedTable) -> bool:
    """Whether `value` has the shape of packed_addresses(packed) (a damaged payload's has not)."""
    return isinstance(value, bytes) and len(value) == 2 * len(packed[5])


def _words32(data: bytes) -> array[int]:
    words = array("I", data)
    if sys.byteorder != "little":
        words.byteswap()
    return words


def _struct_prefix(little_endian: bool) -> str:
    return "<" if little_endian else ">"


def parse_symbols(
    data: bytes, strtab: bytes, versym: bytes | None = None, *, little_endian: bool = True
) -> list[Entry]:
    """Parse a SHT_SYMTAB / SHT_DYNSYM section, keeping defined, named, addressable symbols."""
    fmt = _struct_prefix(little_endian) + "IBBHQQ"
    usable = len(data) - len(data) % SYM_SIZE
    versions = _versions(versym, little_endian)
    nversions = len(versions)
    strtab_len = len(strtab)
    kinds = _KINDS
    bindings = _BINDINGS
    find = strtab.find
    entries: list[Entry] = []
    append = entries.append
    index = -1
    for st_name, st_info, _other, shndx, value, size in struct.iter_unpack(
        fmt, memoryview(data)[:usable]
    ):
        index += 1
        if shndx == SHN_UNDEF or st_name == 0 or st_name >= strtab_len:
            continue
        if SHN_LORESERVE <= shndx < SHN_XINDEX:
            continue  # ABS and COMMON values are not addresses in the image
        kind = kinds.get(st_info & 0xF)
        if kind is None:
            continue
        end = find(b"\0", st_name)
        name = strtab[st_name : end if end >= 0 else None].decode("utf-8", "surrogateescape")
        if name[:1] == "$" and _is_mapping_symbol(name):
            continue  # AArch64's $x/$d mark code and data, as gdb they name nothing
        if index < nversions:
            hidden = bool(versions[index] & _VERSYM_HIDDEN)
        else:
            hidden = "@" in name and "@@" not in name
        append((value, size, name, kind, bindings.get(st_info >> 4, "global"), shndx, hidden))
    return entries


def _is_mapping_symbol(name: str) -> bool:
    """An ARM/AArch64 ELF mapping symbol: `$x`, `$d` (or `$a`, `$t`), alone or `$x.suffix`."""
    return len(name) >= 2 and name[1] in "xdat" and (len(name) == 2 or name[2] == ".")


def symbol_name(data: bytes, strtab: bytes, index: int, *, little_endian: bool = True) -> str:
    """The name of symbol number `index`, defined or not ("" when out of range)."""
    offset = index * SYM_SIZE
    if index <= 0 or offset + 4 > len(data):
        return ""
    (st_name,) = struct.unpack_from(_struct_prefix(little_endian) + "I", data, offset)
    if st_name >= len(strtab):
        return ""
    end = strtab.find(b"\0", st_name)
    return strtab[st_name : end if end >= 0 else None].decode("utf-8", "surrogateescape")


def _versions(versym: bytes | None, little_endian: bool) -> Sequence[int]:
    if not versym:
        return ()
    table = array("H", versym[: len(versym) - len(versym) % 2])
    if little_endian != (sys.byteorder == "little"):
        table.byteswap()
    return table


def base_name(name: str) -> str:
    """`memcpy@@GLIBC_2.14` -> `memcpy`."""
    at = name.find("@")
    return name if at < 0 else name[:at]


def _name_rank(entry: Entry) -> tuple[bool, int, bool, bool, int]:
    address, size, _name, kind, binding, _shndx, hidden = entry
    return (kind != "func", _BINDING_RANK[binding], hidden, size == 0, address)


def _address_rank(entry: Entry) -> tuple[int, bool, int, int, bool, int, str]:
    # The address index's one entry per address (kept as cached indexes have it): the
    # plainest public name. The name shown is gdb's pick among them all (_gdb_pick).
    _address, size, name, kind, binding, _shndx, hidden = entry
    return (
        _KIND_RANK[kind],
        size == 0,
        len(name) - len(name.lstrip("_")),
        _BINDING_RANK[binding],
        hidden,
        len(name),
        name,
    )


def _gdb_order(entry: Entry) -> bytes:
    # gdb sorts the minimal symbols at one address by strcmp of their names
    return entry[2].encode("utf-8", "surrogateescape")


def _is_text(entry: Entry) -> bool:
    """gdb's mst_text (what lookup_minimal_symbol_by_pc_section prefers): a global or
    weak symbol in code, where a local one is mst_file_text."""
    return entry[3] == "func" and entry[4] != "local"


def _gdb_pick(descending: Iterator[Entry], pc: int, section: int | None) -> Entry | None:
    """gdb 13's lookup_minimal_symbol_by_pc_section over the symbols at or before `pc` in
    its order backwards (by address, then name, from the last): symbols of another section
    skipped; a non-mst_text one yields to an mst_text one just before it of the same
    address, size and section; a label (size 0) is kept aside (the first met) while a sized
    one is looked for; past a sized one's end, one before it still holding `pc` is taken.
    So among aliases, the greatest name wins: `zz_weak` over `plain_target`, `write`
    over `__libc_write`."""
    label: Entry | None = None
    current = next(descending, None)
    while current is not None:
        before = next(descending, None)  # gdb's msymbol[hi - 1]
        if section is not None and current[5] != section:
            current = before
            continue
        if (before is not None and not _is_text(current) and _is_text(before)
                and before[:2] == current[:2] and before[5] == current[5]):  # fmt: skip
            current = before
            continue
        if current[1] == 0:
            label = label or current
            current = before
            continue
        if before is not None and current[0] + current[1] <= pc < before[0] + before[1]:
            current = before
            continue
        break
    if current is None or current[1] == 0 or pc >= current[0] + current[1]:
        return label
    return current


def _symbol(entry: Entry) -> ElfSymbol:
    return ElfSymbol(entry[2], entry[0], entry[1], entry[3], entry[4])


class SymbolTable:
    """Name and address indexes over the symbols of one image, each built on first use.

    Immutable once built; a lazily built index is assigned in one step, so concurrent
    readers at worst build it twice.
    """

    def __init__(
        self,
        entries: Iterable[Entry],
        sections: Mapping[int, tuple[int, int]],
        synthetic: Iterable[Entry] = (),
        *,
        unique: bool = False,
    ) -> None:
        """`sections`: allocated section index -> (start, end); `synthetic`: `name@plt` stubs,
        found by their exact name only; `unique`: no two entries share name and address."""
        self._sections = sections
        self._real: list[Entry] | None
        if unique:
            self._real = list(entries)
        else:
            first: dict[tuple[str, int], Entry] = {}
            for entry in entries:
                first.setdefault((entry[2], entry[0]), entry)
            self._real = list(first.values())
        self._columns: PackedColumns | None = None  # from the index: entries made on demand
        self._synthetic = list(synthetic)
        self._by_name: dict[str, list[Entry]] | None = None
        self._scans = 0  # names looked up without the name index
        # addresses, best entries
        self._index: tuple[Sequence[int], Sequence[Entry]] | None = None
        self._folded: frozenset[int] | None = None  # addresses of several function symbols
        # address -> its symbols in gdb's order, where there are several
        self._aliases: dict[int, list[Entry]] = {}
        self._alias_scans = 0  # addresses whose aliases were searched for one by one
        self._all: list[ElfSymbol] | None = None
        self._mangled: bool | None = None  # has_mangled_names' answer

    @property
    def _entries(self) -> list[Entry]:
        """The real symbols (not PLT stubs), made from the packed columns on first need."""
        real = self._real
        if real is None:
            assert self._columns is not None
            real = self._real = self._columns.entries(0, self._columns.count)
        return real

    def __len__(self) -> int:
        if self._real is None and self._columns is not None:
            return len(self._columns)
        return len(self._entries) + len(self._synthetic)

    def packed(self) -> PackedTable:
        """The table as plain containers (for the on-disk index), for from_packed."""
        if self._columns is not None:
            return self._columns.packed
        everything = self._entries + self._synthetic
        words = array("Q", [v for e in everything for v in (e[0], e[1], e[5])])
        if sys.byteorder != "little":
            words.byteswap()
        flags = bytes(
            _KIND_NAMES.index(e[3]) | _BINDING_NAMES.index(e[4]) << 2 | e[6] << 4
            for e in everything
        )
        sections = tuple((i, start, end) for i, (start, end) in self._sections.items())
        number = {id(e): i for i, e in enumerate(everything)}
        order = array("I", [number[id(e)] for e in self._address_index()[1]])
        if sys.byteorder != "little":
            order.byteswap()
        names = "\0".join(e[2] for e in everything)
        starts = array("I", accumulate((len(e[2]) + 1 for e in everything[:-1]), initial=0) if everything else ())
        if sys.byteorder != "little":
            starts.byteswap()
        folded = array("Q", sorted(self._shared_starts()))
        if sys.byteorder != "little":
            folded.byteswap()
        return (names, words.tobytes(), flags, len(self._entries), sections, order.tobytes(), starts.tobytes(),
                folded.tobytes())  # fmt: skip

    @classmethod
    def from_packed(cls, packed: PackedTable, addresses: bytes | None = None) -> SymbolTable:
        """The table `packed()` gave (check it with is_packed_table first); `addresses`:
        packed_addresses(packed), kept with it (check it with are_packed_addresses)."""
        columns = PackedColumns(packed, _KIND_NAMES, _BINDING_NAMES)
        bounds = {i: (start, end) for i, start, end in packed[4]}
        table = cls((), bounds, columns.entries(columns.count, len(columns)), unique=True)
        table._real, table._columns = None, columns
        table._index = columns.by_address(addresses)
        folded = array("Q", packed[7])
        if sys.byteorder != "little":
            folded.byteswap()
        table._folded = frozenset(folded)
        return table

    def symbols(self) -> Sequence[ElfSymbol]:
        if self._all is None:
            everything = self._entries + self._synthetic
            everything.sort(key=itemgetter(0, 2))
            self._all = [_symbol(e) for e in everything]
        return self._all

    def functions(self) -> list[tuple[str, int, int]]:
        """(name, address, size) of every function symbol: plain tuples, for indexes that
        scan all of them (building an ElfSymbol per entry costs more than the scan)."""
        return [(e[2], e[0], e[1]) for e in self._entries + self._synthetic if e[3] == "func"]

    def has_mangled_names(self) -> bool:
        """Whether some symbol has a C++ (Itanium ABI) mangled name: once per table."""
        if self._mangled is None:
            if self._real is None and self._columns is not None:
                self._mangled = self._columns.any_name_starts("_Z")
            else:
                self._mangled = any(e[2].startswith("_Z") for e in self._entries + self._synthetic)
        return self._mangled

    def functions_containing(self, fragment: str) -> list[ElfSymbol]:
        """The function symbols (PLT stubs too) whose names hold `fragment` (no NUL)."""
        if self._real is None and self._columns is not None:
            entries = self._columns.containing(fragment)
        else:
            entries = [e for e in self._entries + self._synthetic if fragment in e[2]]
        return [_symbol(e) for e in entries if e[3] == "func"]

    def find(self, name: str) -> ElfSymbol | None:
        candidates = self._named(name)
        if not candidates and "@" in name and not name.endswith("@plt"):
            candidates = self._named(base_name(name))
        if not candidates:
            return None
        return _symbol(min(candidates, key=_name_rank))

    def _named(self, name: str) -> list[Entry]:
        """The name index's entries for `name` (in its order), by a scan for the first few
        lookups of a table."""
        if self._by_name is not None or self._scans >= _SCANS_BEFORE_INDEX:
            return self._name_index().get(name, [])
        self._scans += 1
        if self._real is None and self._columns is not None:
            found = self._columns.named(name) if "\0" not in name else []
        elif "@" in name:  # only an entry of exactly that name (a base name has no @)
            found = [e for e in self._entries if e[2] == name]
        else:  # that name, or it with a version (`memcpy@@GLIBC_2.14`)
            length = len(name)
            found = [e for e in self._entries
                     if e[2][:length] == name and (len(e[2]) == length or e[2][length] == "@")]  # fmt: skip
        return found + [e for e in self._synthetic if e[2] == name]

    def at(self, address: int) -> tuple[ElfSymbol, int] | None:
        """The symbol containing `address`, else a nearby preceding function (or None)."""
        addrs, best = self._address_index()
        i = bisect_right(addrs, address) - 1
        if i < 0:
            return None
        for j in range(i, max(-1, i - _CONTAIN_SCAN), -1):
            start, size = best[j][0], best[j][1]
            if size and address < start + size:
                return _symbol(self._gdb_alias(best[j], address)), address - start
        entry = self._gdb_alias(best[i], address)
        start, size, _name, kind, _binding, shndx, _hidden = entry
        if kind == "object":
            return None  # data is only named from inside the object
        if size:
            in_reach = address - (start + size) < _SIZED_PADDING
        else:
            in_reach = address - start < _UNSIZED_REACH
        if not in_reach or not self._same_section(shndx, address):
            return None
        return _symbol(entry), address - start

    def in_section(self, address: int) -> tuple[ElfSymbol, int, int] | None:
        """gdb's lookup_minimal_symbol_by_pc_section (`info symbol`; _gdb_pick) in the
        allocated section holding `address`: (symbol, offset, section index)."""
        sections = self._sections.items()
        section = next(((i, low) for i, (low, high) in sections if low <= address < high), None)
        if section is None:
            return None
        index, low = section
        found = _gdb_pick(self._descending(address, low), address, index)
        return None if found is None else (_symbol(found), address - found[0], index)

    def _descending(self, address: int, low: int) -> Iterator[Entry]:
        """The symbols from `address` down to `low` in gdb's order backwards."""
        addrs, best = self._address_index()
        for i in range(bisect_right(addrs, address) - 1, -1, -1):
            entry = best[i]
            if entry[0] < low:
                return
            yield from reversed(self._at_address(entry))

    def _gdb_alias(self, entry: Entry, pc: int) -> Entry:
        """The symbol gdb names `pc` by among those at `entry`'s address (`entry`: the
        address index's one there)."""
        group = self._at_address(entry)
        if len(group) == 1:
            return entry
        if entry[1] and pc >= entry[0] + entry[1]:
            pc = entry[0]  # (past its end, as at() reaches: as from inside)
        return _gdb_pick(reversed(group), pc, entry[5]) or entry

    def _at_address(self, entry: Entry) -> list[Entry]:
        """The symbols at `entry`'s address in gdb's order (by name)."""
        group = self._aliases.get(entry[0])
        if group is not None:
            return group
        columns = self._columns
        if columns is None:
            return [entry]  # (the address index put every shared address in _aliases)
        if entry[3] == "func":
            if entry[0] not in self._shared_starts():  # (a label or object beside it is not sought)
                return [entry]
            self._alias_scans += 1
            if self._alias_scans > _SCANS_BEFORE_INDEX:  # all functions' aliases at once
                shared: dict[int, list[Entry]] = {}
                for each in columns.at_addresses(self._shared_starts()):
                    shared.setdefault(each[0], []).append(each)
                for address, found in shared.items():
                    self._aliases.setdefault(address, self._gdb_group(found))
                return self._aliases.get(entry[0], [entry])
        group = self._gdb_group(columns.at_address(entry[0])) or [entry]
        self._aliases[entry[0]] = group
        return group

    def _gdb_group(self, found: list[Entry]) -> list[Entry]:
        """Those of `found` (the symbols at one address) in an addressable section, by name."""
        sections = self._sections
        return sorted((e for e in found if e[5] in sections or e[5] == SHN_XINDEX), key=_gdb_order)

    def shared_by_functions(self, address: int) -> bool:
        """Whether several function symbols start at `address` (aliases, or functions gcc
        folded into one body: -fipa-icf)."""
        if self._folded is None:
            self._folded = self._shared_starts()
        return address in self._folded

    def _shared_starts(self) -> frozenset[int]:
        if self._folded is not None:
            return self._folded
        if self._real is None and self._columns is not None:
            return self._columns.function_starts_shared()
        starts = Counter(e[0] for e in self._entries if e[3] == "func")
        return frozenset(start for start, count in starts.items() if count > 1)

    def _same_section(self, shndx: int, address: int) -> bool:
        bounds = self._sections.get(shndx)
        return bounds is not None and bounds[0] <= address < bounds[1]

    def _name_index(self) -> dict[str, list[Entry]]:
        if self._by_name is not None:
            return self._by_name
        by_name: dict[str, list[Entry]] = {}
        for entry in self._entries:
            name = entry[2]
            by_name.setdefault(name, []).append(entry)
            if "@" in name:
                by_name.setdefault(base_name(name), []).append(entry)
        for entry in self._synthetic:
            by_name.setdefault(entry[2], []).append(entry)
        self._by_name = by_name
        return by_name

    def _address_index(self) -> tuple[Sequence[int], Sequence[Entry]]:
        if self._index is not None:
            return self._index
        sections = self._sections
        addressable = [
            e for e in self._entries + self._synthetic if e[5] in sections or e[5] == SHN_XINDEX
        ]
        addressable.sort(key=itemgetter(0))
        best: list[Entry] = []
        i, n = 0, len(addressable)
        while i < n:
            j = i + 1
            while j < n and addressable[j][0] == addressable[i][0]:
                j += 1
            if j == i + 1:
                best.append(addressable[i])
            else:
                best.append(min(addressable[i:j], key=_address_rank))
                self._aliases[addressable[i][0]] = sorted(addressable[i:j], key=_gdb_order)
            i = j
        self._index = ([e[0] for e in best], best)
        return self._index
