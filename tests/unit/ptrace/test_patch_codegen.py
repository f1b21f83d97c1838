"""The condition code generator against the closure back end, on this machine's CPU.

UNIT TEST THAT RUNS GENERATED MACHINE CODE IN THE TEST PROCESS: the code is copied into an
executable anonymous mapping and called through ctypes with a fake saved-register block and
a memory buffer that the IR's loads point into. Random typed IR trees (hypothesis) must give
the closures' number, or "undecided" exactly where the closures raise.
"""

from __future__ import annotations

import ctypes
import mmap
import platform
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.ptrace.patches.codegen import Uncompilable, compile_code
from aliceserver.debuggers.symbols.dwarf.expr import condition_ir as ir
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError

pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 machine code")

NAMES = [
    "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
    "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "eflags",
]  # fmt: skip
OFFSETS = {name: 8 * i for i, name in enumerate(NAMES)}
BASE = "r12"  # holds the memory buffer's address in every example
BUFFER_SIZE = 256
# push rbx; mov rbx, rsi; <code>; mov [rdi], rcx; pop rbx; ret: f(&undecided, block)
PROLOGUE = bytes([0x53, 0x48, 0x89, 0xF3])
EPILOGUE = bytes([0x48, 0x89, 0x0F, 0x5B, 0xC3])

Type = tuple[int, bool]
TYPES: list[Type] = [(bits, signed) for bits in (8, 16, 32, 64) for signed in (False, True)]
INT: Type = (32, True)


class Machine:
    """An executable page, a memory buffer and a register block to run generated code."""

    def __init__(self) -> None:
        self.page = mmap.mmap(-1, 1 << 16, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        self.address = ctypes.addressof(ctypes.c_char.from_buffer(self.page))
        self.function = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p, ctypes.c_void_p)(
            self.address
        )
        self.memory = ctypes.create_string_buffer(BUFFER_SIZE)
        self.memory_address = ctypes.addressof(self.memory)

    def run(self, code: bytes, registers: dict[str, int]) -> tuple[int, bool]:
        program = PROLOGUE + code + EPILOGUE
        self.page.seek(0)
        self.page.write(program)
        block = ctypes.create_string_buffer(
            b"".join(registers[n].to_bytes(8, "little") for n in NAMES)
        )
        undecided = ctypes.c_uint64(7)
        value = self.function(ctypes.addressof(undecided), ctypes.addressof(block))
        assert undecided.value in (0, 1)
        return value, undecided.value == 1

    def read(self, address: int, size: int) -> bytes:
        assert self.memory_address <= address <= self.memory_address + BUFFER_SIZE - size
        return ctypes.string_at(address, size)

    def close(self) -> None:
        del self.function
        self.page.close()


@pytest.fixture(scope="module")
def machine() -> Iterator[Machine]:
    m = Machine()
    yield m
    m.close()


