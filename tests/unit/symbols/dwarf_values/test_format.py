"""Formatting and children of synthetic values (no process needed)."""

from __future__ import annotations

import itertools
import struct

from hypothesis import given, settings
from hypothesis import strategies as st

from aliceserver.debuggers.symbols.dwarf.format import (
    FormatOptions,
    child_count,
    children,
    format_value,
)
from aliceserver.debuggers.symbols.dwarf.literals import (
    char_literal,
    format_enum,
    format_float,
    string_literal,
)
from aliceserver.debuggers.symbols.dwarf.locexpr import ImplicitLoc, MemoryLoc, OptimizedOut
from aliceserver.debuggers.symbols.dwarf.types import (
    ArrayType,
    BaseType,
    Encoding,
    EnumType,
    FunctionType,
    Member,
    PointerType,
    QualifiedType,
    ReferenceType,
    StructType,
    TypedefType,
    VoidType,
    type_name,
)
from aliceserver.debuggers.symbols.dwarf.values import Value

INT = BaseType("int", 4, Encoding.SIGNED)
CHAR = BaseType("char", 1, Encoding.SIGNED_CHAR)
UINT = BaseType("unsigned int", 4, Encoding.UNSIGNED)


class Memory:
    pc = 0
    load_bias = 0
    fs_base = None

    def __init__(self, base: int = 0x1000, data: bytes = b"") -> None:
        self.base, self.data = base, bytearray(data)

    def read_memory(self, address: int, size: int) -> bytes:
        off = address - self.base
        if off < 0 or off + size > len(self.data):
            raise OSError("unmapped")
        return bytes(self.data[off : off + size])

    def register(self, regno: int) -> int | None:
        return None

    def cfa(self) -> int | None:
        return None

    def write_memory(self, address: int, data: bytes) -> None:
        off = address - self.base
        self.data[off : off + len(data)] = data

    def write_register(self, regno: int, value: int) -> None:
        raise OSError


def test_string_literals_escape_and_collapse_repeats_like_gdb() -> None:
    assert string_literal(b"") == '""'
    assert string_literal(b'a"b\\\n\t\x01\xff') == '"a\\"b\\\\\\n\\t\\001\\377"'
    assert string_literal(b"hi" + b"\0" * 13) == "\"hi\", '\\000' <repeats 13 times>"
    assert string_literal(b"x" * 11 + b"yz") == "'x' <repeats 11 times>, \"yz\""
    assert string_literal(b"x" * 10) == '"xxxxxxxxxx"'
    assert string_literal("é€".encode()) == '"é€"'
    assert char_literal(0) == "'\\000'" and char_literal(39) == "'\\''"
    assert string_literal(b"plain text", 0) == "'p' <repeats 1 times>, 'l' <repeats 1 times>, " + ", ".join(
        f"'{c}' <repeats 1 times>" for c in "ain text"
    )


def _model_string(data: bytes, threshold: int) -> str:
    """gdb's ASCII string printing, byte by byte: each run longer than `threshold` apart."""
    segments, pending = [], ""
    for byte, group in itertools.groupby(data):
        run = len(list(group))
        quoted = char_literal(byte)[1:-1].replace("\\'", "'").replace('"', '\\"')  # as within "..."
        if run > threshold:
            if pending:
                segments.append(f'"{pending}"')
                pending = ""
            segments.append(f"'{quoted}' <repeats {run} times>")
        else:
            pending += quoted * run
    if pending:
        segments.append(f'"{pending}"')
    return ", ".join(segments) or '""'


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(
        st.lists(st.integers(0, 127), max_size=40).map(bytes),
        st.lists(st.sampled_from(b"ab \"'~"), max_size=40).map(bytes),
    ),
    st.integers(0, 12),
)
def test_string_literal_of_ascii_matches_a_byte_by_byte_model(data: bytes, threshold: int) -> None:
    """Plain text takes a shorter way than escaped text or runs: both read as gdb's."""
    assert string_literal(data, threshold) == _model_string(data, threshold)
    assert char_literal(ord("a")) == "'a'" and char_literal(27) == "'\\033'"


def test_floats_use_gdb_precision() -> None:
    assert format_float(struct.pack("<d", 3.14)) == "3.1400000000000001"
    assert format_float(struct.pack("<f", 3.14)) == "3.1400001"
    assert format_float(struct.pack("<d", 1e300)) == "1.0000000000000001e+300"
    assert format_float(struct.pack("<d", float("-inf"))) == "-inf"
    assert format_float(struct.pack("<d", -0.0)) == "-0"
    assert format_float(struct.pack("<f", float("nan"))) == "nan(0x400000)"


def test_enums_plain_flag_and_unknown() -> None:
    plain = EnumType("color", 4, [("RED", 0), ("GREEN", 5)])
    flags = EnumType("perm", 4, [("R", 1), ("W", 2), ("X", 4)])
    assert format_enum(plain, 5) == "GREEN" and format_enum(plain, 3) == "3"
    assert format_enum(flags, 5) == "(R | X)"
    assert format_enum(flags, 10) == "(W | unknown: 0x8)"
    assert format_enum(flags, 0) == "0"
    assert not EnumType("e", 4, [("A", 1), ("B", 6)]).is_flag  # gdb: single bits only
    zero = EnumType("e", 4, [("Z0", 0), ("Z1", 1), ("Z2", 2)])
    assert format_enum(zero, 3) == "(Z1 | Z2)" and format_enum(zero, 0) == "Z0"
    assert format_enum(flags, 8) == "(unknown: 0x8)"


