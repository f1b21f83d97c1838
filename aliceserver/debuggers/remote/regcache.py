"""One stop's registers, per thread: the `g` reply read once (or asked for as the stop
came, prefetch), registers it lacks read with `p`, the ones a `T` stop reply carried taken
from it; forgotten on every resume."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.client import RemoteClient
from aliceserver.debuggers.remote.errors import RemoteError, RemoteUnsupported
from aliceserver.debuggers.remote.tdesc import RegisterInfo, TargetDescription
from aliceserver.debuggers.remote.threadids import ThreadRef


class RegisterCache:
    def __init__(self, client: RemoteClient, description: TargetDescription) -> None:
        self.client = client
        self.description = description
        self._g: dict[ThreadRef, bytes] = {}
        self._single: dict[ThreadRef, dict[int, bytes]] = {}
        self._asked: dict[ThreadRef, bytes] = {}  # prefetched `g` replies, not parsed yet
        self._ints: dict[ThreadRef, dict[str, int]] = {}  # values decoded at this stop, by name
        self._name_sets: dict[tuple[str, ...], frozenset[str]] = {}
        # names -> (name, number, start, end) in the `g` reply, looked up once
        self._layouts: dict[tuple[str, ...], list[tuple[str, int, int, int]]] = {}
        self._generation = 0  # a resume makes a prefetch's late answer stale
        self.reads = 0  # packets sent for registers: for tests and the benchmark
        self.whole_read = False  # a `g` was wanted since the last stop's prefetch (wanted_again)
        self.whole_size = 0  # the bytes of the last `g` reply read

    def clear(self) -> None:
        self._g.clear()
        self._single.clear()
        self._asked.clear()
        self._ints.clear()
        self._generation += 1

    def prefetch(self, thread: ThreadRef) -> None:
        """A stop reply named `thread`, the stub's `Hg` thread now: its `g` asked at once,
        answered while the stop is handed on (a reported stop's frame needs it), read with
        the next reply and parsed only if wanted."""
        if thread in self._g or thread in self._asked:
            return
        generation = self._generation

        def answered(reply: bytes) -> None:
            if generation == self._generation:
                self._asked[thread] = reply

        self.client.connection.post(b"g", answered)

    def expedite(self, thread: ThreadRef, values: dict[int, bytes]) -> None:
        """Registers a stop reply carried: no packet needed for them at this stop."""
        self._single.setdefault(thread, {}).update(values)
        self._ints.pop(thread, None)

    def read(self, thread: ThreadRef, name: str) -> bytes:
        register = self.description[name]
        single = self._single.get(thread, {})
        if register.number in single:
            return single[register.number]
        whole = self._g.get(thread)
        if whole is None:
            whole = self._read_all(thread)
        if register.offset + register.size <= len(whole):
            return whole[register.offset : register.offset + register.size]
        return self._read_one(thread, register)

    def write(self, thread: ThreadRef, name: str, data: bytes) -> None:
        self.write_many(thread, [(name, data)])

    def write_many(self, thread: ThreadRef, parts: Sequence[tuple[str, bytes]]) -> None:
        """Registers of one value (a zmm's xmm, ymmh and zmmh pieces): each with `P`, or,
        where the stub has none, all of them in one `G` (gdb writes the register file once
        per value written)."""
        registers = [(self.description[name], data) for name, data in parts]
        for register, data in registers:
            if len(data) != register.size:
                raise RemoteError(f"{register.name} takes {register.size} bytes, not {len(data)}.")
        self.client.select_thread(thread)
        pending = [(register, data) for register, data in registers if not self._write_one(register, data)]
        if pending:
            whole = bytearray(self._g.get(thread) or self._read_all(thread))
            for register, data in pending:
                if register.offset + register.size > len(whole):
                    raise RemoteError(f"The stub does not write register {register.name}.")
                whole[register.offset : register.offset + register.size] = data
            self.client.ok(b"G" + packets.hex_bytes(bytes(whole)))
        for register, data in registers:
            self._written(thread, register, data)

    def _written(self, thread: ThreadRef, register: RegisterInfo, data: bytes) -> None:
        self._single.setdefault(thread, {})[register.number] = data
        self._ints.pop(thread, None)
        if thread in self._g:
            whole = bytearray(self._g[thread])
            if register.offset + register.size <= len(whole):
                whole[register.offset : register.offset + register.size] = data
                self._g[thread] = bytes(whole)

    def _write_one(self, register: RegisterInfo, data: bytes) -> bool:
        """`P`; False where the stub has none (answered empty once: from then on every
        write goes through `G`, as gdb's store_register_using_P disables the packet)."""
        if "P" in self.client.refused:
            return False
        try:
            self.client.ok(b"P%x=" % register.number + packets.hex_bytes(data))
        except RemoteUnsupported:
            self.client.refused.add("P")
            return False
        return True

    def wanted_again(self) -> bool:
        """Whether the last reported stop read a `g` (an argument in a register the stop
        reply lacks): a step in the same code wants it again, asked with the stop's
        prefetch, not in a round trip of its own. Asked once per stop."""
        wanted, self.whole_read = self.whole_read, False
        return wanted

    def _read_all(self, thread: ThreadRef) -> bytes:
        self.whole_read = True
        self.client.connection.settle()
        asked = self._asked.pop(thread, None)
        if asked is not None and asked[:1] != b"E" and asked:
            whole = packets.from_hex(asked)
        else:
            self.client.select_thread(thread)
            self.reads += 1
            whole = packets.from_hex(self.client.ask(b"g"))
        self._g[thread], self.whole_size = whole, len(whole)
        return whole

    def _read_one(self, thread: ThreadRef, register: RegisterInfo) -> bytes:
        if "p" in self.client.refused:
            raise RemoteError(f"The stub does not give register {register.name}.")
        self.client.select_thread(thread)
        self.reads += 1
        try:
            data = packets.from_hex(self.client.ask(b"p%x" % register.number))
        except RemoteUnsupported:
            self.client.refused.add("p")
            raise RemoteError(f"The stub does not give register {register.name}.") from None
        self._single.setdefault(thread, {})[register.number] = data
        return data

    def general(self, thread: ThreadRef, names: tuple[str, ...]) -> GeneralRegisters:
        """`names` of `thread` as integers, each read when first asked (a stop reply's
        registers need no `g`) and decoded once per stop."""
        known = self._name_sets.get(names)
        if known is None:
            known = self._name_sets[names] = frozenset(names)
        return GeneralRegisters(self, thread, names, known)

    def decoded(self, thread: ThreadRef) -> dict[str, int]:
        """The values of `thread` decoded at this stop (GeneralRegisters fills it)."""
        values = self._ints.get(thread)
        if values is None:
            values = self._ints[thread] = {}
        return values

    def decode(self, thread: ThreadRef, name: str, names: tuple[str, ...]) -> int:
        """Register `name` of `thread`: from the stop reply where it came there, else with
        every one of `names` the `g` reply holds, decoded in one go."""
        values = self.decoded(thread)
        single = self._single.get(thread, {})
        if self.description[name].number not in single:
            whole = self._g.get(thread)
            if whole is None:
                whole = self._read_all(thread)
            for each, number, start, end in self._layout(names):
                if number in single:
                    values[each] = int.from_bytes(single[number], "little")
                elif end <= len(whole):
                    values[each] = int.from_bytes(whole[start:end], "little")
        value = values.get(name)
        if value is None:
            value = values[name] = int.from_bytes(self.read(thread, name), "little")
        return value

    def _layout(self, names: tuple[str, ...]) -> list[tuple[str, int, int, int]]:
        layout = self._layouts.get(names)
        if layout is None:
            registers = [self.description[name] for name in names]
            layout = self._layouts[names] = [
                (r.name, r.number, r.offset, r.offset + r.size) for r in registers
            ]
        return layout


class GeneralRegisters(Mapping[str, int]):
    """A stopped thread's general registers by name, read on demand: a step's unwinding
    copies them all a few times at each stop, so each is decoded once."""

    on_demand = True  # each read may cost a packet: unwinding reads only those it needs

    def __init__(self, cache: RegisterCache, thread: ThreadRef, names: tuple[str, ...],
                 known: frozenset[str]) -> None:  # fmt: skip
        self._cache, self._thread, self._names, self._known = cache, thread, names, known

    def __getitem__(self, name: str) -> int:
        value = self._cache.decoded(self._thread).get(name)
        if value is None:
            if name not in self._known:
                raise KeyError(name)
            value = self._cache.decode(self._thread, name, self._names)
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._known  # no read (Mapping's would read it)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def snapshot(self) -> dict[str, int]:
        """All of them as a dict (an unwinding's copy): one lookup each where the stop
        decoded them, not Mapping's __getitem__ per name (29 calls, 60 us at each stop)."""
        values = self._cache.decoded(self._thread)
        return {name: values[name] if name in values else self[name] for name in self._names}
