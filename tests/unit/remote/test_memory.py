"""Memory over a fake stub: binary `x` reads where offered, `m` otherwise, `X` writes
falling back to `M`, chunks within the packet size, partial reads at a page's end."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.remote import packets
from aliceserver.debuggers.remote.breakpoints import X86_TRAP, StubBreakpoints
from aliceserver.debuggers.remote.client import RemoteClient
from aliceserver.debuggers.remote.connection import Connection
from aliceserver.debuggers.remote.memory import RemoteMemory
from aliceserver.errors import TargetError
from tests.support.rsp_fake import FakeStub

_BASE = 0x10000
_PAGE = 4096


class Target:
    """Two pages of memory at _BASE, nothing else; `x` only when `binary`, `X` never."""

    def __init__(self, binary: bool) -> None:
        self.binary = binary
        self.memory = bytearray(bytes(range(256)) * (2 * _PAGE // 256))

    def _span(self, text: bytes) -> tuple[int, int]:
        address, length = (int(part, 16) for part in text.split(b","))
        return address, length

    def answer(self, body: bytes) -> list[bytes]:
        if body.startswith(b"qSupported"):
            return [b"PacketSize=100" + (b";binary-upload+" if self.binary else b"")]
        if body == b"vCont?":
            return [b""]
        if body[:1] in b"xm" and body[:1]:
            address, length = self._span(body[1:])
            if not _BASE <= address <= address + length <= _BASE + len(self.memory):
                return [b"E14"]  # as gdbserver: all or nothing, even across a page's end
            data = bytes(self.memory[address - _BASE : address - _BASE + length])
            return [b"b" + packets.escape(data) if body[:1] == b"x" else packets.hex_bytes(data)]
        if body.startswith(b"M"):
            head, _, data = body[1:].partition(b":")
            address, length = self._span(head)
            self.memory[address - _BASE : address - _BASE + length] = packets.from_hex(data)
            return [b"OK"]
        return [b""]


def _memory(binary: bool) -> tuple[RemoteMemory, FakeStub, Target]:
    target = Target(binary)
    stub = FakeStub(target.answer)
    client = RemoteClient(Connection(stub))
    client.negotiate()
    return RemoteMemory(client), stub, target


@settings(max_examples=30)
@given(st.booleans(), st.integers(0, 2 * _PAGE - 1), st.integers(1, 700))
def test_reads_in_chunks_and_stop_at_the_end_of_memory(
    binary: bool, offset: int, size: int
) -> None:
    memory, stub, target = _memory(binary)
    got = memory.read(_BASE + offset, size)
    assert got == bytes(target.memory[offset : offset + size])
    verbs = {request[:1] for request in stub.requests if request[:1] in (b"x", b"m")}
    assert verbs == ({b"x"} if binary else {b"m"})
    # No request asks for more than a reply can carry within the packet size.
    assert all(
        int(r.split(b",")[1], 16) <= 0x100 // 2 for r in stub.requests if r[:1] in (b"x", b"m")
    )


def test_nothing_readable_is_gdbs_error() -> None:
    memory, _, _ = _memory(False)
    with pytest.raises(TargetError, match="Cannot access memory at address 0x5"):
        memory.read(5, 8)


def test_writes_fall_back_from_x_to_m() -> None:
    memory, stub, target = _memory(False)
    data = b"#$}*" * 50
    memory.write(_BASE + 10, data)
    assert bytes(target.memory[10 : 10 + len(data)]) == data
    assert not memory.binary_writes
    assert [r[:1] for r in stub.requests if r[:1] in (b"X", b"M")][0] == b"X"


def test_a_stub_without_z0_gets_our_own_trap() -> None:
    memory, stub, target = _memory(False)
    traps = StubBreakpoints(memory.client, memory)
    before = bytes(target.memory[0x20:0x21])
    traps.insert(_BASE + 0x20)  # the fake stub answers Z0 empty
    assert not traps.stub_traps and bytes(target.memory[0x20:0x21]) == X86_TRAP
    assert traps.own_trap_before(_BASE + 0x21) == _BASE + 0x20
    traps.remove(_BASE + 0x20)
    assert bytes(target.memory[0x20:0x21]) == before
    assert sum(r.startswith(b"Z0") for r in stub.requests) == 1  # asked once, then never


def test_reads_at_one_stop_are_served_from_the_lines_read_until_the_program_runs() -> None:
    memory, stub, target = _memory(False)
    reads = lambda: sum(r[:1] == b"m" for r in stub.requests)  # noqa: E731
    assert memory.read(_BASE + 0x10, 16) == bytes(target.memory[0x10:0x20])
    first = reads()
    assert memory.read(_BASE + 0x14, 0x24) == bytes(target.memory[0x14:0x38])  # the same line
    assert reads() == first
    target.memory[0x10] ^= 0xFF  # the program ran and changed it
    memory.forget()
    assert memory.read(_BASE + 0x10, 1) == bytes(target.memory[0x10:0x11])
    memory.write(_BASE + 0x11, b"\x00")  # a write of ours is read back
    assert memory.read(_BASE + 0x10, 2) == bytes(target.memory[0x10:0x12])


def test_a_cached_read_stops_where_memory_ends_as_an_uncached_one() -> None:
    memory, _, target = _memory(False)
    end = _BASE + len(target.memory)
    assert memory.read(end - 8, 64) == bytes(target.memory[-8:])
    with pytest.raises(TargetError, match=f"Cannot access memory at address {end:#x}"):
        memory.read(end, 8)


def test_a_prefetched_line_serves_the_stop_and_a_resume_before_its_answer_drops_it() -> None:
    memory, stub, target = _memory(False)
    memory.client.connection.acks = stub.acks = False  # posted packets wait for no `+`
    memory.client.packet_size = 0x400  # a line fits a reply
    reads = lambda: sum(r[:1] == b"m" for r in stub.requests)  # noqa: E731
    memory.prefetch(_BASE + 0x123)
    memory.client.connection.flush()
    assert reads() == 1
    assert memory.read(_BASE + 0x120, 8) == bytes(target.memory[0x120:0x128])
    assert reads() == 1  # the prefetched line
    memory.forget()
    memory.prefetch(_BASE + 0x123)
    memory.client.connection.flush()
    memory.forget()  # the program ran before the answer was read
    target.memory[0x120] ^= 0xFF
    assert memory.read(_BASE + 0x120, 1) == bytes(target.memory[0x120:0x121])
    assert reads() == 3


def test_a_read_across_lines_asks_for_the_missing_ones_at_once() -> None:
    """A string crossing a line (a stop's char * argument) costs one round trip, not one a line."""
    memory, stub, target = _memory(False)
    memory.client.packet_size = 0x1000  # several lines fit a reply
    reads = lambda: sum(r[:1] == b"m" for r in stub.requests)  # noqa: E731
    assert memory.read(_BASE + 0xF0, 0x40) == bytes(target.memory[0xF0:0x130])
    assert reads() == 1
    assert memory.read(_BASE + 0x100, 0x100) == bytes(target.memory[0x100:0x200])  # both lines kept
    assert reads() == 1
    end = _BASE + len(target.memory)
    assert memory.read(end - 0x120, 0x200) == bytes(target.memory[-0x120:])  # up to where memory ends
    with pytest.raises(TargetError):
        memory.read(end, 8)


def test_the_stack_lines_a_stop_read_are_asked_with_the_next_stop() -> None:
    memory, stub, target = _memory(False)
    memory.client.connection.acks = stub.acks = False
    memory.client.packet_size = 0x1000
    reads = lambda: [r for r in stub.requests if r[:1] == b"m"]  # noqa: E731
    sp = _BASE + 0x310
    memory.prefetch_stack(sp, 4)
    memory.client.connection.flush()
    assert memory.read(sp, 0x200) == bytes(target.memory[0x310:0x510])  # the frames read two lines up
    assert len(reads()) == 2
    memory.forget()  # the program ran
    memory.prefetch_stack(sp + 0x8, 4)
    memory.client.connection.flush()
    assert reads()[-1] == b"m%x,%x" % (_BASE + 0x300, 0x300)  # those lines, in the stop's request
    assert memory.read(sp, 0x200) == bytes(target.memory[0x310:0x510])
    assert len(reads()) == 3
