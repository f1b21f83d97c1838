"""Frame-0 variables kept across stops only while every input they were made from is the
same: the unwinding they were made on, the settings, and the bytes of each read."""

from __future__ import annotations

from collections.abc import Callable

from aliceserver.debuggers.model import VariableInfo
from aliceserver.debuggers.source.keptarguments import KeptVariables, RecordingReader


class Memory:
    def __init__(self) -> None:
        self.bytes = {0x1000: b"\x01\x00\x00\x00", 0x2000: b"\x07" * 8}

    def read(self, address: int, size: int) -> bytes:
        return self.bytes[address][:size]


def _session() -> tuple[Memory, RecordingReader, KeptVariables, list[str]]:
    memory = Memory()
    reader = RecordingReader(memory.read)
    return memory, reader, KeptVariables(reader), []


def _made(reader: RecordingReader, made: list[str], floats: bool, reference: int) -> Callable[[], list[VariableInfo]]:
    def make() -> list[VariableInfo]:
        made.append("made")
        value = int.from_bytes(reader(0x1000, 4), "little")
        if floats:
            reader.read_other()  # as Frames' float registers read
        return [VariableInfo("count", "int", str(value), reference=reference)]

    return make


def _ask(
    kept: KeptVariables, reader: RecordingReader, made: list[str], unwinding: object, *, floats: bool = False,
    reference: int = 0,
) -> str:  # fmt: skip
    names = {7: ("value of reference 7",)}
    infos = kept.variables(1, "arguments", unwinding, ("settings",), _made(reader, made, floats, reference),
                           names.__getitem__, lambda named: 70 + len(made))  # fmt: skip
    return f"{infos[0].value}/{infos[0].reference}"


def test_kept_while_the_unwinding_and_the_bytes_read_are_the_same() -> None:
    memory, reader, kept, made = _session()
    unwinding = object()
    assert _ask(kept, reader, made, unwinding) == "1/0"
    kept.next_stop()
    assert _ask(kept, reader, made, unwinding) == "1/0" and len(made) == 1
    kept.next_stop()
    memory.bytes[0x1000] = b"\x02\x00\x00\x00"  # another thread wrote it
    assert _ask(kept, reader, made, unwinding) == "2/0" and len(made) == 2
    kept.next_stop()
    assert _ask(kept, reader, made, object()) == "2/0" and len(made) == 3  # unwound anew
    memory.bytes[0x1000] = b"\x03\x00\x00\x00"  # `set var` at the same stop
    assert _ask(kept, reader, made, unwinding) == "3/0" and len(made) == 4


def test_not_kept_where_float_registers_were_read() -> None:
    _, reader, kept, made = _session()
    unwinding = object()
    _ask(kept, reader, made, unwinding, floats=True)
    kept.next_stop()
    _ask(kept, reader, made, unwinding, floats=True)
    assert len(made) == 2


def test_a_kept_description_gets_a_reference_of_this_stop() -> None:
    _, reader, kept, made = _session()
    unwinding = object()
    assert _ask(kept, reader, made, unwinding, reference=7) == "1/7"
    kept.next_stop()
    assert _ask(kept, reader, made, unwinding, reference=7) == "1/71"  # refer()'s new one
    assert len(made) == 1
