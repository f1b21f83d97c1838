"""A variable's DW_OP_fbreg N location is taken without the evaluator (scopes._lone_fbreg):
it must give what the evaluator gives, and leave every other expression to it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.locexpr import ExprEnv, MemoryLoc, evaluate
from aliceserver.debuggers.symbols.dwarf.scopes import _lone_fbreg

FRAME_BASE = 0x7FFF_FFFF_E000


def sleb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if (value == 0 and not byte & 0x40) or (value == -1 and byte & 0x40):
            return bytes(out + bytes([byte]))
        out.append(byte | 0x80)


class NoFrame:
    pc = 0
    load_bias = 0
    fs_base = None

    def read_memory(self, address: int, size: int) -> bytes:
        raise OSError("no memory")

    def register(self, regno: int) -> int | None:
        return None

    def cfa(self) -> int | None:
        return None


@given(st.integers(min_value=-(1 << 40), max_value=1 << 40))
def test_the_offset_is_the_evaluators(offset: int) -> None:
    expr = bytes([0x91]) + sleb(offset)
    assert _lone_fbreg(expr) == offset
    located = evaluate(expr, NoFrame(), ExprEnv(frame_base=lambda: FRAME_BASE))
    assert located == MemoryLoc((FRAME_BASE + offset) & ((1 << 64) - 1))


def test_other_expressions_are_left_to_the_evaluator() -> None:
    assert _lone_fbreg(bytes([0x91]) + sleb(-20) + bytes([0x06])) is None  # then a deref
    assert _lone_fbreg(bytes([0x91])) is None
    assert _lone_fbreg(bytes([0x91, 0x80])) is None  # the number does not end
    assert _lone_fbreg(bytes([0x76]) + sleb(-20)) is None  # DW_OP_breg6
    assert _lone_fbreg(b"") is None