def test_type_names_and_cycles() -> None:
    node = StructType("struct", "node", 16)
    node.members = [Member("value", INT, 0), Member("next", PointerType(node), 8)]
    assert type_name(node.members[1].type) == "struct node *"
    assert type_name(PointerType(QualifiedType(CHAR, const=True))) == "const char *"
    assert type_name(QualifiedType(PointerType(CHAR), const=True)) == "char * const"
    assert type_name(ArrayType(ArrayType(INT, 3), 2)) == "int [2][3]"
    assert type_name(PointerType(ArrayType(INT, 3))) == "int (*)[3]"
    fn = FunctionType(INT, [INT, PointerType(CHAR)])
    assert type_name(PointerType(fn)) == "int (*)(int, char *)"
    assert type_name(PointerType(FunctionType(VoidType(), [], prototyped=False))) == "void (*)()"
    assert type_name(ReferenceType(INT)) == "int &"
    assert type_name(ReferenceType(INT, rvalue=True)) == "int &&"
    assert type_name(TypedefType("myint", INT)) == "myint"
    assert repr(node)  # no infinite recursion


def test_struct_with_pointer_cycle_formats_and_lists_children() -> None:
    node = StructType("struct", "node", 16)
    node.members = [Member("value", INT, 0), Member("next", PointerType(node), 8)]
    data = struct.pack("<iiQ", 7, 0, 0x1000)  # points at itself
    mem = Memory(0x1000, data)
    value = Value(node, MemoryLoc(0x1000), mem)
    assert format_value(value) == "{value = 7, next = 0x1000}"
    kids = children(value)
    assert [n for n, _ in kids] == ["value", "next"]
    nxt = kids[1][1]
    assert child_count(nxt) == 2
    assert format_value(children(nxt)[0][1]) == "7"


def test_arrays_repeat_limit_and_paging() -> None:
    data = struct.pack("<300i", *([1] + [0] * 298 + [2]))
    mem = Memory(0x2000, data)
    arr = Value(ArrayType(INT, 300), MemoryLoc(0x2000), mem)
    assert format_value(arr) == "{1, 0 <repeats 298 times>, 2}"
    counting = Value(ArrayType(INT, 300), ImplicitLoc(struct.pack("<300i", *range(300))), mem)
    text = format_value(counting)
    assert text.endswith(", 199...}") and text.startswith("{0, 1, 2,")
    assert child_count(arr) == 300
    page = children(arr, 298, 10)
    assert [n for n, _ in page] == ["[298]", "[299]"]
    assert format_value(page[1][1]) == "2"


def test_char_pointers_strings_and_errors() -> None:
    mem = Memory(0x3000, b"hello\0")
    ptr_t = PointerType(CHAR)
    p = Value.of_int(ptr_t, 0x3000, mem)
    assert format_value(p) == '0x3000 "hello"'
    bad = Value.of_int(ptr_t, 0x10, mem)
    assert format_value(bad) == "0x10 <error: Cannot access memory at address 0x10>"
    assert format_value(Value.of_int(ptr_t, 0, mem)) == "0x0"
    unreadable = Value(INT, MemoryLoc(0x10), mem)
    assert format_value(unreadable) == "<error: Cannot access memory at address 0x10>"
    assert format_value(Value(INT, OptimizedOut(), mem)) == "<optimized out>"
    unterminated = Memory(0x4000, b"a" * 300)
    text = format_value(Value.of_int(ptr_t, 0x4000, unterminated))
    assert text == "0x4000 'a' <repeats 200 times>..."


def test_references_bitfields_and_formats() -> None:
    mem = Memory(0x5000, struct.pack("<i", -5) + bytes([0b10110101, 0, 0, 0]))
    ref = Value.of_int(ReferenceType(INT), 0x5000, mem)
    assert format_value(ref) == "@0x5000: -5"
    assert format_value(ref, FormatOptions(top_level=True)) == "(int &) @0x5000: -5"
    bits = Value(INT, MemoryLoc(0x5004), mem, bit_offset=2, bit_size=3)  # 0b101 signed
    assert bits.as_int() == -3
    ubits = Value(UINT, MemoryLoc(0x5004), mem, bit_offset=2, bit_size=3)
    assert format_value(ubits) == "5"
    minus = Value(INT, MemoryLoc(0x5000), mem)
    expected = {"x": "0xfffffffb", "o": "037777777773", "t": "1" * 29 + "011", "d": "-5",
                "u": "4294967291", "z": "0xfffffffb", "c": "-5 '\\373'"}  # fmt: skip
    for fmt, want in expected.items():
        assert format_value(minus, FormatOptions(fmt=fmt)) == want, fmt
    ubits.assign_bytes((9).to_bytes(4, "little"))
    assert ubits.as_int() == 1 and mem.data[4] == 0b10100101


def test_char_arrays_drop_one_terminator() -> None:
    mem = Memory()
    for raw, want in [
        (b"abc\0\0\0\0\0", '"abc\\000\\000\\000\\000"'),
        (b"\0" * 16, "'\\000' <repeats 15 times>"),
        (b"\0", '""'),
        (b"abcd", '"abcd"'),
    ]:
        value = Value.of_bytes(ArrayType(CHAR, len(raw)), raw, mem)
        assert format_value(value) == want
