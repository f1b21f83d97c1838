"""Which instructions the trap emulator claims, and their decoded lengths (see also
tests/integration/test_engine_emulation.py, which checks the effects against the CPU)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aliceserver.debuggers.ptrace.emulate import (
    Advance,
    Load,
    MoveRegister,
    Push,
    Return,
    StoreToFrame,
    plan_for,
)


@pytest.mark.parametrize(
    "code,length",
    [
        ("f30f1efa", 4), ("90", 1), ("6690", 2), ("0f1f00", 3), ("0f1f4000", 4),
        ("0f1f0400", 4), ("0f1f440000", 5), ("660f1f440000", 6), ("0f1f8000000000", 7),
        ("0f1f840000000000", 8), ("660f1f840000000000", 9), ("662e0f1f840000000000", 10),
    ],
)  # fmt: skip
def test_nops_advance_by_their_length(code: str, length: int) -> None:
    assert plan_for(bytes.fromhex(code) + b"\xcc" * 6) == Advance(length)


def test_pushes_and_moves() -> None:
    assert plan_for(b"\x55") == Push("rbp", 1)
    assert plan_for(b"\x41\x57") == Push("r15", 2)
    assert plan_for(b"\x48\x89\xe5") == MoveRegister("rbp", "rsp", 3)
    assert plan_for(b"\x48\x8b\xec") == MoveRegister("rbp", "rsp", 3)
    assert plan_for(b"\x89\x7d\xec") == StoreToFrame("rdi", -0x14, 4, 3)
    assert plan_for(b"\x48\x89\x75\xe0") == StoreToFrame("rsi", -0x20, 8, 4)
    assert plan_for(b"\x4c\x89\x45\xf8") == StoreToFrame("r8", -8, 8, 4)
    assert plan_for(bytes.fromhex("89bd00feffff")) == StoreToFrame("rdi", -0x200, 4, 6)
    assert plan_for(bytes.fromhex("8b45fc")) == Load("rax", "rbp", -4, 4, 3)
    assert plan_for(bytes.fromhex("488b05d52e0000")) == Load("rax", "rip", 0x2ED5, 8, 7)


def test_returns_pop_the_pc() -> None:
    assert plan_for(b"\xc3") == Return(0, 1)
    assert plan_for(b"\xf3\xc3") == Return(0, 2)
    assert plan_for(b"\xc2\x10\x00") == Return(16, 3)

    class Regs:
        rsp, rip = 0x1000, 0x400000

    stack = {0x1000: (0x401234).to_bytes(8, "little")}
    regs = Regs()
    Return(16, 3).apply(regs, lambda address, size: stack[address], lambda a, d: None)  # type: ignore[arg-type]
    assert (regs.rip, regs.rsp) == (0x401234, 0x1018)


@pytest.mark.parametrize(
    "code",
    ["4883ec10", "e800000000", "8b04c5", "0f1f48", "41894500", "66895dfc", "4850", "89c0"],
)
def test_everything_else_is_single_stepped(code: str) -> None:
    # sub (sets flags), call, a SIB load, a truncated nop, an r13-based store,
    # a 16-bit store, a REX.W push, a 32-bit register move
    assert plan_for(bytes.fromhex(code)) is None


@given(st.binary(max_size=16))
def test_any_bytes_give_a_plan_or_none(code: bytes) -> None:
    plan = plan_for(code)
    if plan is not None:
        assert 1 <= plan.length <= len(code)
