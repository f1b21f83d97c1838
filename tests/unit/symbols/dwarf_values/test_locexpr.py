"""DWARF location expressions and location lists on hand-assembled bytes."""

from __future__ import annotations

import struct
from collections.abc import Callable

import pytest

from aliceserver.debuggers.symbols.dwarf.locexpr import (
    CompositeLoc,
    EvaluationError,
    ExprEnv,
    ImplicitLoc,
    MemoryLoc,
    OptimizedOut,
    Piece,
    RegisterLoc,
    evaluate,
    loclist_bounds,
    loclist_end,
    loclist_v4,
    loclist_v5,
)
from aliceserver.debuggers.symbols.dwarf.types import BaseType, Encoding
from aliceserver.debuggers.symbols.dwarf.values import OptimizedOutError, Value


class Frame:
    def __init__(self) -> None:
        self.memory = {0x1000 + i: (0x10 + i) & 0xFF for i in range(64)}
        self.regs = {0: 5, 6: 0x1000, 7: 0x2000, 3: 0xAABBCCDD11223344}
        self.fs_base: int | None = 0x7000
        self.pc = 0x400
        self.load_bias = 0

    def read_memory(self, address: int, size: int) -> bytes:
        try:
            return bytes(self.memory[address + i] for i in range(size))
        except KeyError:
            raise OSError("unmapped") from None

    def register(self, regno: int) -> int | None:
        return self.regs.get(regno)

    def cfa(self) -> int | None:
        return 0x3000

    def write_memory(self, address: int, data: bytes) -> None:
        for i, b in enumerate(data):
            self.memory[address + i] = b

    def write_register(self, regno: int, value: int) -> None:
        self.regs[regno] = value


