"""The plans of calls into the program (debuggers/calls): what each ABI puts where, from a
thread's registers alone, before anything runs (SysV x86-64's red zone, alignment, al and
orig_rax; AAPCS64's x0-x7, v0-v7, homogeneous aggregates, x8, the stack and x30)."""

from __future__ import annotations

import struct

import pytest

from aliceserver.debuggers.arch.registry import AARCH64_ARCH, X86_64_ARCH
from aliceserver.debuggers.calls.plan import CallPlan, CallRequest, plan_call
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    Member,
    StructType,
    Type,
    VoidType,
)
from aliceserver.errors import TargetError

INT = BaseType("int", 4, Encoding.SIGNED)
LONG = BaseType("long", 8, Encoding.SIGNED)
SHORT = BaseType("short", 2, Encoding.SIGNED)
DOUBLE = BaseType("double", 8, Encoding.FLOAT)
FLOAT = BaseType("float", 4, Encoding.FLOAT)
RETURN = 0x401060  # the entry point: where calls return
FUNCTION = 0x401136


def _struct(name: str, *members: tuple[str, Type, int], size: int) -> StructType:
    t = StructType("struct", name, size)
    t.members = [Member(member, kind, offset) for member, kind, offset in members]
    return t


BIG = _struct("big", ("v", ArrayType(LONG, 4), 0), size=32)
POINT = _struct("point", ("x", DOUBLE, 0), ("y", DOUBLE, 8), ("z", DOUBLE, 16), size=24)
PAIR = _struct("pair", ("a", INT, 0), ("b", INT, 4), size=8)


def _plan(arch_registers: dict[str, int], returns: Type, *arguments: tuple[Type, bytes], arm: bool = False) -> CallPlan:
    arch = AARCH64_ARCH if arm else X86_64_ARCH
    return plan_call(arch, CallRequest("f", FUNCTION, arguments, returns), arch_registers, RETURN)


def _memory(plan: CallPlan) -> dict[int, bytes]:
    return dict(plan.memory)


def test_sysv_integers_skip_the_red_zone_and_push_the_return_address() -> None:
    plan = _plan({"rsp": 0x7FFF_1008, "orig_rax": 1}, INT, (INT, struct.pack("<i", -2)), (SHORT, struct.pack("<h", 3)))
    sp = ((0x7FFF_1008 - 128) & ~0xF) - 8  # 16-aligned at the call, then the pushed address
    assert plan.general["rsp"] == sp and (sp + 8) % 16 == 0
    assert _memory(plan)[sp] == RETURN.to_bytes(8, "little")
    assert plan.general["rdi"] == (1 << 64) - 2  # sign-extended
    assert plan.general["rsi"] == 3 and plan.general["rip"] == FUNCTION
    assert plan.general["rax"] == 0 and plan.general["orig_rax"] == (1 << 64) - 1
    assert plan.sp_after_return == sp + 8 and plan.result_address is None and not plan.vectors


def test_sysv_floats_stack_arguments_and_a_result_in_memory() -> None:
    longs = [(LONG, struct.pack("<q", n)) for n in range(1, 9)]
    plan = _plan({"rsp": 0x7FFF_2000}, BIG, (DOUBLE, struct.pack("<d", 1.5)), *longs)
    assert plan.result_address is not None and plan.general["rdi"] == plan.result_address
    assert plan.result_address + 32 <= 0x7FFF_2000 - 128  # below the red zone
    # rdi holds the result's address: the longs go to rsi, rdx, rcx, r8, r9, then the stack
    assert [plan.general[r] for r in ("rsi", "rdx", "rcx", "r8", "r9")] == [1, 2, 3, 4, 5]
    entry = plan.general["rsp"]
    memory = _memory(plan)
    assert [memory[entry + 8 * i] for i in (1, 2, 3)] == [struct.pack("<q", n) for n in (6, 7, 8)]
    assert plan.vectors == {"xmm0": struct.pack("<d", 1.5).ljust(16, b"\0")}
    assert plan.general["rax"] == 1  # vector registers used: for varargs callees
    assert "orig_rax" not in plan.general  # a target without it


def test_aapcs64_registers_stack_and_the_link_register() -> None:
    longs = [(LONG, struct.pack("<q", n)) for n in range(1, 11)]
    plan = _plan({"sp": 0x55_0000_1238}, LONG, *longs, arm=True)
    assert [plan.general[f"x{i}"] for i in range(8)] == list(range(1, 9))
    sp = plan.general["sp"]
    assert sp % 16 == 0 and sp < 0x55_0000_1238 and plan.sp_after_return == sp
    assert _memory(plan) == {sp: struct.pack("<q", 9), sp + 8: struct.pack("<q", 10)}
    assert plan.general["x30"] == RETURN and plan.general["pc"] == FUNCTION


def test_aapcs64_floats_aggregates_by_address_and_through_x8() -> None:
    point = struct.pack("<3d", 1.0, 2.0, 3.0)
    big = struct.pack("<4q", 1, 2, 3, 4)
    plan = _plan({"sp": 0x8000}, BIG, (FLOAT, struct.pack("<f", 0.5)), (POINT, point),
                 (PAIR, struct.pack("<2i", 7, 8)), (BIG, big), arm=True)  # fmt: skip
    assert plan.vectors == {
        "v0": struct.pack("<f", 0.5).ljust(16, b"\0"),
        "v1": struct.pack("<d", 1.0).ljust(16, b"\0"),  # the HFA, member by member
        "v2": struct.pack("<d", 2.0).ljust(16, b"\0"),
        "v3": struct.pack("<d", 3.0).ljust(16, b"\0"),
    }
    assert plan.general["x0"] == 7 | 8 << 32  # a small composite as it lies in memory
    copy = plan.general["x1"]  # a large one: a copy, by its address
    assert _memory(plan)[copy] == big and copy % 16 == 0
    assert plan.result_address is not None and plan.general["x8"] == plan.result_address
    assert plan.general["sp"] <= copy < plan.result_address < 0x8000


def test_void_and_an_unknown_architecture() -> None:
    plan = _plan({"rsp": 0x1000}, VoidType())
    assert plan.result_address is None
    arch = AARCH64_ARCH.__class__()
    arch.name = "riscv:rv64"
    with pytest.raises(TargetError, match="This target does not support function calls."):
        plan_call(arch, CallRequest("f", FUNCTION, (), VoidType()), {"sp": 0}, RETURN)
