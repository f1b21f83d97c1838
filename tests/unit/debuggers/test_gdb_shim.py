"""The gdb Python API shim (debuggers/printers) over a real program's DWARF: gdb.Value's
arithmetic, comparisons, casts, dereference and string(), gdb.Type's fields, typedefs,
template arguments, sizes and codes, and lookup_type by template names, as printers use
them. The globals are read from the executable file (built -no-pie: no relocation)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from elftools.elf.elffile import ELFFile

from aliceserver.debuggers.printers.context import Call, Target, entered
from aliceserver.debuggers.printers.loader import install_gdb_module
from aliceserver.debuggers.printers.objfiles import PrinterSession
from aliceserver.debuggers.symbols.dwarf.expr import FrameSymbols, evaluate_expression
from aliceserver.debuggers.symbols.dwarf.locexpr import EvaluationError
from aliceserver.debuggers.symbols.dwarf.scopes import ModuleSymbols
from aliceserver.debuggers.symbols.elf import ElfImage
from tests.support.build_more import MoreBuilder, find_cxx

pytestmark = pytest.mark.skipif(find_cxx() is None, reason="g++ not installed")


class FileFrame:
    """Memory is the executable's loaded segments, read from the file."""

    pc = 0
    load_bias = 0
    fs_base = None

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as handle:
            data = handle.read()
            self._segments = [(s["p_vaddr"], s["p_filesz"], data[s["p_offset"] : s["p_offset"] + s["p_filesz"]])
                              for s in ELFFile(handle).iter_segments() if s["p_type"] == "PT_LOAD"]  # fmt: skip

    def read_memory(self, address: int, size: int) -> bytes:
        for start, length, data in self._segments:
            if start <= address and address + size <= start + length:
                return data[address - start : address - start + size]
        raise EvaluationError(f"Cannot access memory at address {address:#x}")

    def register(self, regno: int) -> int | None:
        return None

    def cfa(self) -> int | None:
        return None

    def write_memory(self, address: int, data: bytes) -> None:
        raise EvaluationError("read-only")

    def write_register(self, regno: int, value: int) -> None:
        raise EvaluationError("read-only")


@pytest.fixture(scope="module")
def gdb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    program = MoreBuilder(tmp_path_factory.mktemp("shim")).build_cpp("cpp_gdb_shim", ("-g", "-O0", "-no-pie"))
    symbols = FrameSymbols(ModuleSymbols(ElfImage.load(str(program))), FileFrame(program))
    target = Target(symbols.frame, symbols.lookup_type, symbols.lookup,
                    lambda text: evaluate_expression(text, symbols))  # fmt: skip
    install_gdb_module()
    from aliceserver.debuggers.printers import gdb as module

    with entered(Call(PrinterSession(), target)):
        yield module


def test_value_arithmetic_and_comparisons(gdb: Any) -> None:
    point = gdb.parse_and_eval("g_point")
    assert int(point["x"] + 1) == 4
    assert int(point["y"] * 2) == -8
    assert int(10 - point["x"]) == 7
    assert point["x"] > point["y"] and point["y"] == -4 and point["x"] != 4
    assert int(gdb.Value(5) + point["x"]) == 8
    # Python ints are gdb's `long long` (unsigned above its range), as gdb 13's
    # convert_value_from_python makes them; a printer's child `1` shows that type in MI.
    assert str(gdb.Value(5).type) == "long long" and str((point["x"] + 1).type) == "long long"
    assert str(gdb.Value(1 << 63).type) == "unsigned long long"
    # An int on the left of a shift or xor (libstdc++'s _Bit_iterator printer: 1 << offset).
    assert int(1 << point["x"]) == 8 and int(256 >> point["x"]) == 32 and int(6 ^ point["x"]) == 5
    assert str((1 << point["x"]).type) == "long long"
    assert float(point["x"] / gdb.Value(2.0)) == 1.5
    assert int(point["x"] % 2) == 1 and int(point["x"] << 2) == 12
    assert bool(point["x"]) and not bool(point["x"] - 3)