def uleb(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def sleb(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        done = (n == 0 and not byte & 0x40) or (n == -1 and byte & 0x40)
        out.append(byte | (0 if done else 0x80))
        if done:
            return bytes(out)


def ev(expr: bytes, **env: object) -> object:
    return evaluate(expr, Frame(), ExprEnv(**env))  # type: ignore[arg-type]


def test_addr_gets_the_load_bias() -> None:
    assert ev(b"\x03" + struct.pack("<Q", 0x4000), load_bias=0x1000) == MemoryLoc(0x5000)


def test_registers_and_based_registers() -> None:
    assert ev(b"\x50") == RegisterLoc(0)
    assert ev(b"\x90" + uleb(17)) == RegisterLoc(17)
    assert ev(b"\x76" + sleb(-8)) == MemoryLoc(0x1000 - 8)  # breg6 -8
    assert ev(b"\x92" + uleb(7) + sleb(16)) == MemoryLoc(0x2010)  # bregx rsp+16


def test_fbreg_and_call_frame_cfa() -> None:
    assert ev(b"\x91" + sleb(-20), frame_base=lambda: 0x3000) == MemoryLoc(0x3000 - 20)
    assert ev(b"\x9c") == MemoryLoc(0x3000)
    with pytest.raises(EvaluationError):
        ev(b"\x91\x00")


def test_stack_operations_and_arithmetic() -> None:
    # lit3 lit4 over(3 4 3) swap(3 3 4) rot(4 3 3) minus(4 0) plus -> 4 ... stack_value
    expr = bytes([0x33, 0x34, 0x14, 0x16, 0x17, 0x1C, 0x22, 0x9F])
    loc = ev(expr)
    assert isinstance(loc, ImplicitLoc)
    assert int.from_bytes(loc.data, "little") == 4
    cases = {
        bytes([0x3A, 0x33, 0x1B]): 3,  # 10 / 3
        bytes([0x3A, 0x1F, 0x33, 0x1B]): (-3) & (2**64 - 1),  # -10 / 3 truncates
        bytes([0x3A, 0x33, 0x1D]): 1,  # 10 % 3
        bytes([0x31, 0x3F, 0x24]): 1 << 15,  # 1 << 15
        bytes([0x31, 0x1F, 0x31, 0x26]): 2**64 - 1,  # -1 >>a 1
        bytes([0x35, 0x35, 0x29]): 1,  # eq
        bytes([0x34, 0x35, 0x2D]): 1,  # 4 < 5
        bytes([0x10]) + uleb(300) + bytes([0x23]) + uleb(12): 312,  # constu plus_uconst
        bytes([0x11]) + sleb(-2) + bytes([0x19]): 2,  # abs
        bytes([0x0B]) + struct.pack("<h", -2) + bytes([0x20]): 1,  # not(-2) == 1
        bytes([0x33, 0x12, 0x1E]): 9,  # dup mul
        bytes([0x31, 0x32, 0x33, 0x15, 0x02, 0x22, 0x22]): 6,  # pick 2
    }
    for code, want in cases.items():
        loc = ev(code + b"\x9f")
        assert isinstance(loc, ImplicitLoc), code.hex()
        assert int.from_bytes(loc.data, "little") == want, code.hex()


def test_branch_and_skip() -> None:
    # lit1 bra +1 (skip lit5) lit7 stack_value -> 7 ; lit0 bra: falls through to lit5
    taken = bytes([0x31, 0x28]) + struct.pack("<h", 1) + bytes([0x35, 0x37, 0x9F])
    loc = ev(taken)
    assert isinstance(loc, ImplicitLoc) and loc.data[0] == 7
    skip = bytes([0x2F]) + struct.pack("<h", 1) + bytes([0x35, 0x36, 0x9F])
    loc = ev(skip)
    assert isinstance(loc, ImplicitLoc) and loc.data[0] == 6
    with pytest.raises(EvaluationError):  # an endless loop is cut off
        ev(bytes([0x2F]) + struct.pack("<h", -3))


def test_deref_and_deref_size() -> None:
    loc = ev(b"\x76\x00\x94\x02\x9f")  # breg6+0 deref_size 2
    assert isinstance(loc, ImplicitLoc)
    assert int.from_bytes(loc.data, "little") == 0x1110
    with pytest.raises(EvaluationError, match="Cannot access memory at address 0x10"):
        ev(b"\x40\x06")  # lit16 deref


def test_implicit_value_entry_value_and_empty() -> None:
    assert ev(b"\x9e\x04abcd") == ImplicitLoc(b"abcd")
    assert isinstance(ev(b"\xa3\x01\x55\x9f"), OptimizedOut)  # entry_value(reg5)
    assert isinstance(ev(b"\xf3\x01\x55\x9f"), OptimizedOut)  # GNU_entry_value
    assert isinstance(ev(b""), OptimizedOut)


def test_tls_address_uses_the_static_tls_layout() -> None:
    loc = ev(b"\x0e" + struct.pack("<Q", 0x10) + b"\xe0", tls_block_offset=0x40)
    assert loc == MemoryLoc(0x7000 - 0x40 + 0x10)
    assert ev(b"\x30\x9b", tls_block_offset=0x20) == MemoryLoc(0x7000 - 0x20)
    with pytest.raises(EvaluationError):
        ev(b"\x30\xe0")  # no TLS block known for this module


def test_pieces_compose_registers_memory_and_holes() -> None:
    frame = Frame()
    # low 4 bytes in rax (5), next 4 bytes at 0x1000, then 4 optimized-out bytes
    expr = b"\x50\x93\x04" + b"\x76\x00\x93\x04" + b"\x93\x04"
    loc = evaluate(expr, frame, ExprEnv())
    assert loc == CompositeLoc(
        (Piece(RegisterLoc(0), 32), Piece(MemoryLoc(0x1000), 32), Piece(OptimizedOut(), 32))
    )
    long_t = BaseType("long", 8, Encoding.SIGNED)
    whole = Value(long_t, loc, frame)
    assert whole.as_int() == 5 | (0x13121110 << 32)
    assert Value(BaseType("x", 12, Encoding.UNSIGNED), loc, frame).optimized_out
    bits = evaluate(b"\x53\x9d\x08\x10", frame, ExprEnv())  # rbx bits 16..23
    assert Value(BaseType("c", 1, Encoding.UNSIGNED), bits, frame).as_int() == 0x22
    with pytest.raises(OptimizedOutError):
        Value(long_t, OptimizedOut(), frame).data()


def test_location_list_v4_with_base_selection() -> None:
    e1, e2 = b"\x50", b"\x51"
    data = (
        struct.pack("<QQH", 0x10, 0x20, 1) + e1
        + struct.pack("<QQ", 2**64 - 1, 0x1000)
        + struct.pack("<QQH", 0x0, 0x8, 1) + e2
        + struct.pack("<QQ", 0, 0)
    )  # fmt: skip
    assert loclist_v4(data, 0, 0x400, 0x415) == e1
    assert loclist_v4(data, 0, 0x400, 0x1004) == e2
    assert loclist_v4(data, 0, 0x400, 0x1008) is None


def test_location_list_v5_entry_kinds() -> None:
    addrs = {0: 0x5000, 1: 0x5100}
    data = (
        b"\x04" + uleb(0x10) + uleb(0x20) + b"\x01\x50"  # offset_pair on the CU base
        + b"\x06" + struct.pack("<Q", 0x2000)  # base_address
        + b"\x04" + uleb(0) + uleb(4) + b"\x01\x51"
        + b"\x03" + uleb(0) + uleb(8) + b"\x01\x52"  # startx_length
        + b"\x02" + uleb(1) + uleb(1) + b"\x01\x53"  # startx_endx (empty)
        + b"\x07" + struct.pack("<QQ", 0x6000, 0x6010) + b"\x01\x54"  # start_end
        + b"\x08" + struct.pack("<Q", 0x7000) + uleb(2) + b"\x01\x55"  # start_length
        + b"\x01" + uleb(1)  # base_addressx
        + b"\x04" + uleb(0) + uleb(1) + b"\x01\x56"
        + b"\x00"
    )  # fmt: skip
    cases = {0x415: b"\x50", 0x2002: b"\x51", 0x5007: b"\x52", 0x600F: b"\x54", 0x7001: b"\x55",
             0x5100: b"\x56", 0x9999: None}  # fmt: skip
    for pc, want in cases.items():
        assert loclist_v5(data, 0, 0x400, pc, addrs.__getitem__) == want, hex(pc)
    with_default = b"\x05\x01\x57\x00"
    assert loclist_v5(with_default, 0, 0, 0x1, addrs.__getitem__) == b"\x57"


def test_truncated_and_unknown_operations_raise_the_typed_error() -> None:
    for bad in (b"\x03\x01", b"\x08", b"\x12", b"\x13", b"\xff", b"\x1b", b"\x30\x30\x1b"):
        with pytest.raises(EvaluationError):
            ev(bad)


def test_a_location_list_ends_past_its_end_entry_and_a_cut_one_asks_for_more() -> None:
    v4 = (struct.pack("<QQH", 0x10, 0x20, 1) + b"\x50" + struct.pack("<QQ", 2**64 - 1, 0x1000)
          + struct.pack("<QQ", 0, 0))  # fmt: skip
    first = (b"\x04" + uleb(0x10) + uleb(0x20) + b"\x01\x50" + b"\x06" + struct.pack("<Q", 0x2000)
             + b"\x03" + uleb(300) + uleb(8) + b"\x02\x52\x53" + b"\x07" + struct.pack("<QQ", 1, 2) + b"\x01\x54"
             + b"\x00")  # fmt: skip
    v5 = first + b"\x08" + struct.pack("<Q", 3) + uleb(2) + b"\x00" + b"\x01" + uleb(1) + b"\x05\x01\x57" + b"\x00"
    first_v5 = len(first)
    assert loclist_end(v4 + b"\xff" * 8, 0, 4) == len(v4)
    assert loclist_end(v5, 0, 5) == first_v5
    assert loclist_end(v5, first_v5, 5) == len(v5)
    for cut in range(len(v4)):
        assert loclist_end(v4[:cut], 0, 4) is None
    for cut in range(first_v5):
        assert loclist_end(v5[:cut], 0, 5) is None
    assert loclist_end(b"\x09\x00", 0, 5) == 1  # unknown kind: loclist_v5 raises there


def _same_between_bounds(bounds: list[int], find: Callable[[int], bytes | None], pcs: range) -> None:
    """Between two neighbouring bounds (keptsteps.py's span of a pc) each pc finds what the
    first one does."""
    for pc in pcs:
        low = max((b for b in bounds if b <= pc), default=0)
        assert find(pc) == find(low), hex(pc)


def test_location_list_bounds_keep_the_entry_found_between_them() -> None:
    e1, e2 = b"\x50", b"\x51"
    v4 = (struct.pack("<QQH", 0x10, 0x20, 1) + e1 + struct.pack("<QQ", 2**64 - 1, 0x1000)
          + struct.pack("<QQH", 0x0, 0x8, 1) + e2 + struct.pack("<QQH", 0x4, 0x4, 1) + e1
          + struct.pack("<QQ", 0, 0))  # fmt: skip
    assert loclist_bounds(v4, 4, 0x400, lambda i: i) == [0x410, 0x420, 0x1000, 0x1008, 0x1004, 0x1005]
    for pcs in (range(0x400, 0x430), range(0xFF0, 0x1010)):
        _same_between_bounds(loclist_bounds(v4, 4, 0x400, lambda i: i),
                             lambda pc: loclist_v4(v4, 0, 0x400, pc, entry_pc=0x1004), pcs)  # fmt: skip
    addrs = {0: 0x5000, 1: 0x5100}
    v5 = (b"\x04" + uleb(0x10) + uleb(0x20) + b"\x01\x50" + b"\x06" + struct.pack("<Q", 0x2000)
          + b"\x04" + uleb(0) + uleb(4) + b"\x01\x51" + b"\x03" + uleb(0) + uleb(8) + b"\x01\x52"
          + b"\x02" + uleb(1) + uleb(1) + b"\x01\x53" + b"\x05\x01\x57"
          + b"\x04" + uleb(2) + uleb(6) + b"\x01\x54" + b"\x00")  # fmt: skip
    bounds = loclist_bounds(v5, 5, 0x400, addrs.__getitem__)
    assert bounds == [0x410, 0x420, 0x2000, 0x2004, 0x5000, 0x5008, 0x5100, 0x5101, 0x2002, 0x2006]
    for pcs in (range(0x400, 0x430), range(0x1FF0, 0x2010), range(0x4FF0, 0x5110)):
        _same_between_bounds(bounds, lambda pc: loclist_v5(v5, 0, 0x400, pc, addrs.__getitem__), pcs)
