"""Registers an unwinding reads on demand. Over a stub a stop reply carries a few of a
thread's registers (x86-64 gdbserver: rip, rsp, rbp) and the rest cost a `g` round trip,
where frame 0's CFI step most often needs only the CFA rule's register and the return
address's (gdb unwinds from the expedited registers the same way)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping


class ReadRegisters(Mapping[str, int]):
    """A stopped thread's registers, each read from `live` when asked, its first value
    recorded in `read`: an unwinding kept across stops compares those, not all."""

    __slots__ = ("_live", "read")

    def __init__(self, live: Mapping[str, int]) -> None:
        self._live = live
        self.read: dict[str, int] = {}

    def __getitem__(self, name: str) -> int:
        value = self._live[name]
        self.read.setdefault(name, value)
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._live

    def __iter__(self) -> Iterator[str]:
        return iter(self._live)

    def __len__(self) -> int:
        return len(self._live)

    def unchanged(self, now: Mapping[str, int]) -> bool:
        """Whether every register read so far has the same value in `now`."""
        return all(name in now and now[name] == value for name, value in self.read.items())


class CallerRegisters(Mapping[str, int]):
    """A caller's registers: those its callee's CFI row gives (`own`), and the ones it
    keeps (same value) read from the innermost frame that holds them only when asked, so
    that the callee-saved registers no rule reads cost no read (no `g` over a stub)."""

    __slots__ = ("own", "_root", "_kept", "_order")
    _root: Mapping[str, int]
    _kept: frozenset[str]

    def __init__(self, own: dict[str, int], callee: Mapping[str, int], kept: Iterable[str],
                 order: tuple[str, ...]) -> None:  # fmt: skip
        self.own = own
        passed = frozenset(kept) - own.keys()
        if isinstance(callee, CallerRegisters):  # one level down at most, however deep the stack
            for name in passed - callee._kept:
                if name in callee.own:
                    own[name] = callee.own[name]
            passed &= callee._kept
            callee = callee._root
        self._root, self._kept, self._order = callee, passed, order

    def __getitem__(self, name: str) -> int:
        own = self.own
        if name in own:
            return own[name]
        if name in self._kept:
            return self._root[name]
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return name in self.own or (name in self._kept and name in self._root)

    def __iter__(self) -> Iterator[str]:
        """The kept ones first, in `order` (as the copy this replaces had them), then the rest."""
        own = self.own
        for name in self._order:
            if name in own or (name in self._kept and name in self._root):
                yield name
        placed = set(self._order)
        yield from (name for name in own if name not in placed)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class Overlaid(Mapping[str, int]):
    """`top`'s registers, else `under`'s (a caller's, else its callee's: those its CFI does
    not restore), each looked up when asked: no copy that reads them all."""

    __slots__ = ("_top", "_under")

    def __init__(self, top: Mapping[str, int], under: Mapping[str, int]) -> None:
        self._top, self._under = top, under

    def __getitem__(self, name: str) -> int:
        return self._top[name] if name in self._top else self._under[name]

    def __contains__(self, name: object) -> bool:
        return name in self._top or name in self._under

    def __iter__(self) -> Iterator[str]:
        """In the order of the copy this replaces ({**under, **top})."""
        yield from self._under
        yield from (name for name in self._top if name not in self._under)

    def __len__(self) -> int:
        return sum(1 for _ in self)