def test_casts_and_base_classes(gdb: Any) -> None:
    point = gdb.parse_and_eval("g_point")
    assert str(point["y"].cast(gdb.lookup_type("unsigned char")).type) == "unsigned char"
    assert int(point["y"].cast(gdb.lookup_type("unsigned char"))) == 252
    base = point.cast(gdb.lookup_type("Base"))
    assert str(base.type) == "Base" and int(base["b"]) == 7
    first = point.type.fields()[0]
    assert first.is_base_class and int(point[first]["b"]) == 7


def test_pointers_dereference_and_strings(gdb: Any) -> None:
    address = gdb.parse_and_eval("&g_point")
    assert str(address.type) == "Point *"
    assert int(address.dereference()["y"]) == -4
    assert int(address["x"]) == 3  # gdb: p['x'] is p->x
    numbers = gdb.parse_and_eval("g_numbers")
    assert int((numbers[0].address + 2).dereference()) == 30
    assert int(numbers[3]) == 40 and len(numbers) == 4
    text = gdb.parse_and_eval("g_text")
    assert text.string() == "hello" and text.string(length=2) == "he"
    lazy = text.lazy_string()
    assert lazy.length == -1 and lazy.address == int(text)


def test_type_fields_typedefs_sizes_and_codes(gdb: Any) -> None:
    point = gdb.lookup_type("Point")
    assert [f.name for f in point.fields()][1:] == ["x", "y"]
    assert [f.bitpos for f in point.fields()] == [0, 32, 64]
    assert point.sizeof == 12 and point.code == gdb.TYPE_CODE_STRUCT
    alias = gdb.lookup_type("PointAlias")
    assert alias.code == gdb.TYPE_CODE_TYPEDEF
    assert alias.strip_typedefs() == point and alias.strip_typedefs().code == gdb.TYPE_CODE_STRUCT
    assert gdb.lookup_type("int").pointer().code == gdb.TYPE_CODE_PTR
    assert gdb.lookup_type("int").pointer().target() == gdb.lookup_type("int")
    assert gdb.parse_and_eval("g_numbers").type.code == gdb.TYPE_CODE_ARRAY
    assert gdb.parse_and_eval("g_numbers").type.range() == (0, 3)


def test_lookup_type_by_template_name_and_its_arguments(gdb: Any) -> None:
    box = gdb.lookup_type("Box<short, 3>")
    assert box.sizeof == 6 and str(box) == "Box<short, 3>"  # gdb 13 canonicalizes g++'s "short int"
    assert gdb.lookup_type("Box<short,3>") == box
    assert box.template_argument(0) == gdb.lookup_type("short")
    assert int(box.template_argument(1)) == 3
    with pytest.raises(RuntimeError):
        box.template_argument(2)
    with pytest.raises(gdb.error, match="No type named nosuch."):
        gdb.lookup_type("nosuch")
    items = gdb.parse_and_eval("g_box")["items"]
    assert [int(items[i]) for i in range(3)] == [1, 2, 3]


def test_nested_type_found_in_a_base_class(gdb: Any) -> None:
    """gdb's cp_lookup_nested_symbol: `Derived::value_type` is declared in its base (as
    libstdc++'s xmethods look up `std::forward_list<int>::_Node`)."""
    assert str(gdb.lookup_type("Derived::value_type").strip_typedefs()) == "long"
    assert str(gdb.lookup_type("Holder::value_type")) == "Holder::value_type"


def test_errors_are_named_as_gdb_names_them(gdb: Any) -> None:
    assert gdb.error.__module__ == "gdb" and gdb.MemoryError.__module__ == "gdb"
    with pytest.raises(gdb.MemoryError):
        gdb.parse_and_eval("*(int *)8").fetch_lazy()