def in_range(t: Type) -> st.SearchStrategy[int]:
    bits, signed = t
    if signed:
        return st.integers(-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
    return st.integers(0, (1 << bits) - 1)


@st.composite
def leaf(draw: st.DrawFn, t: Type) -> ir.Node:
    bits, signed = t
    kind = draw(st.sampled_from(["const", "register", "load", "load"]))
    if kind == "const":
        return ir.Const(draw(in_range(t)))
    if kind == "register":
        name = draw(st.sampled_from([n for n in NAMES if n != BASE]))
        return (
            ir.Convert(ir.Register(name), bits, signed) if t != (64, False) else ir.Register(name)
        )
    offset = draw(st.integers(0, BUFFER_SIZE - bits // 8))
    address: ir.Node = ir.Offset(ir.Register(BASE), offset)
    detour = draw(st.sampled_from([0, -(1 << 40), 1 << 35, -0x1000, ir.MASK64]))
    if detour:  # a member of a struct at a far address: 64-bit offsets that wrap
        address = ir.Offset(ir.Offset(ir.Register(BASE), detour), offset - detour)
    return ir.Load(address, bits // 8, signed)


@st.composite
def typed(draw: st.DrawFn, t: Type, depth: int) -> ir.Node:
    """A node whose value lies in type t's range, as the analysis guarantees."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(leaf(t))
    below = depth - 1
    kind = draw(
        st.sampled_from(["convert", "unary", "arith", "shift", "compare", "truth", "logical"])
    )
    bits, signed = t
    if kind == "convert":
        return ir.Convert(draw(typed(draw(st.sampled_from(TYPES)), below)), bits, signed)
    if kind == "unary":
        return ir.Unary(draw(st.sampled_from("-~")), draw(typed(t, below)), bits, signed)
    if kind == "arith":
        op = draw(st.sampled_from("+-*/%&|^"))
        return ir.Binary(op, draw(typed(t, below)), draw(typed(t, below)), bits, signed)
    if kind == "shift":
        count_type = draw(st.sampled_from(TYPES))
        count = draw(st.one_of(typed(count_type, below), st.builds(ir.Const, st.integers(-3, 130))))
        return ir.Binary(
            draw(st.sampled_from(["<<", ">>"])), draw(typed(t, below)), count, bits, signed
        )
    # 0 or 1: within every type's range
    if kind == "compare":
        lt, rt = draw(st.sampled_from(TYPES)), draw(st.sampled_from(TYPES))
        op = draw(st.sampled_from(sorted(ir.COMPARE)))
        return ir.Compare(op, draw(typed(lt, below)), draw(typed(rt, below)), lt[1], rt[1])
    if kind == "truth":
        return ir.Truth(draw(typed(draw(st.sampled_from(TYPES)), below)), draw(st.booleans()))
    left, right = draw(typed(INT, below)), draw(typed(INT, below))
    return ir.Logical(draw(st.sampled_from(["&&", "||"])), left, right)


def registers(data: st.DataObject, machine: Machine) -> dict[str, int]:
    values = {name: data.draw(st.integers(0, (1 << 64) - 1)) for name in NAMES}
    values[BASE] = machine.memory_address
    return values


def check(machine: Machine, node: ir.Node, values: dict[str, int]) -> None:
    regs = SimpleNamespace(**values)
    try:
        expected: int | None = ir.to_closure(node, machine.read)(regs)
    except EvaluationError:
        expected = None
    value, undecided = machine.run(compile_code(node, OFFSETS), values)
    if expected is None:
        assert undecided, node
    else:
        assert not undecided, node
        assert value == expected & ir.MASK64, node


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_machine_code_computes_what_the_closures_compute(
    machine: Machine, data: st.DataObject
) -> None:
    machine.memory.raw = data.draw(st.binary(min_size=BUFFER_SIZE, max_size=BUFFER_SIZE))
    t = data.draw(st.sampled_from(TYPES))
    node = data.draw(typed(t, 4))
    check(machine, node, registers(data, machine))


def zeroed(machine: Machine, **overrides: int) -> dict[str, int]:
    values = dict.fromkeys(NAMES, 0) | {BASE: machine.memory_address}
    return values | overrides


def test_int64_min_divided_by_minus_one_wraps(machine: Machine) -> None:
    node = ir.Binary("/", ir.Register("rax"), ir.Const(-1), 64, True)
    assert machine.run(compile_code(node, OFFSETS), zeroed(machine, rax=1 << 63)) == (
        1 << 63,
        False,
    )
    modulo = ir.Binary("%", ir.Register("rax"), ir.Const(-1), 64, True)
    assert machine.run(compile_code(modulo, OFFSETS), zeroed(machine, rax=1 << 63)) == (0, False)


def test_division_by_zero_is_undecided_from_any_depth(machine: Machine) -> None:
    division = ir.Binary("/", ir.Const(7), ir.Convert(ir.Register("rcx"), 32, True), 32, True)
    node = ir.Binary("+", ir.Const(1), ir.Binary("*", ir.Const(3), division, 32, True), 32, True)
    assert machine.run(compile_code(node, OFFSETS), zeroed(machine))[1] is True
    assert machine.run(compile_code(node, OFFSETS), zeroed(machine, rcx=2)) == (10, False)


def test_short_circuit_skips_the_undecidable_side(machine: Machine) -> None:
    division = ir.Binary("/", ir.Const(1), ir.Convert(ir.Register("rdx"), 32, True), 32, True)
    node = ir.Logical("&&", ir.Convert(ir.Register("rax"), 32, True), division)
    assert machine.run(compile_code(node, OFFSETS), zeroed(machine)) == (0, False)
    assert machine.run(compile_code(node, OFFSETS), zeroed(machine, rax=1))[1] is True


def test_pointer_against_minus_one_reads_each_side_as_its_type(machine: Machine) -> None:
    node = ir.Compare("==", ir.Register("rdi"), ir.Const(-1), False, True)
    assert machine.run(compile_code(node, OFFSETS), zeroed(machine, rdi=ir.MASK64)) == (0, False)
    below = ir.Compare(">", ir.Register("rdi"), ir.Const(-1), False, True)
    assert machine.run(compile_code(below, OFFSETS), zeroed(machine, rdi=0)) == (1, False)


@pytest.mark.parametrize("count", [32, 40, 100, -1])
def test_shift_beyond_the_width_gives_zero(machine: Machine, count: int) -> None:
    """As gdb: a negative int shifted right by its width or more (or by a negative count)
    is 0, not its sign; the closures agree."""
    node = ir.Binary(">>", ir.Convert(ir.Register("rax"), 32, True), ir.Const(count), 32, True)
    values = zeroed(machine, rax=0x80000000)
    assert machine.run(compile_code(node, OFFSETS), values) == (0, False)
    assert ir.to_closure(node, machine.read)(SimpleNamespace(**values)) == 0


def test_a_register_not_saved_is_uncompilable() -> None:
    with pytest.raises(Uncompilable):
        compile_code(ir.Register("fs_base"), OFFSETS)
